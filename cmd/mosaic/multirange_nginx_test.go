package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestMultipartRangesAsNGINX: a request for several byte ranges gets the
// multipart/byteranges answer NGINX's range filter builds
// (ngx_http_range_multipart_header): the same part headers, the same
// lengths, the same Content-Length, the same body once each server's
// boundary (a counter in both, of different values) is set aside.
func TestMultipartRangesAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "www")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "f.txt"), "0123456789abcdefghijklmnopqrstuvwxyz")
	writeFile(t, filepath.Join(root, "f.bin"), strings.Repeat("\x00\x01", 50))
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`proxy_cache_path %[3]s/cache-%[4]s keys_zone=z:1m;
			server { listen 127.0.0.1:%[1]d; root %[2]s;
			types { text/plain txt; } default_type application/octet-stream; charset utf-8;
			location /raw/ { charset off; alias %[2]s/; }
			location /c/ { proxy_pass http://127.0.0.1:%[1]d/raw/; proxy_cache z; proxy_cache_valid 200 1m; } }`, port, root, dir, who)
	})
	// answer returns the status, the fields that describe the answer
	// and the body, the boundary replaced by B, and the boundary's length.
	answer := func(port int, method, path, rng string) (string, int) {
		resp, body := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port),
			fmt.Sprintf("%s %s HTTP/1.1\r\nHost: a\r\nRange: %s\r\nConnection: close\r\n\r\n", method, path, rng))
		ct := resp.Header.Get("Content-Type")
		_, boundary, _ := strings.Cut(ct, "boundary=")
		norm := func(s string) string {
			if boundary == "" {
				return s
			}
			return strings.ReplaceAll(s, boundary, "B")
		}
		return fmt.Sprintf("%d\nContent-Type: %s\nContent-Length: %s\nContent-Range: %s\n\n%s", resp.StatusCode,
			norm(ct), resp.Header.Get("Content-Length"), resp.Header.Get("Content-Range"), norm(body)), len(boundary)
	}
	for _, c := range []struct{ method, path, rng string }{
		{"GET", "/f.txt", "bytes=0-1,5-9"},
		{"GET", "/f.bin", "bytes=0-1,5-9"},
		{"GET", "/f.txt", "bytes=0-0,-3"},
		{"GET", "/f.txt", "bytes=30-,2-4"},
		{"GET", "/f.txt", "bytes=0-4,3-8"}, // overlapping: NGINX sends both
		{"GET", "/f.txt", "bytes=0-1,100-200"},
		{"HEAD", "/f.txt", "bytes=0-1,5-9"},
		// From a cache, the charset added to a type without one: the
		// miss that fills it, then a hit.
		{"GET", "/c/f.txt", "bytes=0-1,5-9"},
		{"GET", "/c/f.txt", "bytes=0-1,5-9"},
	} {
		m, mb := answer(mport, c.method, c.path, c.rng)
		n, nb := answer(nport, c.method, c.path, c.rng)
		if m != n {
			t.Errorf("%s %s %s:\nmosaic %s\nnginx  %s", c.method, c.path, c.rng, m, n)
		}
		if mb != nb {
			t.Errorf("%s %s %s: boundary of %d characters, nginx's %d", c.method, c.path, c.rng, mb, nb)
		}
	}
}
