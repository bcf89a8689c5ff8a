package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestRegexAliasTryFilesLogged: a file that try_files finds below a regex
// location's alias (the alias and the candidate joined) is logged, with
// that join as $request_filename, as NGINX logs it: the mark try_files
// leaves on the request must not hide the location from access_log.
func TestRegexAliasTryFilesLogged(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/d/r/d"), "found")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`log_format f "$status $uri $request_filename";
			server { listen 127.0.0.1:%d; access_log %[2]s/%[3]s.log f;
			location ~ ^/r/(.*)$ { alias %[2]s/www/$1; try_files $uri =404; }
		}`, port, dir, who)
	})
	for _, port := range []int{mport, nport} {
		res, body := testclient.Do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d/r/d", port))
		if res.StatusCode != 200 || body != "found" {
			t.Fatalf("port %d: %d %q, want the file", port, res.StatusCode, body)
		}
	}
	ml, nl := waitLog(t, filepath.Join(dir, "m.log"), 1)[0], waitLog(t, filepath.Join(dir, "n.log"), 1)[0]
	if want := fmt.Sprintf("200 /r/d %s/www/d/r/d", dir); ml != nl || nl != want {
		t.Errorf("logged: mosaic %q, NGINX %q, want %q", ml, nl, want)
	}
}
