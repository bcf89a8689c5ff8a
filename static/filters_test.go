package static

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// isHTML stands for a filter's test of a Content-Type.
func isHTML(contentType string) bool { return strings.HasPrefix(contentType, "text/html") }

// TestTransformed: a file whose body a filter rebuilds is served whole and
// evaluated as a response without validators; other files are not
// affected.
func TestTransformed(t *testing.T) {
	fx := serve(t, func(o *Options) { o.Transformed = isHTML })
	const page = "/dir/page.html" // "<p>page</p>"
	etag := `"5f5e1000-b"`
	for _, tc := range []struct {
		name   string
		header []string
		status int
	}{
		{"range", []string{"Range", "bytes=0-3"}, 200},
		{"several ranges", []string{"Range", "bytes=0-1,3-4"}, 200},
		{"unsatisfiable range", []string{"Range", "bytes=100-"}, 200},
		{"If-Range and range", []string{"Range", "bytes=0-3", "If-Range", etag}, 200},
		{"INM of the file's tag", []string{"If-None-Match", etag}, 200},
		{"INM star", []string{"If-None-Match", "*"}, 304},
		{"IMS", []string{"If-Modified-Since", fixedLastModified}, 200},
		{"IM of the file's tag", []string{"If-Match", etag}, 412},
		{"IM star", []string{"If-Match", "*"}, 200},
		{"IUMS earlier", []string{"If-Unmodified-Since", before}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := fx.do("GET", page, tc.header...)
			expect(t, resp, tc.status, "Content-Range", "-")
			if tc.status == 200 && body != "<p>page</p>" {
				t.Errorf("body %q", body)
			}
			if tc.status == 304 {
				expect(t, resp, 304, "ETag", "-", "Last-Modified", "-")
			}
		})
	}
	// Another type keeps its ranges and validators.
	resp, body := fx.do("GET", "/a.txt", "Range", "bytes=0-3")
	expect(t, resp, 206, "Content-Range", "bytes 0-3/26")
	if body != "abcd" {
		t.Errorf("a.txt range: %q", body)
	}
	resp, _ = fx.do("GET", "/a.txt", "If-None-Match", etagA)
	expect(t, resp, 304, "ETag", etagA, "Last-Modified", fixedLastModified)
}

// TestUnranged: a file whose length a filter changes (sub_filter) is
// served whole whatever Range asks, while its validators still answer
// conditional requests, as NGINX's not-modified filter does before the
// sub filter.
func TestUnranged(t *testing.T) {
	fx := serve(t, func(o *Options) { o.Unranged = isHTML })
	const page = "/dir/page.html" // "<p>page</p>"
	etag := `"5f5e1000-b"`
	resp, body := fx.do("GET", page, "Range", "bytes=0-3")
	expect(t, resp, 200, "Content-Range", "-", "Accept-Ranges", "-")
	if body != "<p>page</p>" {
		t.Errorf("body %q", body)
	}
	resp, _ = fx.do("GET", page, "If-None-Match", etag)
	expect(t, resp, 304, "ETag", etag)
	resp, _ = fx.do("GET", page, "If-Modified-Since", fixedLastModified)
	expect(t, resp, 304)
	resp, _ = fx.do("GET", "/a.txt", "Range", "bytes=0-3")
	expect(t, resp, 206, "Content-Range", "bytes 0-3/26")
}

// TestNotModifiedVary: a 304 carries the Vary its 200 gets from a
// compressing filter (VaryEncoding, asked with the file's type and
// length), or the variant's own; never a representation header.
func TestNotModifiedVary(t *testing.T) {
	fx := serve(t, func(o *Options) {
		// Plain text varies past 26 bytes, or at an unknown length, as a
		// min length does: a.txt has 26, so its 304 does not.
		o.VaryEncoding = func(ct string, n int64) bool {
			return isHTML(ct) || strings.HasPrefix(ct, "text/plain") && (n < 0 || n > 26)
		}
		o.Variants = func(r *http.Request) ([]Variant, bool) {
			if r.Header.Get("Accept-Encoding") != "gzip" {
				return nil, false
			}
			return []Variant{{Suffix: ".gz", Encoding: "gzip"}}, r.URL.Query().Get("vary") != ""
		}
	})
	gz := filepath.Join(fx.root, "dir/page.html.gz")
	if err := os.WriteFile(gz, []byte("not really gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(gz, fixedMtime, fixedMtime); err != nil {
		t.Fatal(err)
	}
	gzTag := `"5f5e1000-f"`
	for _, tc := range []struct {
		name   string
		path   string
		header []string
		status int
		want   []string
	}{
		{"304, VaryEncoding yes", "/dir/page.html", []string{"If-Modified-Since", fixedLastModified}, 304,
			[]string{"Vary", "Accept-Encoding", "Content-Type", "-", "Content-Length", "-", "Content-Encoding", "-"}},
		{"304 by ETag", "/dir/page.html", []string{"If-None-Match", `"5f5e1000-b"`}, 304, []string{"Vary", "Accept-Encoding"}},
		{"304, VaryEncoding no", "/a.txt", []string{"If-None-Match", etagA}, 304, []string{"Vary", "-"}},
		{"200: the filter's to add", "/dir/page.html", nil, 200, []string{"Vary", "-"}},
		{"412", "/dir/page.html", []string{"If-Match", `"x"`}, 412, []string{"Vary", "-"}},
		{"variant 304 that varies", "/dir/page.html?vary=1", []string{"Accept-Encoding", "gzip", "If-None-Match", gzTag}, 304,
			[]string{"Vary", "Accept-Encoding", "Content-Encoding", "-", "ETag", gzTag}},
		{"variant 304 that does not", "/dir/page.html", []string{"Accept-Encoding", "gzip", "If-None-Match", gzTag}, 304,
			[]string{"Vary", "-", "Content-Encoding", "-"}},
		{"variant 200", "/dir/page.html", []string{"Accept-Encoding", "gzip"}, 200, []string{"Content-Encoding", "gzip"}},
		{"variant 412", "/dir/page.html", []string{"Accept-Encoding", "gzip", "If-Match", `"x"`}, 412, []string{"Content-Encoding", "-"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// An explicit Accept-Encoding keeps the client from asking
			// for gzip, and from decoding, on its own.
			header := tc.header
			if len(header) < 2 || header[0] != "Accept-Encoding" {
				header = append([]string{"Accept-Encoding", "identity"}, header...)
			}
			resp, _ := fx.do("GET", tc.path, header...)
			expect(t, resp, tc.status, tc.want...)
		})
	}
}

// TestVariantVaryBesideOwn: a variant's Vary: Accept-Encoding goes before
// a Vary already set by what runs before the file server, where NGINX
// writes gzip_vary's line, and not beside "*", which covers it, as the
// compressing filter's (header.VaryAcceptEncoding).
func TestVariantVaryBesideOwn(t *testing.T) {
	fx := serve(t, func(o *Options) {
		o.Variants = func(*http.Request) ([]Variant, bool) {
			return []Variant{{Suffix: ".gz", Encoding: "gzip"}}, true
		}
	})
	if err := os.WriteFile(filepath.Join(fx.root, "dir/page.html.gz"), []byte("not really gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ before, want []string }{
		{nil, []string{"Accept-Encoding"}},
		{[]string{"Origin"}, []string{"Accept-Encoding", "Origin"}},
		{[]string{"*"}, []string{"*"}},
		{[]string{"accept-encoding"}, []string{"accept-encoding"}},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tc.before != nil {
				w.Header()["Vary"] = slices.Clone(tc.before)
			}
			fx.fs.ServeHTTP(w, r)
		}))
		resp, _ := testclient.Get(t, srv.URL+"/dir/page.html", "Accept-Encoding", "gzip")
		srv.Close()
		if got := resp.Header["Vary"]; resp.Header.Get("Content-Encoding") != "gzip" || !slices.Equal(got, tc.want) {
			t.Errorf("Vary %q before: %q (Content-Encoding %q), want %q", tc.before, got, resp.Header.Get("Content-Encoding"), tc.want)
		}
	}
}

// dateWatcher is a filter's writer that records being told the
// Last-Modified is a file's date (header.FileDated).
type dateWatcher struct {
	http.ResponseWriter
	told bool
}

func (d *dateWatcher) FileDated()                  { d.told = true }
func (d *dateWatcher) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// TestFileDatedThroughProxy: a file served to a request that came through
// a proxy (Via) tells the filters above that its Last-Modified is the
// file's date, which gzip_proxied no_last_modified does not count, as in
// NGINX; other requests spare the walk down the writers.
func TestFileDatedThroughProxy(t *testing.T) {
	h, err := New(Options{Root: testTree(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, via := range []bool{false, true} {
		r := httptest.NewRequest("GET", "/a.txt", nil)
		if via {
			r.Header.Set("Via", "1.1 cache")
		}
		w := &dateWatcher{ResponseWriter: httptest.NewRecorder()}
		h.ServeHTTP(w, r)
		if w.Header().Get("Last-Modified") != fixedLastModified || w.told != via {
			t.Errorf("Via %v: Last-Modified %q, told %v", via, w.Header().Get("Last-Modified"), w.told)
		}
	}
}
