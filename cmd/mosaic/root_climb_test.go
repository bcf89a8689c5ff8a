package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
)

// TestVariableRootClimbRefused (audit6): a root or alias built from a
// variable a client sets ($arg_*, $http_*) cannot climb out of the
// directory written before it. "alias DIR/pub/$arg_f" with
// f=../secret.txt served DIR/secret.txt, and with f=../../../etc/passwd
// any file mosaic may read, as NGINX does (it evaluates the alias and
// opens what it names); a request path with a ".." segment is already
// refused (404), and now so is the part of a root or alias that its
// variables gave, on the static handler and in try_files alike. A ".."
// the configuration writes before the first variable (a relative root
// "../site/$arg_d") is followed; a "." written and a "./" given make a
// ".." segment together.
func TestVariableRootClimbRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "pub/x.txt"), "pub")
	writeFile(t, filepath.Join(dir, "pub/sub/y.txt"), "sub")
	writeFile(t, filepath.Join(dir, "secret.txt"), "secret")
	writeFile(t, filepath.Join(dir, "www/r/x.txt"), "www")
	writeFile(t, filepath.Join(dir, "outside/r/x.txt"), "outside")
	writeFile(t, filepath.Join(dir, "www/ok/lit/x.txt"), "lit")
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http { server { listen 127.0.0.1:{port};
		location /dl { alias %[1]s/pub/$arg_f; }
		location /r/ { root %[1]s/$arg_d; }
		location ~ ^/rx/ { alias %[1]s/pub/$arg_f; }
		location /tf/ { alias %[1]s/pub/$arg_f/; try_files $uri =404; }
		location /lit/ { root ../%[2]s/www/$arg_d; }
		location /dot/ { alias %[1]s/pub/.$arg_d; }
	} }`, dir, filepath.Base(dir)), port)
	for _, c := range []struct {
		path string
		want int
	}{
		{"/dl?f=x.txt", 200},
		{"/dl?f=sub/y.txt", 200},
		{"/dl?f=../secret.txt", 404},
		{"/dl?f=sub/../../secret.txt", 404},
		{"/dl?f=../../../../../../etc/passwd", 404},
		{"/r/x.txt?d=www", 200},
		{"/r/x.txt?d=www/../outside", 404},
		{"/r/x.txt?d=../" + filepath.Base(dir) + "/outside", 404},
		{"/rx/a?f=x.txt", 200},
		{"/rx/a?f=../secret.txt", 404},
		{"/tf/y.txt?f=sub", 200},
		{"/tf/secret.txt?f=..", 404},
		{"/lit/x.txt?d=ok", 200},
		{"/lit/x.txt?d=../..", 404},
		{"/dot/x.txt?d=/", 200},
		{"/dot/secret.txt?d=./", 404},
	} {
		resp, body := httpGet(t, fmt.Sprintf("http://127.0.0.1:%d%s", port, c.path))
		if resp.StatusCode != c.want {
			t.Errorf("%s: %d %q, want %d", c.path, resp.StatusCode, body, c.want)
		}
		if c.want != http.StatusOK && (body == "secret" || body == "outside") {
			t.Errorf("%s: served %q", c.path, body)
		}
	}
}
