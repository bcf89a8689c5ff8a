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

// With open_log_file_cache, the file of a log named with variables stays
// open between lines: a rotation that renames it goes on receiving lines
// until valid says to look at the name again, as with NGINX.
func TestOpenLogFileCacheAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		d := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who])
		return fmt.Sprintf(`log_format s '$host $arg_n';
			open_log_file_cache max=10 inactive=1m valid=1m;
			server { listen 127.0.0.1:%d; root %s;
				location / { access_log %[2]s/$host.log s; return 204; }
			}`, port, d)
	})
	for who, port := range map[string]int{"mosaic": mport, "nginx": nport} {
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		send := func(n int) {
			testclient.Raw(t, addr, fmt.Sprintf("GET /?n=%d HTTP/1.1\r\nHost: one.test\r\nConnection: close\r\n\r\n", n))
		}
		log := filepath.Join(dir, who, "one.test.log")
		read := func(path string, lines int) string {
			var b []byte
			for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
				if b, _ = os.ReadFile(path); strings.Count(string(b), "\n") >= lines {
					break
				}
			}
			return string(b)
		}
		send(1)
		send(2)
		read(log, 2)
		if err := os.Rename(log, log+".1"); err != nil {
			t.Fatal(err)
		}
		send(3)
		if got := read(log+".1", 3); got != "one.test 1\none.test 2\none.test 3\n" {
			t.Errorf("%s: the renamed file has %q", who, got)
		}
		if _, err := os.Stat(log); err == nil {
			t.Errorf("%s: a new file was made within valid", who)
		}
	}
}
