package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// An absolute last index name, with variables (Nextcloud's
// "index index.php index.html /index.php$request_uri"), is where a
// directory request goes when none of the other names exists, by an
// internal redirect that keeps the request's arguments, as in NGINX (compared with
// Debian's when present).
func TestIndexAbsoluteLast(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "sub", "index.html"), "sub index\n")
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	site := func(listen string) string {
		return fmt.Sprintf(`access_log off;
			server { listen %s; root %s; index index.html /fb$request_uri;
				location / { }
				location /fb { return 200 "fb uri=$uri args=$args\n"; } }`, listen, dir)
	}
	cases := []struct{ path, want string }{
		{"/sub/", "200 sub index\n"},
		{"/empty/", "200 fb uri=/fb/empty/ args=\n"},
		// The name is the URI as it is, "?" included ($request_uri), and
		// the request keeps its arguments.
		{"/empty/?a=1", "200 fb uri=/fb/empty/?a=1 args=a=1\n"},
	}
	check := func(name string, port int) {
		for _, c := range cases {
			resp, body := httpGet(t, fmt.Sprintf("http://127.0.0.1:%d%s", port, c.path))
			if got := fmt.Sprintf("%d %s", resp.StatusCode, body); got != c.want {
				t.Errorf("%s %s: %q, want %q", name, c.path, got, c.want)
			}
		}
	}
	port := freePort(t)
	startMosaic(t, t.TempDir(), "http { "+site("127.0.0.1:{port}")+" }", port)
	check("mosaic", port)
	if _, err := os.Stat("/usr/sbin/nginx"); err != nil {
		return
	}
	nport := freePort(t)
	startNGINX(t, t.TempDir(), site(fmt.Sprintf("127.0.0.1:%d", nport)), nport)
	check("nginx", nport)
}
