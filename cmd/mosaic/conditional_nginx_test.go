package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// Conditional requests against Debian's NGINX on the same configuration.
// NGINX's not-modified filter does not follow RFC 9110's order: it tests
// If-Unmodified-Since and If-Match both, and answers 304 only when every
// one of If-Modified-Since and If-None-Match present says "not
// modified". Each case compares the status and the validator and length
// headers.

const condMtime = "Sun, 13 Sep 2020 12:26:40 GMT"

// condCases are the conditional fields the matrix sends; etag is the
// file's entity tag, lm its Last-Modified.
func condCases(etag string) [][]string {
	const before = "Sun, 13 Sep 2020 12:26:39 GMT"
	const after = "Sun, 13 Sep 2020 12:26:41 GMT"
	return [][]string{
		{"If-None-Match", etag},
		{"If-None-Match", "W/" + etag},
		{"If-None-Match", `"x", ` + etag},
		{"If-None-Match", "*"},
		{"If-None-Match", `*, "x"`},
		{"If-None-Match", `"x"`},
		{"If-None-Match", ""},
		{"If-None-Match", "", "If-Modified-Since", condMtime},
		{"If-Modified-Since", condMtime},
		{"If-Modified-Since", after},
		{"If-Modified-Since", before},
		{"If-Modified-Since", "yesterday"},
		{"If-None-Match", `"x"`, "If-Modified-Since", condMtime},
		{"If-None-Match", etag, "If-Modified-Since", before},
		{"If-None-Match", etag, "If-Modified-Since", after},
		{"If-None-Match", etag, "If-Modified-Since", condMtime},
		{"If-Match", etag},
		{"If-Match", `"x", ` + etag},
		{"If-Match", "*"},
		{"If-Match", `*, "x"`},
		{"If-Match", `"x"`},
		{"If-Match", "W/" + etag},
		{"If-Match", "nonsense"},
		{"If-Match", ""},
		{"If-Unmodified-Since", after},
		{"If-Unmodified-Since", condMtime},
		{"If-Unmodified-Since", before},
		{"If-Unmodified-Since", "yesterday"},
		{"If-Unmodified-Since", "Sun, 13  Sep  2020 12:26:39 GMT"},
		{"If-Modified-Since", "Sun, 13  Sep  2020 12:26:40 GMT"},
		{"If-Match", etag, "If-Unmodified-Since", before},
		{"If-Match", `"x"`, "If-None-Match", etag},
		{"If-Match", etag, "If-None-Match", etag},
		{"If-Unmodified-Since", before, "If-Modified-Since", after},
		{"If-None-Match", etag, "Range", "bytes=0-3"},
		{"If-Modified-Since", before, "Range", "bytes=0-3"},
		{"If-Match", etag, "Range", "bytes=0-3"},
		{"If-Match", `"x"`, "Range", "bytes=0-3"},
	}
}

// sameConditional sends GET and HEAD for path with each case's fields and
// compares the status and the validator and length headers.
func sameConditional(t *testing.T, mport, nport int, path, etag string) {
	t.Helper()
	for _, c := range condCases(etag) {
		for _, method := range []string{"GET", "HEAD"} {
			var b strings.Builder
			fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: a.test\r\nConnection: close", method, path)
			for i := 0; i < len(c); i += 2 {
				fmt.Fprintf(&b, "\r\n%s: %s", c[i], c[i+1])
			}
			req := b.String() + "\r\n\r\n"
			m, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
			n, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
			if got, want := condSummary(m), condSummary(n); got != want {
				t.Errorf("%s %s %q:\nmosaic %s\nnginx  %s", method, path, c, got, want)
			}
		}
	}
}

func condSummary(r *http.Response) string {
	s := fmt.Sprint(r.StatusCode)
	names := []string{"ETag", "Last-Modified", "Cache-Control", "X-Added", "Content-Length", "Content-Range", "Accept-Ranges"}
	if r.StatusCode >= 400 {
		// An error page's length depends on the server's name.
		names = names[:4]
	}
	for _, h := range names {
		s += fmt.Sprintf(" %s=%q", h, r.Header.Get(h))
	}
	return s
}

// TestConditionalStaticAsNGINX: a file with ETags on and off and each
// if_modified_since value, with expires and add_header (which a 304
// carries too), and served by error_page for a 404 (no conditions: the
// status is not a 200) and with "=200" (conditions as for a 200), and
// rebuilt by SSI or sub_filter (the file's validators still answer: the
// not-modified filter runs before those filters).
func TestConditionalStaticAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "www", "a.txt")
	writeFile(t, p, "abcdefghijklmnopqrstuvwxyz")
	when, _ := time.Parse(http.TimeFormat, condMtime)
	if err := os.Chtimes(p, when, when); err != nil {
		t.Fatal(err)
	}
	www := filepath.Join(dir, "www")
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			location /exact/ { alias %[2]s/; }
			location /before/ { alias %[2]s/; if_modified_since before; }
			location /off/ { alias %[2]s/; if_modified_since off; }
			location /noetag/ { alias %[2]s/; etag off; }
			location /expires/ { alias %[2]s/; expires 1h; add_header X-Added yes; }
			location /ssi/ { alias %[2]s/; ssi on; ssi_types text/plain; }
			location /sub/ { alias %[2]s/; sub_filter abc ABC; sub_filter_types text/plain; }
			location /page/ { root %[2]s; error_page 404 /exact/a.txt; }
			location /page200/ { root %[2]s; error_page 404 =200 /exact/a.txt; }
		}`, port, www)
	})
	etag := `"5f5e1000-1a"`
	for _, loc := range []string{"/exact/", "/before/", "/off/", "/noetag/", "/expires/", "/page/", "/page200/", "/ssi/", "/sub/"} {
		sameConditional(t, mport, nport, loc+"a.txt", etag)
	}
	// The error pages are what they are meant to be: a 404 and a 200.
	for path, want := range map[string]int{"/page/a.txt": 404, "/page200/a.txt": 200} {
		req := "GET " + path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		if n, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req); n.StatusCode != want {
			t.Errorf("nginx %s: %d, want %d", path, n.StatusCode, want)
		}
	}
}

// TestConditionalProxiedAsNGINX: a proxied 200 that carries an ETag and a
// Last-Modified from an origin that ignores the conditions. Not cached,
// NGINX leaves the conditions to the origin (the upstream module sets
// disable_not_modified for a response it will not cache), and so does
// mosaic: both pass the 200 through.
func TestConditionalProxiedAsNGINX(t *testing.T) {
	nginxPath(t)
	etag := `"v1"`
	origin := condOrigin(t, etag)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; location /p/ { proxy_pass %s; } }`, port, origin)
	})
	sameConditional(t, mport, nport, "/p/x", etag)
}

// condOrigin serves a 200 with validators whatever the request's
// conditions, so that every 304 or 412 is the edge's own.
func condOrigin(t *testing.T, etag string) string {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", condMtime)
		w.Header().Set("Cache-Control", "max-age=600")
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "abcdefghijklmnopqrstuvwxyz")
	}))
	t.Cleanup(origin.Close)
	return origin.URL
}
