package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// Redis faults under two mosaic instances sharing a zone: Redis restarted
// while lock waiters wait, and Redis paused (SIGSTOP) under load.

// redisProc is a redis-server the test restarts and pauses.
type redisProc struct {
	bin  string
	port int
	cmd  *exec.Cmd
}

// startRedisProc runs a redis-server without persistence on a free port,
// or skips the test when none is installed.
func startRedisProc(t *testing.T) *redisProc {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	r := &redisProc{bin: bin, port: freePort(t)}
	r.start(t)
	t.Cleanup(r.kill)
	return r
}

func (r *redisProc) addr() string { return "127.0.0.1:" + strconv.Itoa(r.port) }

func (r *redisProc) start(t *testing.T) {
	t.Helper()
	r.cmd = exec.Command(r.bin, "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--loglevel", "warning")
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", r.addr())
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not start: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// kill stops the server (paused or not) and waits for it.
func (r *redisProc) kill() {
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
}

// redisZoneConf is a site with a Redis zone, proxy_cache_lock on with
// proxy_cache_lock_timeout lockTimeout (whole seconds) and the status
// endpoint.
func redisZoneConf(redisAddr string, lockTimeout time.Duration) string {
	return `http {
    access_log off;
    proxy_cache_path redis://` + redisAddr + `/0 keys_zone=shared:16m;
    server {
        listen 127.0.0.1:{port};
        add_header X-Cache $upstream_cache_status always;
        location / {
            proxy_pass http://{origin};
            proxy_cache shared;
            proxy_cache_lock on;
            proxy_cache_lock_timeout ` + strconv.Itoa(int(lockTimeout/time.Second)) + `s;
        }
        location /uncached/ { proxy_pass http://{origin}; }
        location = /cache-status { proxy_cache_status; }
    }
}`
}

// TestCacheRedisRestartDoesNotHoldLockWaiters: Redis restarts empty; the
// instances' release subscriptions are down for a second, and the release
// of a fill that completes meanwhile is lost. The waiters on both
// instances must find the entry by looking again (at the resubscription,
// and every 200 ms), not wait out proxy_cache_lock_timeout. The timeout is
// 60 s and the bound 20 s, which only that wait reaches: a bound of 1.5 s
// under a timeout of 5 s was within reach of a loaded machine's scheduler.
func TestCacheRedisRestartDoesNotHoldLockWaiters(t *testing.T) {
	const lockTimeout, bound = 60 * time.Second, 20 * time.Second
	rp := startRedisProc(t)
	o := newCacheOrigin(t, slowOrigin(150*time.Millisecond))
	conf := redisZoneConf(rp.addr(), lockTimeout)
	a, _, _ := startCacheSite(t, o, conf)
	b, _, _ := startCacheSite(t, o, conf)
	rp.kill()
	rp.start(t)
	// The instances reconnect on their next command.
	for _, base := range []string{a, b} {
		deadline := time.Now().Add(waitCeiling)
		for strings.Contains(cacheDo(t, http.MethodGet, base+"/warm").header.Get("Cache-Status"), "store-unavailable") {
			if time.Now().After(deadline) {
				t.Fatal("mosaic did not reconnect to the restarted redis")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		slowest time.Duration
	)
	for i := range 40 {
		wg.Go(func() {
			start := time.Now()
			r, err := cacheTry(http.MethodGet, []string{a, b}[i%2]+"/cold")
			took := time.Since(start)
			if err != nil || r.status != 200 {
				t.Errorf("request %d: %v %d", i, err, r.status)
			}
			mu.Lock()
			slowest = max(slowest, took)
			mu.Unlock()
		})
	}
	wg.Wait()
	t.Logf("the slowest of 40 requests took %v", slowest)
	if slowest > bound {
		t.Fatalf("the slowest of 40 requests took %v after redis restarted (lock timeout %v): the release was missed and nothing looked again", slowest, lockTimeout)
	}
}

// breakerState reads the zone's circuit breaker from the status endpoint.
func breakerState(t *testing.T, base string) string {
	t.Helper()
	var out struct {
		Zones map[string]struct {
			Breaker string `json:"breaker"`
		} `json:"zones"`
	}
	r := cacheDo(t, http.MethodGet, base+"/cache-status")
	if err := json.Unmarshal([]byte(r.body), &out); err != nil {
		t.Fatalf("status %q: %v", r.body, err)
	}
	return out.Zones["shared"].Breaker
}

// hammerFor sends GETs of url from workers until d has passed (at most
// limit requests) and returns how many were answered, how many of them
// took slow or longer, and the X-Cache and Cache-Status pairs seen.
func hammerFor(t *testing.T, url string, workers int, d time.Duration, limit int, slow time.Duration) (n, nSlow int, statuses map[string]int) {
	t.Helper()
	var slowN atomic.Int64
	l := testclient.Hammer(t, workers, d, limit, func() (string, error) {
		start := time.Now()
		r, err := cacheTry(http.MethodGet, url)
		if time.Since(start) >= slow {
			slowN.Add(1)
		}
		if err != nil || r.status != 200 {
			return "", fmt.Errorf("%v %d", err, r.status)
		}
		return r.cacheStatus() + " " + r.header.Get("Cache-Status"), nil
	})
	return l.N, int(slowN.Load()), l.Keys
}

// TestCacheRedisPausedKeepsServing: Redis paused with SIGSTOP for 5 s
// under load. The breaker opens after a few timeouts and the status
// endpoint says so; the zone's local tier answers the hot entry from
// memory, and only the requests before the breaker opened wait for
// Redis's timeout; after SIGCONT the breaker closes by itself and hits
// resume.
func TestCacheRedisPausedKeepsServing(t *testing.T) {
	rp := startRedisProc(t)
	o := newCacheOrigin(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, "page")
	})
	base, _, _ := startCacheSite(t, o, redisZoneConf(rp.addr(), 5*time.Second))
	cacheDo(t, http.MethodGet, base+"/hot")
	if r := cacheDo(t, http.MethodGet, base+"/hot"); r.cacheStatus() != "HIT" {
		t.Fatalf("before the pause: %q", r.cacheStatus())
	}
	const (
		workers = 4
		pause   = 5 * time.Second // as the issue's
	)
	if err := rp.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			_ = rp.cmd.Process.Signal(syscall.SIGCONT)
		}
	}
	t.Cleanup(resume)
	n, blocked, statuses := hammerFor(t, base+"/hot", workers, pause, 250000, cache.DefaultRedisTimeout)
	state := breakerState(t, base)
	resume()
	t.Logf("redis paused %v: %d requests, %d of them %v or longer; %v", pause, n, blocked, cache.DefaultRedisTimeout, statuses)
	// What the breaker saves is Redis's timeout per request: only those
	// before it opened (a few per worker) wait that long; without it every
	// one does. A count, plus a tenth of the requests for the machine's
	// own stalls, where bounds on the slowest request (1 s) and on the
	// rate (half that of an unpaused second) measured a loaded machine's
	// scheduler, as the same bounds did in cache's paused-Redis tests.
	if limit := workers*cache.DefaultBreakerFailures + n/10; blocked > limit {
		t.Errorf("%d of %d requests took redis's timeout (%v) or longer while it was paused, want at most %d",
			blocked, n, cache.DefaultRedisTimeout, limit)
	}
	if state != "open" && state != "half-open" {
		t.Errorf("breaker %q while redis was paused", state)
	}
	// The zone's local tier (the keys_zone size) answers the hot entry
	// from memory while the breaker is open, and says so.
	local := 0
	for v, n := range statuses {
		if strings.HasPrefix(v, "HIT ") && strings.Contains(v, "detail=store-unavailable") {
			local += n
		}
	}
	if local == 0 {
		t.Errorf("no hit from the local tier: %v", statuses)
	}
	waitFor(t, "the breaker to close after SIGCONT", func() bool { return breakerState(t, base) == "closed" })
	if r := cacheDo(t, http.MethodGet, base+"/hot"); r.cacheStatus() != "HIT" {
		t.Fatalf("after the pause: %q %q", r.cacheStatus(), r.header.Get("Cache-Status"))
	}
}

// TestCacheRedisTimeoutParameter: proxy_cache_path's redis_timeout= bounds
// how long a request waits for a Redis that does not answer. With Redis
// paused, the first request waits the configured 2 s (the default 250 ms
// would send it to the origin after at most three timeouts, when the
// breaker opens) and is then served from the origin.
func TestCacheRedisTimeoutParameter(t *testing.T) {
	rp := startRedisProc(t)
	o := newCacheOrigin(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, "page")
	})
	const timeout = 2 * time.Second
	conf := strings.Replace(redisZoneConf(rp.addr(), 5*time.Second), "keys_zone=shared:16m",
		"keys_zone=shared:16m redis_timeout=2s", 1)
	base, _, _ := startCacheSite(t, o, conf)
	if r := cacheDo(t, http.MethodGet, base+"/warm"); r.status != 200 {
		t.Fatalf("before the pause: %d", r.status)
	}
	if err := rp.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rp.cmd.Process.Signal(syscall.SIGCONT) })
	start := time.Now()
	r := cacheDo(t, http.MethodGet, base+"/cold")
	took := time.Since(start)
	if r.status != 200 || r.body != "page" {
		t.Fatalf("with redis paused: %d %q", r.status, r.body)
	}
	if took < timeout {
		t.Errorf("the request waited %v for a paused redis, want the redis_timeout %v", took, timeout)
	}
}
