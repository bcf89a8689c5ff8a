package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAutoindexLocaltimeMatchesNGINX: with TZ set in both servers'
// environment, autoindex_localtime on writes the HTML listing's times in
// that zone (2021-03-04 05:06 UTC is 10:36 in Kolkata), byte for byte as
// Debian's NGINX does; the XML and JSON listings, which NGINX writes in
// UTC whatever the setting, stay in UTC.
func TestAutoindexLocaltimeMatchesNGINX(t *testing.T) {
	nginxPath(t)
	if _, err := os.Stat("/usr/share/zoneinfo/Asia/Kolkata"); err != nil {
		t.Skip("no time zone database")
	}
	t.Setenv("TZ", "Asia/Kolkata") // both processes inherit it
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	autoindexTree(t, tree)
	block := func(listen string) string {
		return fmt.Sprintf(`server {
			%[1]s
			autoindex_localtime on;
			location /h/ { alias %[2]s/; autoindex on; }
			location /a/ { alias %[2]s/; autoindex on; autoindex_exact_size off; }
			location /x/ { alias %[2]s/; autoindex on; autoindex_format xml; }
			location /j/ { alias %[2]s/; autoindex on; autoindex_format json; }
			location /u/ { alias %[2]s/; autoindex on; autoindex_localtime off; }
		}`, listen, tree)
	}
	nport, mport := freePort(t), freePort(t)
	ndir := filepath.Join(dir, "nginx")
	if err := os.MkdirAll(ndir, 0o755); err != nil {
		t.Fatal(err)
	}
	startNGINX(t, ndir, block(fmt.Sprintf("listen 127.0.0.1:%d;", nport)), nport)
	startMosaic(t, dir, "http {"+block("listen 127.0.0.1:{port};")+"}", mport)
	get := func(port int, path string) string {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
		return string(b)
	}
	for _, path := range []string{"/h/", "/h/dir1/", "/a/", "/x/", "/j/", "/u/"} {
		nb, mb := get(nport, path), get(mport, path)
		if nb != mb {
			t.Errorf("%s: mosaic's body differs from NGINX's:\n%s\nNGINX:\n%s", path, mb, nb)
		}
		local := strings.Contains(mb, "04-Mar-2021 10:36")
		if want := path != "/x/" && path != "/j/" && path != "/u/"; local != want {
			t.Errorf("%s: Kolkata's time in the listing %v, want %v:\n%s", path, local, want, mb)
		}
	}
}
