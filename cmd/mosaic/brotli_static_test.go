package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestBrotliStaticAsNGINX: brotli_static on (H5BP's
// pre-compressed_content_brotli.conf) beside gzip_static on, and
// brotli_static always, against NGINX with ngx_brotli's static module:
// which file answers which Accept-Encoding, with which fields, a
// compressed file without its original included. NGINX 1.22 sends a
// precompressed copy whole, without Accept-Ranges, whatever Range asks.
func TestBrotliStaticAsNGINX(t *testing.T) {
	nginxPath(t)
	root := t.TempDir()
	when := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	for name, body := range map[string]string{
		"a.txt": "plain a", "a.txt.br": "brotli a", "a.txt.gz": "gzip a", "b.txt.br": "brotli b only",
	} {
		p := filepath.Join(root, name)
		writeFile(t, p, body)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	main := "load_module /usr/lib/nginx/modules/ngx_http_brotli_static_module.so;"
	mport, nport := startBothMain(t, t.TempDir(), main, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; access_log off;
			location /on/ { alias %[2]s/; brotli_static on; gzip_static on; }
			location /always/ { alias %[2]s/; brotli_static always; } }`, port, root)
	})
	for _, path := range []string{"/on/a.txt", "/on/b.txt", "/always/a.txt", "/always/b.txt"} {
		for _, ae := range []string{"", "br", "gzip, br", "br;q=0, gzip", "gzip", "BR", "identity", "br\r\nRange: bytes=1-2", "gzip\r\nRange: bytes=1-2"} {
			req := "GET " + path + " HTTP/1.1\r\nHost: a.test\r\n"
			if ae != "" {
				req += "Accept-Encoding: " + ae + "\r\n"
			}
			req += "Connection: close\r\n\r\n"
			m, mb, _ := rawResponse(t, mport, req)
			n, nb, _ := rawResponse(t, nport, req)
			ms, ns := m.Status+"\n"+shownHeader(m.Header)+"\n"+mb, n.Status+"\n"+shownHeader(n.Header)+"\n"+nb
			if n.StatusCode != 200 {
				ms, ns = m.Status, n.Status // the error pages are signed by each
			}
			if ms != ns {
				t.Errorf("%s, Accept-Encoding %q: mosaic\n%s\nnginx\n%s", path, ae, ms, ns)
			}
		}
	}
}
