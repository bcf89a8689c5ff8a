package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestAccessLogVariablePathAsNGINX: a path with variables names a file
// for each line ("access_log logs/$host.log"), opened when the line is
// written, as NGINX does; mosaic opened one file named "$host.log". A name
// that climbs out of the directory with a client's "..", which NGINX
// opens, is refused.
func TestAccessLogVariablePathAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		d := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who])
		return fmt.Sprintf(`log_format s '$host $status';
			server { listen 127.0.0.1:%d; root %s;
				location / { access_log %[2]s/$host.log s; return 204; }
				location /f { access_log %[2]s/logs/$arg_f.log s; return 204; }
			}`, port, d)
	})
	// waitFile waits for a whole line in the file at path: a server
	// writes it after the response, and may have created the file
	// before it writes.
	waitFile := func(path string) string {
		got := "(none)"
		for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if b, err := os.ReadFile(path); err == nil {
				if got = string(b); strings.HasSuffix(got, "\n") {
					break
				}
			}
		}
		return got
	}
	for who, port := range map[string]int{"mosaic": mport, "nginx": nport} {
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		testclient.Raw(t, addr, "GET / HTTP/1.1\r\nHost: one.test\r\nConnection: close\r\n\r\n")
		testclient.Raw(t, addr, "GET / HTTP/1.1\r\nHost: two.test\r\nConnection: close\r\n\r\n")
		for host, want := range map[string]string{"one.test": "one.test 204\n", "two.test": "two.test 204\n"} {
			if got := waitFile(filepath.Join(dir, who, host+".log")); got != want {
				t.Errorf("%s: %s.log %q, want %q", who, host, got, want)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "mosaic", "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", mport)
	testclient.Raw(t, addr, "GET /f?f=../esc HTTP/1.1\r\nHost: one.test\r\nConnection: close\r\n\r\n")
	testclient.Raw(t, addr, "GET /f?f=ok HTTP/1.1\r\nHost: one.test\r\nConnection: close\r\n\r\n")
	if got := waitFile(filepath.Join(dir, "mosaic", "logs", "ok.log")); got != "one.test 204\n" {
		t.Errorf("logs/ok.log %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "mosaic", "esc.log")); err == nil {
		t.Error(`a client's ".." put a log file outside the log's directory`)
	}
}
