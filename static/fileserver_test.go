package static

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServeFileHeaders(t *testing.T) {
	fx := serve(t, nil)
	resp, body := fx.do("GET", "/4k.bin")
	expect(t, resp, 200,
		"ETag", `"5f5e1000-1000"`,
		"Last-Modified", fixedLastModified,
		"Content-Length", "4096",
		"Accept-Ranges", "bytes",
		"Content-Type", "application/octet-stream",
		"Content-Range", "-",
	)
	if body != strings.Repeat("0123456789abcdef", 256) {
		t.Errorf("body differs from the file (%d bytes)", len(body))
	}

	resp, body = fx.do("GET", "/a.txt")
	expect(t, resp, 200, "ETag", `"5f5e1000-1a"`, "Content-Length", "26",
		"Content-Type", "text/plain; charset=utf-8")
	if body != alphabet {
		t.Errorf("body %q", body)
	}
}

func TestHead(t *testing.T) {
	fx := serve(t, nil)
	resp, body := fx.do("HEAD", "/a.txt")
	expect(t, resp, 200, "ETag", `"5f5e1000-1a"`, "Last-Modified", fixedLastModified,
		"Content-Length", "26", "Accept-Ranges", "bytes")
	if body != "" {
		t.Errorf("HEAD body %q", body)
	}
}

func TestContentType(t *testing.T) {
	fx := serve(t, nil)
	for path, want := range map[string]string{
		"/css/site.css":  "text/css; charset=utf-8",
		"/dir/page.html": "text/html; charset=utf-8",
		"/dir/":          "text/html; charset=utf-8", // from the index file's name
		"/unknown.zzz":   "application/octet-stream",
	} {
		resp, _ := fx.do("GET", path)
		expect(t, resp, 200, "Content-Type", want)
	}

	fx = serve(t, func(o *Options) {
		o.ContentType = func(name string) string {
			if strings.HasSuffix(name, ".css") {
				return "text/css"
			}
			return ""
		}
		o.DefaultType = "text/plain"
	})
	resp, _ := fx.do("GET", "/css/site.css")
	expect(t, resp, 200, "Content-Type", "text/css")
	resp, _ = fx.do("GET", "/a.txt")
	expect(t, resp, 200, "Content-Type", "text/plain")
}

func TestDotFilesAreServed(t *testing.T) {
	fx := serve(t, nil)
	resp, body := fx.do("GET", "/.hidden")
	expect(t, resp, 200)
	if body != "dot file" {
		t.Errorf("body %q", body)
	}
}

func TestDisableETag(t *testing.T) {
	fx := serve(t, func(o *Options) { o.DisableETag = true })
	resp, _ := fx.do("GET", "/a.txt")
	expect(t, resp, 200, "ETag", "-", "Last-Modified", fixedLastModified)
	// Without an entity tag, only "*" can match.
	resp, _ = fx.do("GET", "/a.txt", "If-None-Match", `"5f5e1000-1a"`)
	expect(t, resp, 200)
	resp, _ = fx.do("GET", "/a.txt", "If-None-Match", `*`)
	expect(t, resp, 304)
	resp, _ = fx.do("GET", "/a.txt", "If-Match", `"5f5e1000-1a"`)
	expect(t, resp, 412)
}

func TestMethods(t *testing.T) {
	fx := serve(t, nil)
	for _, m := range []string{"PUT", "DELETE", "OPTIONS", "PATCH"} {
		resp, body := fx.do(m, "/a.txt")
		expect(t, resp, 405, "Allow", "GET, HEAD", "Content-Type", "text/html")
		if !strings.Contains(body, "405 Not Allowed") {
			t.Errorf("%s: body %q", m, body)
		}
	}
	// POST is looked up first, as NGINX does: only a file answers 405.
	resp, _ := fx.do("POST", "/a.txt")
	expect(t, resp, 405, "Allow", "GET, HEAD")
	resp, _ = fx.do("POST", "/missing")
	expect(t, resp, 404)
	resp, _ = fx.do("POST", "/dir")
	expect(t, resp, 301, "Location", "/dir/")
	resp, _ = fx.do("POST", "/dir/")
	expect(t, resp, 405)
}

func TestNotFound(t *testing.T) {
	fx := serve(t, nil)
	resp, body := fx.do("GET", "/missing.txt")
	expect(t, resp, 404, "Content-Type", "text/html", "ETag", "-")
	want := "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n" +
		"<center><h1>404 Not Found</h1></center>\r\n<hr><center>mosaic</center>\r\n</body>\r\n</html>\r\n"
	if body != want {
		t.Errorf("body %q, want %q", body, want)
	}
	resp, _ = fx.do("GET", "/a.txt/x") // a file used as a directory: ENOTDIR
	expect(t, resp, 404)
	if fx.log.String() != "" {
		t.Errorf("404 logged without LogNotFound: %s", fx.log)
	}

	fx = serve(t, func(o *Options) { o.LogNotFound = true })
	fx.do("GET", "/missing.txt")
	if l := fx.log.String(); !strings.Contains(l, "level=ERROR") || !strings.Contains(l, "missing.txt") {
		t.Errorf("no error line for a 404 with LogNotFound: %q", l)
	}
}

func TestErrorHook(t *testing.T) {
	var got []int
	fx := serve(t, func(o *Options) {
		o.Error = func(w http.ResponseWriter, r *http.Request, status int) {
			got = append(got, status)
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(status)
			w.Write([]byte("custom"))
		}
	})
	resp, body := fx.do("GET", "/missing")
	expect(t, resp, 404, "Content-Type", "text/plain")
	if body != "custom" {
		t.Errorf("body %q", body)
	}
	resp, _ = fx.do("GET", "/dir?x=1")
	expect(t, resp, 301, "Location", "/dir/?x=1")
	resp, _ = fx.do("GET", "/a.txt", "Range", "bytes=100-")
	expect(t, resp, 416, "Content-Range", "bytes */26")
	if want := []int{404, 301, 416}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("hook saw %v, want %v", got, want)
	}
}

func TestHandlerOptions(t *testing.T) {
	if _, err := New(Options{}); err == nil {
		t.Error("no error without a root")
	}
	if _, err := New(Options{Root: t.TempDir() + "/nope"}); err == nil {
		t.Error("no error for a missing root")
	}
	for _, bad := range []string{"", "../index.html", "/index.html", "a\\b", "dir/"} {
		if _, err := New(Options{Root: t.TempDir(), Index: []string{bad}}); err == nil {
			t.Errorf("index %q accepted", bad)
		}
	}
}

func TestClosedRootIs500(t *testing.T) {
	fx := serve(t, nil)
	fx.fs.Close()
	resp, _ := fx.do("GET", "/a.txt")
	expect(t, resp, 500)
	if !strings.Contains(fx.log.String(), "level=ERROR") {
		t.Errorf("no error line for a 500: %q", fx.log)
	}
}

func TestEmptyFile(t *testing.T) {
	fx := serve(t, nil)
	if err := os.WriteFile(filepath.Join(fx.root, "empty.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	resp, body := fx.do("GET", "/empty.txt")
	expect(t, resp, 200, "Content-Length", "0")
	if body != "" {
		t.Errorf("body %q", body)
	}
	// Nothing to take a range of: the whole (empty) file.
	resp, _ = fx.do("GET", "/empty.txt", "Range", "bytes=0-")
	expect(t, resp, 200, "Content-Length", "0")
}
