package cache_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
)

// hammer sends n concurrent GETs for path to each URL in turn and returns
// the bodies.
func hammer(t *testing.T, n int, urls ...string) []string {
	t.Helper()
	bodies := make([]string, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			resp, err := http.Get(urls[i%len(urls)])
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			b := make([]byte, 64)
			k, _ := resp.Body.Read(b)
			bodies[i] = string(b[:k])
		}()
	}
	close(start)
	wg.Wait()
	return bodies
}

func TestLockCoalescesColdMisses(t *testing.T) {
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(200 * time.Millisecond) // long enough for every request to queue
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, "once")
	})
	f := newFront(t, o, cache.Options{Lock: true})
	for i, b := range hammer(t, 100, f.URL+"/cold") {
		if b != "once" {
			t.Fatalf("request %d got %q", i, b)
		}
	}
	if n := o.hits.Load(); n != 1 {
		t.Fatalf("origin saw %d requests for 100 concurrent misses, want 1", n)
	}
	c := f.cache.Stats().Snapshot()
	if c.Miss != 1 || c.Hit != 99 {
		t.Fatalf("counters %+v, want 1 miss and 99 hits", c)
	}
}

// TestWithoutLockEveryMissGoesUpstream: without proxy_cache_lock the ten
// concurrent misses each go upstream and each answer is stored. The origin
// holds every answer until all ten have arrived: otherwise the first answer
// is stored and a request that a loaded machine sent late hits it. A cache
// that made them wait for the first fill stores one answer (the waiters go
// upstream at the lock's timeout without storing, as NGINX's do).
func TestWithoutLockEveryMissGoesUpstream(t *testing.T) {
	const n = 10
	var arrived sync.WaitGroup
	arrived.Add(n)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		arrived.Done()
		select {
		case <-all:
		case <-time.After(30 * time.Second):
		}
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, "x")
	})
	f := newFront(t, o, cache.Options{})
	hammer(t, n, f.URL+"/cold")
	if got := o.hits.Load(); got != n {
		t.Fatalf("origin saw %d requests, want %d without proxy_cache_lock", got, n)
	}
	if c := f.cache.Stats().Snapshot(); c.Miss != n || c.Stored != n {
		t.Fatalf("counters %+v, want %d misses and %d stored", c, n, n)
	}
}

func TestLockTimeoutGoesUpstreamWithoutStoring(t *testing.T) {
	release := make(chan struct{})
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Slow") != "" {
			<-release
		}
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, r.Header.Get("X-Slow"))
	})
	f := newFront(t, o, cache.Options{Lock: true, LockTimeout: 100 * time.Millisecond})
	done := make(chan response)
	go func() { done <- f.get(t, "/k", "X-Slow", "1") }()
	// Let the slow request take the lock.
	deadline := time.Now().Add(2 * time.Second)
	for o.hits.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	r := f.get(t, "/k")
	if r.cacheStatus() != cache.StatusMiss || r.header.Get("Cache-Status") != "mosaic; fwd=miss; fwd-status=200; detail=lock-timeout" {
		t.Fatalf("after lock_timeout: %q %q", r.cacheStatus(), r.header.Get("Cache-Status"))
	}
	close(release)
	if got := <-done; got.body != "1" || got.cacheStatus() != cache.StatusMiss {
		t.Fatalf("lock holder got %q %q", got.body, got.cacheStatus())
	}
	// The holder's response is the one stored.
	if r := f.get(t, "/k"); r.cacheStatus() != cache.StatusHit || r.body != "1" {
		t.Fatalf("then: %q %q", r.cacheStatus(), r.body)
	}
}

func TestUseStaleUpdatingServesStaleWhileOneRequestRefreshes(t *testing.T) {
	clk := newClock()
	gate := make(chan struct{})
	var o *origin
	o = newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		n := o.hits.Load()
		if n == 2 {
			<-gate
		}
		w.Header().Set("Date", clk.Now().UTC().Format(http.TimeFormat))
		w.Header().Set("Cache-Control", "max-age=10")
		fmt.Fprint(w, body(n))
	})
	f := newFrontClock(t, o, cache.Options{UseStale: cache.StaleUpdating}, clk)
	f.get(t, "/u")
	clk.Advance(20 * time.Second)
	done := make(chan response)
	go func() { done <- f.get(t, "/u") }()
	for o.hits.Load() < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	r := f.get(t, "/u")
	if r.cacheStatus() != cache.StatusUpdating || r.body != "v1" {
		t.Fatalf("while updating: %q %q", r.cacheStatus(), r.body)
	}
	close(gate)
	if r := <-done; r.cacheStatus() != cache.StatusExpired || r.body != "v2" {
		t.Fatalf("updater: %q %q", r.cacheStatus(), r.body)
	}
	if r := f.get(t, "/u"); r.cacheStatus() != cache.StatusHit || r.body != "v2" {
		t.Fatalf("after: %q %q", r.cacheStatus(), r.body)
	}
}

func TestBackgroundUpdate(t *testing.T) {
	clk := newClock()
	var o *origin
	o = newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Date", clk.Now().UTC().Format(http.TimeFormat))
		w.Header().Set("Cache-Control", "max-age=10")
		fmt.Fprint(w, body(o.hits.Load()))
	})
	f := newFrontClock(t, o, cache.Options{UseStale: cache.StaleUpdating, BackgroundUpdate: true}, clk)
	f.get(t, "/b")
	clk.Advance(20 * time.Second)
	r := f.get(t, "/b")
	if r.cacheStatus() != cache.StatusStale || r.body != "v1" {
		t.Fatalf("stale: %q %q", r.cacheStatus(), r.body)
	}
	cache.WaitBackground(f.cache)
	if r := f.get(t, "/b"); r.cacheStatus() != cache.StatusHit || r.body != "v2" {
		t.Fatalf("after the background update: %q %q", r.cacheStatus(), r.body)
	}
	if n := o.hits.Load(); n != 2 {
		t.Fatalf("origin saw %d requests, want 2", n)
	}
}

// TestLockAgeLetsOneMoreRequestThrough: a request that finds the lock
// older than lock_age goes upstream itself, not waiting for the fill.
// The slow fill is held until the origin has that second request (10 s
// at most): a request that waited for the fill instead would get its
// HIT, and the origin one request. (A bound of 400 ms on the second
// request, against a fill of 500 ms, was a bet on the machine's load.)
func TestLockAgeLetsOneMoreRequestThrough(t *testing.T) {
	var o *origin
	o = newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Slow") != "" {
			for deadline := time.Now().Add(10 * time.Second); o.hits.Load() < 2 && time.Now().Before(deadline); {
				time.Sleep(5 * time.Millisecond)
			}
		}
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, "x")
	})
	// lock_timeout, which would also send it upstream, is past the
	// slow fill's 10 s.
	f := newFront(t, o, cache.Options{Lock: true, LockAge: 100 * time.Millisecond, LockTimeout: time.Minute})
	slow := make(chan struct{})
	go func() {
		f.get(t, "/age", "X-Slow", "1")
		close(slow)
	}()
	waitFor(t, "the slow fill", func() bool { return o.hits.Load() == 1 })
	if r := f.get(t, "/age"); r.cacheStatus() != cache.StatusMiss {
		t.Errorf("the second request: %q, want a MISS of its own", r.cacheStatus())
	}
	if n := o.hits.Load(); n != 2 {
		t.Fatalf("origin saw %d requests, want 2", n)
	}
	<-slow
}

// lateLockStore runs before once, just before the first TryLock: between
// a request's lookup that missed and its taking of the lock.
type lateLockStore struct {
	cache.Store
	once   sync.Once
	before func(key string)
}

func (s *lateLockStore) TryLock(ctx context.Context, key string, ttl time.Duration) (func(), bool, error) {
	s.once.Do(func() { s.before(key) })
	return s.Store.TryLock(ctx, key, ttl)
}

// Another instance fills the entry and releases the lock after this
// request's lookup missed and before it takes the lock: the request finds
// the lock free, and must serve the stored entry rather than go upstream
// again (NGINX looks and locks at once; a store cannot).
func TestLockTakenAfterAFillServesIt(t *testing.T) {
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, "once")
	})
	shared, err := cache.NewMemoryStore(cache.MemoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other := newFront(t, o, cache.Options{Store: shared, Key: pathKey, Lock: true})
	late := &lateLockStore{Store: shared}
	late.before = func(key string) {
		other.get(t, "/cold")
		// The entry is committed once the handler is done, which can be
		// just after the client has read the body.
		waitFor(t, "the other instance's entry", func() bool {
			obj, err := shared.Get(context.Background(), key)
			if err != nil {
				return false
			}
			obj.Close()
			return true
		})
	}
	f := newFront(t, o, cache.Options{Store: late, Key: pathKey, Lock: true})
	if r := f.get(t, "/cold"); r.body != "once" || r.cacheStatus() != cache.StatusHit {
		t.Fatalf("got %q, %q; want the other instance's entry as a hit", r.body, r.cacheStatus())
	}
	if n := o.hits.Load(); n != 1 {
		t.Fatalf("origin saw %d requests, want 1", n)
	}
}
