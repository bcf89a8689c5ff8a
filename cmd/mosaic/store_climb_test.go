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

// TestStorePathClimbRefused (audit6): proxy_store (and the gateways'
// *_store) never writes where a client's variable climbs with "..":
// "proxy_store DIR/store/$arg_f" with f=../pwned wrote DIR/pwned, and
// "proxy_store on" under "root DIR/$arg_d" with d=www/../other wrote
// into another tree; NGINX writes both. The answer still goes to the
// client; the store is refused with an error-log line. Under a relative
// root, $request_filename is made absolute, which folds the ".." away:
// the root's own value is what is checked.
func TestStorePathClimbRefused(t *testing.T) {
	t.Parallel()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "stored body")
	}))
	t.Cleanup(origin.Close)
	dir := t.TempDir()
	for _, d := range []string{"store", "www", "other"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http { server { listen 127.0.0.1:{port};
		location /st/ { proxy_store %[1]s/store/$arg_f; proxy_pass %[2]s; }
		location /on/ { root %[1]s/$arg_d; proxy_store on; proxy_pass %[2]s; }
		location /rel/ { root $arg_d; proxy_store on; proxy_pass %[2]s; }
	} }`, dir, origin.URL), port)
	for _, c := range []struct {
		path, file string
		stored     bool
	}{
		{"/st/a?f=ok", "store/ok", true},
		{"/st/a?f=../pwned", "pwned", false},
		{"/st/a?f=sub/../../pwned2", "pwned2", false},
		{"/on/b?d=www", "www/on/b", true},
		{"/on/b?d=www/../other", "other/on/b", false},
		{"/rel/b?d=www", "www/rel/b", true},
		{"/rel/c?d=www/../other", "other/rel/c", false},
	} {
		resp, body := httpGet(t, fmt.Sprintf("http://127.0.0.1:%d%s", port, c.path))
		if resp.StatusCode != http.StatusOK || body != "stored body" {
			t.Errorf("%s: %d %q", c.path, resp.StatusCode, body)
		}
		// The store is written after the response: wait a little for it.
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
