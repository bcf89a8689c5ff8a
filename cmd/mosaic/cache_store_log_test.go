package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A store that fails is reported once a second per zone, however many
// locations use the zone: each location has a cache handler of its own,
// and each used to keep its own limit, so one outage wrote a line per
// location.
func TestCacheStoreFailedLoggedOnce(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, "origin")
	}))
	defer origin.Close()
	dir := t.TempDir()
	port, redisPort := freePort(t), freePort(t) // nobody answers on redisPort
	p := startMosaic(t, dir, fmt.Sprintf(`error_log stderr info;
		http {
			proxy_cache_path redis://127.0.0.1:%d/0 keys_zone=down:1m;
			server { listen 127.0.0.1:{port}; proxy_cache down;
				location /a/ { proxy_pass %[2]s; }
				location /b/ { proxy_pass %[2]s; } } }`, redisPort, origin.URL), port)
	for _, path := range []string{"/a/x", "/b/x"} {
		if resp, body := httpGet(t, fmt.Sprintf("http://127.0.0.1:%d%s", port, path)); resp.StatusCode != 200 || body != "origin" {
			t.Fatalf("%s: %d %q: the request must go on without the cache", path, resp.StatusCode, body)
		}
	}
	waitOutput(t, p, "cache store failed")
	time.Sleep(200 * time.Millisecond) // a second line would be written by now
	if n := strings.Count(p.out.String(), "cache store failed"); n != 1 {
		t.Errorf("%d \"cache store failed\" lines within a second, want 1:\n%s", n, p.out.String())
	}
}
