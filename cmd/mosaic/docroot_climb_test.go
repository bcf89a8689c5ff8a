package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/fcgi"
	"strings"
	"sync/atomic"
	"testing"
)

// TestDocumentRootClimbEmpty (audit7): where a root's or alias's
// variables climb with ".." (root .../$arg_d, d=www/../outside),
// $document_root, $realpath_root and $request_filename are empty, as the
// files there are missing to the static handler and try_files
// (TestVariableRootClimbRefused): a FastCGI SCRIPT_FILENAME built from
// them named a script in another tree. NGINX gives the value as written
// (checked beside it); a root that does not climb gives what NGINX gives.
func TestDocumentRootClimbEmpty(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	for _, who := range []string{"n", "m"} {
		writeFile(t, fmt.Sprintf("%s/%s/www/r/x.txt", dir, who), "www")
		writeFile(t, fmt.Sprintf("%s/%s/outside/r/x.txt", dir, who), "outside")
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			location /r/ { root %s/%s/$arg_d;
				if ($arg_show) { return 200 "[$document_root][$realpath_root][$request_filename]"; } }
			location /a/ { alias %[2]s/%[3]s/$arg_d/r/;
				if ($arg_show) { return 200 "[$document_root][$request_filename]"; } } }`, port, dir, who)
	})
	get := func(port int, path string) string {
		status, body := getBody(t, fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
		return fmt.Sprintf("%d %s", status, body)
	}
	// nginx: what NGINX answers where it differs ("" where it gives what
	// mosaic gives).
	for _, c := range []struct{ path, mosaic, nginx string }{
		{"/r/x.txt?d=www&show=1", "200 [{dir}/www][{dir}/www][{dir}/www/r/x.txt]", ""},
		{"/a/x.txt?d=www&show=1", "200 [{dir}/www/r/][{dir}/www/r/x.txt]", ""},
		{"/r/x.txt?d=www/../outside&show=1", "200 [][][]", "200 [{dir}/www/../outside][{dir}/outside][{dir}/www/../outside/r/x.txt]"},
		{"/a/x.txt?d=www/../outside&show=1", "200 [][]", "200 [{dir}/www/../outside/r/][{dir}/www/../outside/r/x.txt]"},
		{"/r/x.txt?d=../m/outside&show=1", "200 [][][]", "200 [{dir}/../m/outside]["},
		{"/r/x.txt?d=www/../outside", "404", "200 outside"},
	} {
		if m, want := get(mport, c.path), strings.ReplaceAll(c.mosaic, "{dir}", dir+"/m"); !strings.HasPrefix(m, want) {
			t.Errorf("%s: mosaic %q, want %q", c.path, m, want)
		}
		nwant := c.nginx
		if nwant == "" {
			nwant = c.mosaic
		}
		if n, want := get(nport, c.path), strings.ReplaceAll(nwant, "{dir}", dir+"/n"); !strings.HasPrefix(n, want) {
			t.Errorf("%s: NGINX %q, want %q", c.path, n, want)
		}
	}
}

// TestGatewayRootClimbRefused: where a root's variables climb, a FastCGI
// location answers 404 as the static handler does and the application
// is never asked. An empty $document_root alone was no bound: SCRIPT_FILENAME
// "$document_root$fastcgi_script_name" became the URI itself, a script
// anywhere on the disk (/tmp/up.php?d=www/..). A root that does not
// climb is passed as NGINX passes it.
func TestGatewayRootClimbRefused(t *testing.T) {
	dir := t.TempDir()
	var asked atomic.Int32
	addr := fcgiServe(t, func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		io.WriteString(w, fcgi.ProcessEnv(r)["SCRIPT_FILENAME"])
	})
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http { server { listen 127.0.0.1:{port}; root %s/$arg_d;
		location ~ \.php$ { fastcgi_pass %s;
			fastcgi_param REQUEST_METHOD $request_method;
			fastcgi_param SERVER_PROTOCOL $server_protocol;
			fastcgi_param REQUEST_URI $request_uri;
			fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name; } } }`, dir, addr), port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	if status, body := getBody(t, base+"/x.php?d=www"); status != 200 || body != dir+"/www/x.php" {
		t.Errorf("unclimbed root: %d %q, want 200 %q", status, body, dir+"/www/x.php")
	}
	for _, path := range []string{"/tmp/up.php?d=www/..", "/x.php?d=../www"} {
		before := asked.Load()
		if status, body := getBody(t, base+path); status != 404 || asked.Load() != before {
			t.Errorf("%s: %d %q, the application asked %d times; want 404 and none", path, status, body, asked.Load()-before)
		}
	}
}
