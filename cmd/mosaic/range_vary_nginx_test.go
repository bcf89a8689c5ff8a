package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestRangeVaryAsNGINX: the gzip block H5BP and Nextcloud ship, asked for
// several ranges (a multipart 206) and for a range past the end (416).
// NGINX's gzip filter marks the 200 for Vary before its range filter cuts
// it into parts or refuses it, so both keep the Vary of their 200: a
// listed type long enough has it, a short file or an unlisted type not.
// Status, Vary and Content-Range are compared with Debian's NGINX. The
// requests send no Accept-Encoding: to a client that takes gzip NGINX
// sends the listed type compressed and whole, mosaic the ranges (the
// compress README's kept difference).
func TestRangeVaryAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "www")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "a.css"), strings.Repeat("body{color:red}\n", 100))
	writeFile(t, filepath.Join(root, "short.css"), "p{color:red}\n")
	writeFile(t, filepath.Join(root, "a.png"), strings.Repeat("\x89PNG", 200))
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s;
			types { text/css css; image/png png; }
			gzip on; gzip_vary on; gzip_min_length 256; gzip_types text/css; }`, port, root)
	})
	for _, path := range []string{"/a.css", "/short.css", "/a.png"} {
		for _, rng := range []string{"0-1,4-6", "0-5,3-8", "5000-6000", "9-3"} {
			req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: a\r\nRange: bytes=%s\r\nConnection: close\r\n\r\n", path, rng)
			answer := func(port int) string {
				resp, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), req)
				return fmt.Sprintf("%d Vary=%q Content-Range=%q", resp.StatusCode,
					resp.Header.Values("Vary"), resp.Header.Get("Content-Range"))
			}
			if m, n := answer(mport), answer(nport); m != n {
				t.Errorf("%s bytes=%s: mosaic %s, nginx %s", path, rng, m, n)
			}
		}
	}
}
