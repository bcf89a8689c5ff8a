package main

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestCacheValidWholeSecondsAsNGINX: NGINX counts an entry's validity in
// whole seconds (valid_sec = ngx_time() + N, stale once valid_sec <
// ngx_time()), so proxy_cache_valid 1s and X-Accel-Expires: 1 keep an
// entry through the second after the one it was stored in: a request
// 1.5 s after a fill made early in a second is a HIT, one in the second
// after that is EXPIRED. mosaic kept the entry exactly 1 s: EXPIRED at
// 1.5 s. Each step is timed inside its second; one that the machine's
// load pushed into another second makes the test skip.
func TestCacheValidWholeSecondsAsNGINX(t *testing.T) {
	nginxPath(t)
	o := newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/accel" {
			w.Header().Set("X-Accel-Expires", "1")
		}
		fmt.Fprintf(w, "v%d", n)
	})
	mport, nport := startCacheBoth(t, o, `
		location /valid { proxy_pass http://{origin}; proxy_cache_valid 1s; }
		location /accel { proxy_pass http://{origin}; }`)
	// S is the second of the fills, 100 ms into it.
	s := time.Now().Truncate(time.Second).Add(time.Second)
	step := func(at time.Duration, want string) {
		t.Helper()
		time.Sleep(time.Until(s.Add(at)))
		second := time.Now().Truncate(time.Second)
		for _, path := range []string{"/valid", "/accel"} {
			var got [2]string
			for i, port := range []int{mport, nport} {
				r := cacheDo(t, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
				got[i] = fmt.Sprintf("%s/%s", r.cacheStatus(), r.body)
			}
			if end := time.Now().Truncate(time.Second); !end.Equal(second) {
				t.Skipf("at S+%v: the requests ran into the next second (load): cannot tell", at)
			}
			if got[0] != want || got[1] != want {
				t.Errorf("GET %s at S+%v: mosaic %s, nginx %s, want %s", path, at, got[0], got[1], want)
			}
		}
	}
	step(100*time.Millisecond, "MISS/v1")
	step(1500*time.Millisecond, "HIT/v1")
	step(2300*time.Millisecond, "EXPIRED/v2")
}
