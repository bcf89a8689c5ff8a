package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDavVariableRootClimbRefused (review of audit6): WebDAV takes the
// path FilePath gives; one that keeps a variable's ".." is refused, not
// cleaned into another name below the bound, and an alias without its
// trailing slash whose value ends in ".." does not become its parent.
func TestDavVariableRootClimbRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, d := range []string{"a/x/dr", "a/ok"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http { server { listen 127.0.0.1:{port};
		location /dav { alias %[1]s/a/$arg_d; dav_methods PUT; }
		location /dr/ { root %[1]s/a/$arg_d; dav_methods PUT; }
	} }`, dir), port)
	put := func(path string) int {
		req, err := http.NewRequest(http.MethodPut, fmt.Sprintf("http://127.0.0.1:%d%s", port, path), strings.NewReader("put"))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		path, file string
		stored     bool
	}{
		{"/dav/f?d=ok", "a/ok/f", true},
		{"/dav/f?d=..", "f", false},
		{"/dav/g?d=x/../..", "a/g", false},
		{"/dr/h?d=x", "a/x/dr/h", true},
		{"/dr/i?d=x/..", "a/x/dr/i", false},
	} {
		code := put(c.path)
		_, err := os.Stat(filepath.Join(dir, c.file))
		if stored := err == nil; stored != c.stored || stored != (code/100 == 2) {
			t.Errorf("PUT %s: %d, %s stored %v, want %v", c.path, code, c.file, stored, c.stored)
		}
	}
}
