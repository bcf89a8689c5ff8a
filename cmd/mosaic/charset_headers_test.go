package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
)

// charset applies to every response of a server that also has add_header
// (whose filter records the status before the core's final header), to
// files found by try_files and to the error pages, as in NGINX:
// Laravel's server block has all three.
func TestCharsetWithAddHeader(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.html"), "hi\n")
	port := freePort(t)
	startMosaic(t, dir, `http { access_log off; include mime.types;
		server { listen 127.0.0.1:{port}; root `+dir+`; charset utf-8; add_header X-Frame-Options SAMEORIGIN;
			location / { try_files $uri $uri/ =404; } } }`, port)
	for path, want := range map[string]struct {
		status int
		ctype  string
	}{
		"/a.html":   {200, "text/html; charset=utf-8"},
		"/missing":  {404, "text/html; charset=utf-8"},
		"/.hidden/": {404, "text/html; charset=utf-8"},
	} {
		resp, _ := httpGet(t, fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
		if resp.StatusCode != want.status || resp.Header.Get("Content-Type") != want.ctype || resp.Header.Get("X-Frame-Options") == "" && resp.StatusCode == http.StatusOK {
			t.Errorf("%s: %d %q, want %d %q", path, resp.StatusCode, resp.Header.Get("Content-Type"), want.status, want.ctype)
		}
	}
}
