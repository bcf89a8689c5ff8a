package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestGzipTypesVaryAsNGINX: the compression block H5BP and Nextcloud ship
// (gzip on, gzip_vary on, a gzip_min_length and a gzip_types list) beside
// add_header and expires. NGINX marks a response for Vary only when its
// type is in gzip_types and its length reaches gzip_min_length, so an
// image/png or a text/xml outside the list, or a CSS file too short,
// answers without Vary, GET, HEAD or conditional; a listed type long
// enough varies in its 200s whoever asks. Every answer is compared with
// NGINX's, but the 304 of a listed type long enough: mosaic keeps the
// Vary of its 200 there (RFC 9110 15.4.5, the compress README's kept
// difference), judged by the file's type and length as the 200 is, so
// short.css's 304 has none, as its 200. A multipart 206 and a 416 keep
// their 200's Vary, as NGINX's.
func TestGzipTypesVaryAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "www")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "a.css"), strings.Repeat("body{color:red}\n", 100))
	writeFile(t, filepath.Join(root, "short.css"), "p{}\n")
	writeFile(t, filepath.Join(root, "a.png"), strings.Repeat("\x89PNG", 200))
	writeFile(t, filepath.Join(root, "a.xml"), strings.Repeat("<a/>\n", 200))
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s;
			types { text/css css; image/png png; text/xml xml; }
			gzip on; gzip_vary on; gzip_min_length 256;
			gzip_types text/css image/svg+xml application/json;
			location ~* \.(?:css|png|xml)$ { expires 1y; add_header X-Content-Type-Options nosniff; } }`, port, root)
	})
	fields := func(port int, method, path, extra string) string {
		resp, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port),
			fmt.Sprintf("%s %s HTTP/1.1\r\nHost: a\r\nAccept-Encoding: gzip\r\n%sConnection: close\r\n\r\n", method, path, extra))
		return fmt.Sprintf("%d Vary=%q Content-Encoding=%q Cache-Control=%q X-Content-Type-Options=%q",
			resp.StatusCode, resp.Header.Values("Vary"), resp.Header.Get("Content-Encoding"),
			resp.Header.Get("Cache-Control"), resp.Header.Get("X-Content-Type-Options"))
	}
	for _, file := range []string{"a.css", "short.css", "a.png", "a.xml"} {
		path := "/" + file
		first, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport),
			fmt.Sprintf("GET %s HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", path))
		ims := "If-Modified-Since: " + first.Header.Get("Last-Modified") + "\r\n"
		for _, c := range []struct{ method, extra string }{{"GET", ""}, {"HEAD", ""}, {"GET", ims}} {
			m, n := fields(mport, c.method, path, c.extra), fields(nport, c.method, path, c.extra)
			want, why := n, "nginx"
			if file == "a.css" && c.extra != "" {
				want = `304 Vary=["Accept-Encoding"] Content-Encoding="" Cache-Control="max-age=31536000" X-Content-Type-Options="nosniff"`
				why = "the kept difference; nginx " + n
			}
			if m != want {
				t.Errorf("%s %s %q: mosaic %s, want %s (%s)", c.method, path, c.extra, m, want, why)
			}
		}
		// Several ranges (a multipart 206) and a range past the end (416):
		// NGINX's gzip filter marks the 200 for Vary before its range
		// filter cuts or refuses it, so both keep the 200's Vary. Asked
		// without Accept-Encoding: to a client that takes gzip NGINX
		// sends a listed type compressed and whole, mosaic the ranges
		// (the compress README's kept difference).
		for _, rng := range []string{"0-1,4-6", "0-5,3-8", "5000-6000", "9-3"} {
			req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: a\r\nRange: bytes=%s\r\nConnection: close\r\n\r\n", path, rng)
			ranged := func(port int) string {
				resp, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), req)
				return fmt.Sprintf("%d Vary=%q Content-Range=%q", resp.StatusCode,
					resp.Header.Values("Vary"), resp.Header.Get("Content-Range"))
			}
			if m, n := ranged(mport), ranged(nport); m != n {
				t.Errorf("%s bytes=%s: mosaic %s, nginx %s", path, rng, m, n)
			}
		}
	}
}

// TestGzipTypesParametersAsNGINX: a proxied response's Content-Type
// against gzip_types, beside NGINX. Both compare the type in lower case
// and without a charset parameter, so upper case and "; charset=" (with
// or without the space) change nothing. NGINX cuts the value only at a
// ';' that introduces charset (ngx_http_upstream_copy_content_type) and
// keeps the bytes before it as they are: a type with another parameter,
// or with whitespace before the ';', is not the listed type and goes
// out as it came. mosaic compares the type without any parameter or the
// whitespace around it and compresses these (the compress README's kept
// difference).
func TestGzipTypesParametersAsNGINX(t *testing.T) {
	nginxPath(t)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", r.Header.Get("X-Type"))
		_, _ = io.WriteString(w, strings.Repeat(`{"a":1}`+"\n", 100))
	}))
	t.Cleanup(up.Close)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			gzip on; gzip_min_length 1; gzip_types application/json;
			location / { proxy_pass %s; } }`, port, up.URL)
	})
	coding := func(port int, ct string) string {
		resp, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port),
			"GET / HTTP/1.1\r\nHost: a\r\nX-Type: "+ct+"\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n")
		return fmt.Sprintf("Content-Encoding=%q Content-Type=%q", resp.Header.Get("Content-Encoding"), resp.Header.Get("Content-Type"))
	}
	for _, tc := range []struct {
		ct   string
		kept bool // the kept difference: NGINX does not compress, mosaic does
	}{
		{"application/json", false},
		{"Application/JSON", false},
		{"application/json; charset=utf-8", false},
		{"application/json;charset=utf-8", false},
		{"APPLICATION/JSON; Charset=UTF-8", false},
		{"application/json;  charset=utf-8", false},
		{"text/html; charset=utf-8", false},
		{"application/json; foo=bar", true},
		{"application/json;foo=bar; charset=utf-8", true},
		{"application/json ; charset=utf-8", true},
	} {
		m, n := coding(mport, tc.ct), coding(nport, tc.ct)
		want, why := n, "nginx"
		if tc.kept {
			if !strings.HasPrefix(n, `Content-Encoding=""`) {
				t.Errorf("%q: nginx %s, want it uncompressed (the kept difference)", tc.ct, n)
			}
			want = strings.Replace(n, `Content-Encoding=""`, `Content-Encoding="gzip"`, 1)
			why = "the kept difference; nginx " + n
		}
		if m != want {
			t.Errorf("%q: mosaic %s, want %s (%s)", tc.ct, m, want, why)
		}
	}
}
