package static

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDirectoryRedirect(t *testing.T) {
	fx := serve(t, nil)
	resp, body := fx.do("GET", "/dir")
	expect(t, resp, 301, "Location", "/dir/", "Content-Type", "text/html")
	if !strings.Contains(body, "301 Moved Permanently") {
		t.Errorf("body %q", body)
	}
	resp, _ = fx.do("GET", "/dir?a=1&b=%20")
	expect(t, resp, 301, "Location", "/dir/?a=1&b=%20")
	resp, _ = fx.do("HEAD", "/empty")
	expect(t, resp, 301, "Location", "/empty/")

	// A directory whose name needs escaping is escaped in Location.
	if err := os.Mkdir(filepath.Join(fx.root, "a b"), 0o755); err != nil {
		t.Fatal(err)
	}
	resp, _ = fx.do("GET", "/a%20b")
	expect(t, resp, 301, "Location", "/a%20b/")

	// Leading slashes collapse, so the Location cannot name another host.
	resp, _ = fx.raw("//dir")
	expect(t, resp, 301, "Location", "/dir/")
}

func TestIndexFiles(t *testing.T) {
	fx := serve(t, nil)
	resp, body := fx.do("GET", "/dir/")
	expect(t, resp, 200, "Content-Length", "12")
	if body != "<p>index</p>" {
		t.Errorf("body %q", body)
	}

	// An index entry that is a directory redirects, as NGINX's internal
	// redirect to it would.
	resp, _ = fx.do("GET", "/nested/")
	expect(t, resp, 301, "Location", "/nested/index.html/")

	resp, _ = fx.do("GET", "/missing/")
	expect(t, resp, 404)
	resp, _ = fx.do("GET", "/a.txt/")
	expect(t, resp, 404)

	// The first index file that exists wins.
	fx = serve(t, func(o *Options) { o.Index = []string{"none.html", "page.html", "index.html"} })
	resp, body = fx.do("GET", "/dir/")
	expect(t, resp, 200)
	if body != "<p>page</p>" {
		t.Errorf("body %q", body)
	}
}

// Tests run as root, which reads every file whatever its mode, so the 403
// that needs no file permissions is NGINX's "directory index is
// forbidden": a directory requested with a trailing slash and no index
// file. (Symbolic links give two more, in the security tests.)
func TestDirectoryWithoutIndexIsForbidden(t *testing.T) {
	fx := serve(t, nil)
	resp, body := fx.do("GET", "/empty/")
	expect(t, resp, 403, "Content-Type", "text/html")
	if !strings.Contains(body, "403 Forbidden") {
		t.Errorf("body %q", body)
	}
	if l := fx.log.String(); !strings.Contains(l, "directory index is forbidden") || !strings.Contains(l, "empty/") {
		t.Errorf("log %q", l)
	}

	// No index names at all: every directory is forbidden.
	fx = serve(t, func(o *Options) { o.Index = []string{} })
	resp, _ = fx.do("GET", "/dir/")
	expect(t, resp, 403)
}

// Without root's privileges a file the server may not read is 403.
func TestUnreadableFileIsForbidden(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files regardless of their mode; see TestDirectoryWithoutIndexIsForbidden")
	}
	fx := serve(t, nil)
	if err := os.Chmod(filepath.Join(fx.root, "a.txt"), 0); err != nil {
		t.Fatal(err)
	}
	resp, _ := fx.do("GET", "/a.txt")
	expect(t, resp, 403)
}

func TestServePathWithAlias(t *testing.T) {
	fx := serve(t, nil)
	// location /docs/ { alias <root>/dir/; } maps /docs/page.html to
	// dir/page.html and /docs to the directory itself.
	for _, c := range []struct {
		rel, uri string
		status   int
		location string
		body     string
	}{
		{"dir/page.html", "/docs/page.html", 200, "", "<p>page</p>"},
		{"dir/", "/docs/", 200, "", "<p>index</p>"},
		{"dir", "/docs", 301, "/docs/", ""},
		{"", "/all", 301, "/all/", ""},
		{"", "/", 403, "", ""}, // the root holds no index.html
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", c.uri, nil)
		fx.fs.ServePath(rec, req, c.rel, c.uri)
		if rec.Code != c.status || rec.Header().Get("Location") != c.location {
			t.Errorf("ServePath(%q, %q): %d Location %q; want %d %q", c.rel, c.uri, rec.Code,
				rec.Header().Get("Location"), c.status, c.location)
		}
		if c.body != "" && rec.Body.String() != c.body {
			t.Errorf("ServePath(%q, %q): body %q", c.rel, c.uri, rec.Body)
		}
	}
}

func TestLookup(t *testing.T) {
	fx := serve(t, nil)
	for _, c := range []struct {
		rel       string
		isDir, ok bool
	}{
		{"a.txt", false, true},
		{"dir", true, true},
		{"dir/", true, true},
		{"", true, true},
		{"in-link", false, true},
		{"missing", false, false},
		{"a.txt/", false, false},
		{"out-link", false, false},
		{"abs-link", false, false},
		{"loop1", false, false},
		{"fifo", false, false},
		{"../root/a.txt", false, false},
		{"dir\\page.html", false, false},
	} {
		isDir, ok := fx.fs.Lookup(c.rel)
		if isDir != c.isDir || ok != c.ok {
			t.Errorf("Lookup(%q) = %v, %v; want %v, %v", c.rel, isDir, ok, c.isDir, c.ok)
		}
	}
}

// An IndexFallback with no index names before it (NGINX's "index
// /app.php;") answers every directory request without a look at the
// directory, which need not exist; after names that are tried, the
// directory must exist, as NGINX tests it once a name is missing.
func TestIndexFallbackAloneSkipsDirectoryTest(t *testing.T) {
	fallback := func(o *Options) {
		o.IndexFallback = func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(299)
		}
	}
	fx := serve(t, func(o *Options) { o.Index = []string{}; fallback(o) })
	for _, p := range []string{"/dir/", "/missing/", "/missing/deeper/", "/a.txt/"} {
		resp, _ := fx.do("GET", p)
		expect(t, resp, 299)
	}
	fx = serve(t, func(o *Options) { o.Index = []string{"none.html"}; fallback(o) })
	resp, _ := fx.do("GET", "/empty/")
	expect(t, resp, 299)
	resp, _ = fx.do("GET", "/missing/")
	expect(t, resp, 404)
}
