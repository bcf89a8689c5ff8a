package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// The $upstream_* values of a request that more than one location
// proxies, in the access log, as NGINX's, which keeps one list of tries
// per request and puts " : " between the locations: an X-Accel-Redirect
// to a proxied location (both tries) and to a static file (the first
// alone), a post action's location (its own access_log, without
// $upstream_response_length: NGINX's post action reads no body, 0 where
// mosaic counts it), three locations chained by error_page, GET and
// HEAD, and an error_page to a cache's HIT, which adds no try.
func TestUpstreamVarsJoinedAcrossLocationsAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "s.txt"), "static\n")
	accel := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/accelp":
			w.Header().Set("X-Accel-Redirect", "/inner/x")
		case "/accels":
			w.Header().Set("X-Accel-Redirect", "/s.txt")
		}
		io.WriteString(w, "a\n")
	}))
	t.Cleanup(accel.Close)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=100")
		io.WriteString(w, "b\n")
	}))
	t.Cleanup(origin.Close)
	closed := refusedPort(t) // a server that refuses
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`log_format up "$request_method $uri|$status|$upstream_addr|$upstream_status|$upstream_response_length|$upstream_cache_status";
			log_format post "$request_method $uri|$status|$upstream_addr|$upstream_status";
			proxy_cache_path %[3]s/%[4]s/cache keys_zone=z_%[1]s:1m;
			server { listen 127.0.0.1:%[2]d; root %[3]s/www; access_log %[3]s/%[4]s/access.log up;
			recursive_error_pages on;
			location /accel { proxy_pass http://%[5]s; }
			location /inner { proxy_pass http://%[6]s; }
			location /pa { proxy_pass http://%[6]s; post_action /papost; }
			location /papost { proxy_pass http://%[5]s; access_log %[3]s/%[4]s/access.log post; }
			location /e1 { proxy_pass http://127.0.0.1:%[7]d; error_page 502 = /e2; }
			location /e2 { proxy_pass http://127.0.0.1:%[7]d; error_page 502 = /e3; }
			location /e3 { proxy_pass http://%[6]s; }
			location /ec { proxy_pass http://127.0.0.1:%[7]d; error_page 502 = /cached; }
			location /cached { proxy_pass http://%[6]s; proxy_cache z_%[1]s; proxy_cache_valid 200 1m; } }`,
			who, port, dir, map[string]string{"m": "mosaic", "n": "nginx"}[who],
			strings.TrimPrefix(accel.URL, "http://"), strings.TrimPrefix(origin.URL, "http://"), closed)
	})
	reqs := [][2]string{{"GET", "/accelp"}, {"GET", "/accels"}, {"GET", "/pa"}, {"GET", "/e1"},
		{"HEAD", "/e1"}, {"GET", "/cached"}, {"GET", "/ec"}}
	for _, rq := range reqs {
		var got [2]string
		for i, port := range []int{mport, nport} {
			req, _ := http.NewRequest(rq[0], fmt.Sprintf("http://127.0.0.1:%d%s", port, rq[1]), nil)
			resp, body := doRequest(t, req)
			got[i] = fmt.Sprintf("%d %q", resp.StatusCode, body)
		}
		if got[0] != got[1] {
			t.Errorf("%s %s: mosaic %s, nginx %s", rq[0], rq[1], got[0], got[1])
		}
	}
	n := refusedLines(t, filepath.Join(dir, "nginx", "access.log"), len(reqs))
	if len(n) != len(reqs) || !strings.Contains(n[0], " : ") || !strings.Contains(n[2], " : ") {
		t.Fatalf("NGINX's log is not as expected: %q", n)
	}
	sameAccessLogs(t, dir, len(reqs))
}
