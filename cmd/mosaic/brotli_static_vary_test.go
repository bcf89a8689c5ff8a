package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestBrotliStaticVaryAsNGINX: which answers of brotli_static carry
// "Vary: Accept-Encoding" in NGINX with ngx_brotli's static module, on
// its own, beside add_header Vary, and beside gzip_static with
// gzip_vary, for a client that accepts brotli, one that accepts only
// gzip, and one that accepts neither.
func TestBrotliStaticVaryAsNGINX(t *testing.T) {
	nginxPath(t)
	root := t.TempDir()
	for name, body := range map[string]string{"a.txt": "plain a", "a.txt.br": "brotli a", "a.txt.gz": "gzip a"} {
		writeFile(t, filepath.Join(root, name), body)
	}
	main := "load_module /usr/lib/nginx/modules/ngx_http_brotli_static_module.so;"
	mport, nport := startBothMain(t, t.TempDir(), main, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; access_log off;
			location /on/ { alias %[2]s/; brotli_static on; }
			location /onvary/ { alias %[2]s/; brotli_static on; add_header Vary *; }
			location /onvarygz/ { alias %[2]s/; brotli_static on; gzip_vary on; add_header Vary *; }
			location /ongzip/ { alias %[2]s/; brotli_static on; gzip_static on; gzip_vary on; }
			location /always/ { alias %[2]s/; brotli_static always; } }`, port, root)
	})
	for _, path := range []string{"/on/a.txt", "/onvary/a.txt", "/ongzip/a.txt", "/onvarygz/a.txt", "/always/a.txt"} {
		for _, ae := range []string{"", "identity", "gzip", "br"} {
			req := "GET " + path + " HTTP/1.1\r\nHost: a.test\r\n"
			if ae != "" {
				req += "Accept-Encoding: " + ae + "\r\n"
			}
			req += "Connection: close\r\n\r\n"
			m := answerFields(t, sendUntilClosed(t, mport, req), "Vary", "Content-Encoding")
			n := answerFields(t, sendUntilClosed(t, nport, req), "Vary", "Content-Encoding")
			if m != n {
				t.Errorf("%s, Accept-Encoding %q:\nmosaic %s\nNGINX  %s", path, ae, m, n)
			}
		}
	}
}
