package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestVariableRootLiteralDotDot (review of audit6): a ".." that the
// configuration itself writes before the first variable ("root
// ../site/$arg_d", a relative root) is the administrator's, not a
// client's, and is followed as before; only a ".." that a variable's
// value brings is refused.
func TestVariableRootLiteralDotDot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/ok/lit/x.txt"), "lit")
	writeFile(t, filepath.Join(dir, "secret.txt"), "secret")
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http { server { listen 127.0.0.1:{port};
		location /lit/ { root ../%[1]s/www/$arg_d; }
		location /dot/ { alias %[2]s/www/ok/lit/.$arg_d; }
	} }`, filepath.Base(dir), dir), port)
	for _, c := range []struct {
		path string
		want int
	}{
		{"/lit/x.txt?d=ok", 200},
		{"/lit/x.txt?d=../..", 404},
		// "." written, "./" from the client: together a ".." segment.
		{"/dot/x.txt?d=/", 200},
		{"/dot/secret.txt?d=./../../..", 404},
	} {
		resp, body := httpGet(t, fmt.Sprintf("http://127.0.0.1:%d%s", port, c.path))
		if resp.StatusCode != c.want {
			t.Errorf("%s: %d %q, want %d", c.path, resp.StatusCode, body, c.want)
		}
	}
}

// TestStoreRelativeRootClimbRefused (review of audit6): "proxy_store on"
// under a relative root with variables: $request_filename is made
// absolute, which folds the ".." away, so the check looks at the root's
// value itself.
func TestStoreRelativeRootClimbRefused(t *testing.T) {
	t.Parallel()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "stored body")
	}))
	t.Cleanup(origin.Close)
	dir := t.TempDir()
	for _, d := range []string{"www", "other"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http { server { listen 127.0.0.1:{port};
		location /rel/ { root $arg_d; proxy_store on; proxy_pass %s; }
	} }`, origin.URL), port)
	for _, c := range []struct {
		path, file string
		stored     bool
	}{
		{"/rel/b?d=www", "www/rel/b", true},
		{"/rel/c?d=www/../other", "other/rel/c", false},
	} {
		resp, body := httpGet(t, fmt.Sprintf("http://127.0.0.1:%d%s", port, c.path))
		if resp.StatusCode != http.StatusOK || body != "stored body" {
			t.Errorf("%s: %d %q", c.path, resp.StatusCode, body)
		}
		var err error
		for range 50 {
			if _, err = os.Stat(filepath.Join(dir, c.file)); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if stored := err == nil; stored != c.stored {
			t.Errorf("%s: %s stored %v, want %v", c.path, c.file, stored, c.stored)
		}
	}
}
