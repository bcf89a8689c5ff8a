package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestGzipVaryAsNGINX: with gzip_vary on, NGINX's gzip and brotli
// filters add "Vary: Accept-Encoding" only to the responses they could
// compress (ngx_http_gzip_header_filter checks status, type and length
// before it marks the response): not to a type they skip, not to a 304,
// and to a HEAD as to its GET. A Range is ignored: the answer is the
// whole body compressed. mosaic matches that for 200s of a type it
// compresses, GET and HEAD; the rest are the differences its compress
// README keeps on purpose, pinned here against NGINX's answer: a 304 and
// a 206 of a type it compresses carry the Vary of their 200 (RFC 9110,
// 15.4.5 and 15.3.7), and a Range is honoured with the identity body. A
// type no coding takes varies in none of its answers, as in NGINX.
func TestGzipVaryAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "www")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "small.html"), strings.Repeat("hello ", 10))
	writeFile(t, filepath.Join(root, "big.html"), strings.Repeat("hello world ", 500))
	writeFile(t, filepath.Join(root, "pic.png"), strings.Repeat("\x89PNG", 500))
	main := "load_module /usr/lib/nginx/modules/ngx_http_brotli_filter_module.so;"
	mport, nport := startBothMain(t, dir, main, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s; etag on;
			types { text/html html; image/png png; }
			location /gz/ { alias %[2]s/; gzip on; gzip_vary on; gzip_min_length 1; }
			location /br/ { alias %[2]s/; brotli on; gzip_vary on; brotli_min_length 1; } }`, port, root)
	})
	// fields returns the status and the fields gzip_vary touches.
	fields := func(port int, method, path string, extra string) string {
		resp, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port),
			fmt.Sprintf("%s %s HTTP/1.1\r\nHost: a\r\nAccept-Encoding: gzip, br\r\n%sConnection: close\r\n\r\n", method, path, extra))
		return fmt.Sprintf("%d Vary=%q Content-Encoding=%q", resp.StatusCode,
			resp.Header.Values("Vary"), resp.Header.Get("Content-Encoding"))
	}
	// The ETag of each file, for If-None-Match; the same from both (the
	// same file, the same mtime and size).
	etag := func(path string) string {
		resp, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport),
			fmt.Sprintf("GET %s HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", path))
		return resp.Header.Get("Etag")
	}
	for _, enc := range []string{"/gz/", "/br/"} {
		for _, file := range []string{"small.html", "big.html", "pic.png"} {
			path := enc + file
			for _, c := range []struct {
				method, extra string
				status        int // mosaic's, where it differs on purpose
			}{
				{"GET", "", 200},
				{"HEAD", "", 200},
				{"GET", "If-None-Match: " + etag(path) + "\r\n", 304},
				{"GET", "Range: bytes=0-3\r\n", 206},
				{"HEAD", "Range: bytes=0-3\r\n", 206},
			} {
				m, n := fields(mport, c.method, path, c.extra), fields(nport, c.method, path, c.extra)
				want, why := n, "nginx"
				if c.extra != "" && file != "pic.png" {
					want = fmt.Sprintf("%d Vary=[\"Accept-Encoding\"] Content-Encoding=\"\"", c.status)
					why = "the kept difference; nginx " + n
				}
				if m != want {
					t.Errorf("%s %s %q: mosaic %s, want %s (%s)", c.method, path, c.extra, m, want, why)
				}
			}
		}
	}
}

// TestVaryStarAndOrderAsNGINX: where gzip_vary's "Vary: Accept-Encoding"
// goes beside the response's own Vary. A precompressed copy's line comes
// first and add_header's after it, "*" or Accept-Encoding included, as
// from NGINX. Through gzip and brotli, an upstream's Vary keeps the line
// first too; the kept differences (header.AddVary), pinned against
// NGINX's answer: NGINX writes its line beside an upstream's "*" and
// again beside its Accept-Encoding, mosaic adds nothing to either.
func TestVaryStarAndOrderAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := headerOrigin(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "www")
	writeFile(t, filepath.Join(root, "a.html"), strings.Repeat("hello world ", 500))
	writeFile(t, filepath.Join(root, "a.html.gz"), "gzip bytes")
	main := "load_module /usr/lib/nginx/modules/ngx_http_brotli_filter_module.so;"
	mport, nport := startBothMain(t, dir, main, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%[1]d; types { text/html html; } gzip_vary on;
			location /gz/ { gzip on; proxy_pass http://%[2]s; }
			location /br/ { brotli on; proxy_pass http://%[2]s; }
			location /static/ { alias %[3]s/; gzip_static on; }
			location /origin/ { alias %[3]s/; gzip_static on; add_header Vary Origin; }
			location /star/ { alias %[3]s/; gzip_static on; add_header Vary *; }
			location /ae/ { alias %[3]s/; gzip_static on; add_header Vary Accept-Encoding; } }`, port, origin, root)
	})
	vary := func(port int, path, ae string) string {
		resp, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port),
			"GET "+path+" HTTP/1.1\r\nHost: a\r\nAccept-Encoding: "+ae+"\r\nConnection: close\r\n\r\n")
		return fmt.Sprintf("%d %q %q", resp.StatusCode, resp.Header.Get("Content-Encoding"), resp.Header.Values("Vary"))
	}
	for _, c := range []struct {
		path, ae    string
		kept, nginx string // mosaic's Vary where it differs on purpose, and NGINX's there
	}{
		{"/static/a.html", "gzip", "", ""},
		{"/static/a.html", "identity", "", ""},
		{"/origin/a.html", "gzip", "", ""},
		{"/star/a.html", "gzip", "", ""},
		{"/ae/a.html", "gzip", "", ""},
		{"/gz/?h=Vary:Origin", "gzip", "", ""},
		{"/br/?h=Vary:Origin", "br", "", ""},
		{"/gz/?h=Vary:*", "gzip", `["*"]`, `["Accept-Encoding" "*"]`},
		{"/br/?h=Vary:*", "br", `["*"]`, `["Accept-Encoding" "*"]`},
		{"/gz/?h=Vary:Cookie&h=Vary:*", "identity", `["Cookie" "*"]`, `["Accept-Encoding" "Cookie" "*"]`},
		{"/gz/?h=Vary:Accept-Encoding", "gzip", `["Accept-Encoding"]`, `["Accept-Encoding" "Accept-Encoding"]`},
	} {
		m, n := vary(mport, c.path, c.ae), vary(nport, c.path, c.ae)
		if c.kept == "" {
			if m != n {
				t.Errorf("%s (%s): mosaic %s, nginx %s", c.path, c.ae, m, n)
			}
			continue
		}
		// The same status and coding; the Vary each is pinned to.
		status, _, _ := strings.Cut(n, " [")
		if want := status + " " + c.nginx; n != want {
			t.Errorf("%s (%s): nginx %s, the test expects %s", c.path, c.ae, n, want)
		}
		if want := status + " " + c.kept; m != want {
			t.Errorf("%s (%s): mosaic %s, want %s (nginx %s)", c.path, c.ae, m, want, n)
		}
	}
}
