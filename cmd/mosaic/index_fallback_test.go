package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
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

// An absolute index name that comes before any relative one ("index
// /app.txt;") redirects a directory request to it without a look at the
// directory, which need not be on disk, as NGINX's index module does; a
// relative name before it makes the directory's absence a 404. One
// that is not the last name loads with NGINX's warning and ends the list
// where it stands: the names after it, on its line or on the next index
// line, are never tried (mosaic refused such a file until ldiff28).
func TestIndexAbsoluteOnlyNeedsNoDirectoryLikeNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/app.txt"), "front controller")
	writeFile(t, filepath.Join(dir, "www/file.txt"), "a file")
	// index.html is not tried when the index directive does not name it.
	writeFile(t, filepath.Join(dir, "www/sub/index.html"), "sub index")
	writeFile(t, filepath.Join(dir, "www/early/index.html"), "early index")
	writeFile(t, filepath.Join(dir, "www/early/first/none.html"), "early none")
	if err := os.MkdirAll(filepath.Join(dir, "www/mixed/empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	mport, nport := startBoth(t, dir, func(_ string, port int) string {
		return fmt.Sprintf(`types { text/plain txt; }
		server {
			listen 127.0.0.1:%d; root %s/www;
			location / { index /app.txt; }
			location /mixed/ { index index.html /app.txt; }
			location /early/ { index none.html /app.txt index.html; index sub.html; }
			location = /app.txt { return 200 "app uri=$uri args=$args request_uri=$request_uri"; }
		}`, port, dir)
	})
	for _, path := range []string{"/not/on/disk/", "/not/on/disk/?a=1", "/", "/sub/", "/file.txt/", "/mixed/empty/", "/mixed/missing/",
		"/early/", "/early/first/", "/early/missing/"} {
		raw := "GET " + path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), raw)
		n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), raw)
		if m.StatusCode != n.StatusCode || (n.StatusCode == 200 && mb != nb) {
			t.Errorf("GET %s: mosaic %d %q, NGINX %d %q", path, m.StatusCode, trimBody(mb), n.StatusCode, trimBody(nb))
		}
	}
}

// TestIndexArgumentsAsNGINX: "mosaic -t" and "nginx -t" agree on index
// lines: an empty name is refused wherever it stands (ldiff28: mosaic
// loaded it), an absolute name before the last is loaded with a warning.
func TestIndexArgumentsAsNGINX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, conf := range []string{
		`server { location / { index ""; } }`,
		`server { location / { index a.html ""; } }`,
		`server { location / { index /a.html ""; } }`,
		`server { location / { index /a.html b.html; index c$uri; } }`,
		`server { location / { index a.html /b.html; index /c.html; } }`,
		`server { location / { index /a.html b$nonesuch; } }`,
	} {
		mout, merr, emerg := testBoth(t, dir, i, conf)
		if (merr == nil) != (emerg == "") {
			t.Errorf("%s: nginx says %q, mosaic %v: %s", conf, emerg, merr, mout)
		}
	}
}
