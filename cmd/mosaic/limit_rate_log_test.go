package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLimitRateLoggedWithoutBodyMatchesNGINX: $limit_rate in the access
// log shows the location's limit_rate for a response without a body (a
// HEAD, a 204) too: NGINX's write filter settles the rate when it sends
// the header. After an internal redirect, the rate is the target
// location's (none here), as in NGINX.
func TestLimitRateLoggedWithoutBodyMatchesNGINX(t *testing.T) {
	dir := t.TempDir()
	logs := map[string]string{}
	n := 0
	bases := limitBoth(t, map[string]string{"f": "ffff"}, func(listen, root string) string {
		n++
		name := "mosaic" // limitBoth starts mosaic first, then NGINX
		if n == 2 {
			name = "nginx"
		}
		logs[name] = filepath.Join(dir, name+".log")
		return fmt.Sprintf(`log_format s '$request_method $uri $status $limit_rate';
			access_log %s s;
			server {
				%s
				root %s;
				location /a/ { limit_rate 1k; alias %[3]s/; }
				location /e { limit_rate 3k; return 204; }
				location /t { limit_rate 9k; try_files /none @n; }
				location @n { return 204; }
			}`, logs[name], listen, root)
	})
	requests := []string{"GET /a/f", "HEAD /a/f", "GET /e", "HEAD /t"}
	results := map[string]string{}
	for name, base := range bases {
		for _, m := range requests {
			method, path, _ := strings.Cut(m, " ")
			req, _ := http.NewRequest(method, base+path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		var log []byte
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if log, _ = os.ReadFile(logs[name]); strings.Count(string(log), "\n") >= len(requests) {
				break
			}
		}
		results[name] = strings.ReplaceAll(strings.TrimSpace(string(log)), "\n", " | ")
	}
	want := "GET /a/f 200 1024 | HEAD /a/f 200 1024 | GET /e 204 3072 | HEAD /t 204 0"
	if results["mosaic"] != want {
		t.Errorf("mosaic:\n got  %s\n want %s", results["mosaic"], want)
	}
	if got, ok := results["nginx"]; ok && got != results["mosaic"] {
		t.Errorf("mosaic %s\nNGINX  %s", results["mosaic"], got)
	}
}
