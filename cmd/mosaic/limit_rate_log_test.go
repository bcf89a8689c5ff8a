package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// limitRateLogs runs mosaic and NGINX (limitBoth) with server, given the
// listen line and the root, logging '$request_method $uri $status
// $limit_rate'; each "METHOD /path" of requests is sent to both, and
// each server's log lines come back joined by " | ".
func limitRateLogs(t *testing.T, server func(listen, root string) string, requests []string) map[string]string {
	t.Helper()
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
			%s`, logs[name], server(listen, root))
	})
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
	return results
}

// wantLogs checks mosaic's log against want, and NGINX's (where it ran)
// against mosaic's.
func wantLogs(t *testing.T, results map[string]string, want string) {
	t.Helper()
	if results["mosaic"] != want {
		t.Errorf("mosaic:\n got  %s\n want %s", results["mosaic"], want)
	}
	if got, ok := results["nginx"]; ok && got != results["mosaic"] {
		t.Errorf("mosaic %s\nNGINX  %s", results["mosaic"], got)
	}
}

// TestLimitRateLoggedWithoutBodyMatchesNGINX: $limit_rate in the access
// log shows the location's limit_rate for a response without a body (a
// HEAD, a 204) too: NGINX's write filter settles the rate when it sends
// the header. After an internal redirect, the rate is the target
// location's (none here), as in NGINX.
func TestLimitRateLoggedWithoutBodyMatchesNGINX(t *testing.T) {
	results := limitRateLogs(t, func(listen, root string) string {
		return fmt.Sprintf(`server {
				%s
				root %s;
				location /a/ { limit_rate 1k; alias %[2]s/; }
				location /e { limit_rate 3k; return 204; }
				location /t { limit_rate 9k; try_files /none @n; }
				location @n { return 204; }
			}`, listen, root)
	}, []string{"GET /a/f", "HEAD /a/f", "GET /e", "HEAD /t"})
	wantLogs(t, results, "GET /a/f 200 1024 | HEAD /a/f 200 1024 | GET /e 204 3072 | HEAD /t 204 0")
}

// TestLimitRateLoggedUnbufferedAsNGINX: an answer relayed unbuffered
// sets the request's rate to 0 (ngx_http_upstream_send_response), so
// $limit_rate logs 0 for it, whatever limit_rate, "set $limit_rate" or
// X-Accel-Limit-Rate said; a buffered answer logs the rate in force. A
// HEAD, header-only, is finalized before the rate is cleared: it logs
// the location's rate. A relayed 204 is not header-only to NGINX (its
// header filter tests the status only without the upstream's status
// line): it logs 0.
func TestLimitRateLoggedUnbufferedAsNGINX(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/accel" {
			w.Header().Set("X-Accel-Limit-Rate", "5000")
			w.Header().Set("X-Accel-Buffering", "no")
		}
		if r.URL.Path == "/off204" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		io.WriteString(w, "body")
	}))
	t.Cleanup(origin.Close)
	addr := strings.TrimPrefix(origin.URL, "http://")
	results := limitRateLogs(t, func(listen, _ string) string {
		return fmt.Sprintf(`server {
				%s
				location /buf { limit_rate 1k; proxy_pass http://%[2]s; }
				location /off { limit_rate 2k; proxy_buffering off; proxy_pass http://%[2]s; }
				location /set { set $limit_rate 3k; proxy_buffering off; proxy_pass http://%[2]s; }
				location /accel { proxy_pass http://%[2]s; }
			}`, listen, addr)
	}, []string{"GET /buf", "GET /off", "GET /set", "GET /accel", "HEAD /off", "GET /off204"})
	wantLogs(t, results, "GET /buf 200 1024 | GET /off 200 0 | GET /set 200 0 | GET /accel 200 0 | HEAD /off 200 2048 | GET /off204 204 0")
}
