package cache_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
)

// varyWaitStore is lateLockStore that also reports each key a request
// waits on for its fill lock.
type varyWaitStore struct {
	lateLockStore
	waits chan string
}

func (s *varyWaitStore) Wait(ctx context.Context, key string) error {
	select {
	case s.waits <- key:
	default:
	}
	return s.Store.Wait(ctx, key)
}

// gateStore holds its first TryLock until gate is closed, closing
// arrived when it gets there: a request whose lookup missed, held before
// its lock.
type gateStore struct {
	cache.Store
	once          sync.Once
	arrived, gate chan struct{}
}

func (s *gateStore) TryLock(ctx context.Context, key string, ttl time.Duration) (func(), bool, error) {
	s.once.Do(func() {
		close(s.arrived)
		<-s.gate
	})
	return s.Store.TryLock(ctx, key, ttl)
}

// TestVaryMarkerOnSecondLookLocksVariant: a request for variant x misses
// (no entry under the key), and before it takes the key's fill lock
// another instance stores variant y with its Vary marker. The look after
// the lock finds the marker: the fill is x's, and so must be its lock, as
// NGINX reopens the entry under the variant's key and locks that
// (ngx_http_file_cache_reopen, then ngx_http_file_cache_lock of the
// variant's node). Holding the key's lock instead, x's fill left x's own
// lock free: a second request for x went upstream too (two fills of one
// variant), and a request for variant z that had missed before the
// marker waited on the key's lock for x's fill. The origin counts its
// fetches per variant.
func TestVaryMarkerOnSecondLookLocksVariant(t *testing.T) {
	t.Run("memory", func(t *testing.T) {
		shared, err := cache.NewMemoryStore(cache.MemoryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { shared.Close() })
		testVaryMarkerOnSecondLook(t, func() cache.Store { return shared })
	})
	t.Run("redis", func(t *testing.T) {
		rs := testRedis(t)
		prefix := uniquePrefix(t)
		opts := cache.RedisOptions{Timeout: 5 * time.Second}
		testVaryMarkerOnSecondLook(t, func() cache.Store { return newRedisStore(t, rs.url(), prefix, opts) })
	})
}

// testVaryMarkerOnSecondLook runs the test with three instances, each on
// a store that newStore returns, all sharing their entries and locks:
// one whose first lock is late (x), one that stores y in that window,
// and one whose request for z looked before the marker and is held
// before its lock.
func testVaryMarkerOnSecondLook(t *testing.T, newStore func() cache.Store) {
	mine := newStore()
	var mu sync.Mutex
	fetches := map[string]int{}
	xAtOrigin := make(chan struct{}, 2)
	releaseX, zAtOrigin := make(chan struct{}), make(chan struct{})
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		v := r.Header.Get("X-V")
		mu.Lock()
		fetches[v]++
		mu.Unlock()
		switch v {
		case "x":
			xAtOrigin <- struct{}{}
			<-releaseX
		case "z":
			close(zAtOrigin)
		}
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("Vary", "X-V")
		fmt.Fprint(w, "v="+v)
	})
	t.Cleanup(func() {
		select {
		case <-releaseX:
		default:
			close(releaseX)
		}
	})
	second := newFront(t, o, cache.Options{Store: newStore(), Key: pathKey, Lock: true})
	gated := &gateStore{Store: newStore(), arrived: make(chan struct{}), gate: make(chan struct{})}
	third := newFront(t, o, cache.Options{Store: gated, Key: pathKey, Lock: true, LockTimeout: 10 * time.Second})
	s := &varyWaitStore{lateLockStore: lateLockStore{Store: mine}, waits: make(chan string, 16)}
	s.before = func(key string) {
		// Between x's lookup that missed and its lock: y and the marker.
		if b, err := getVariant(second.URL, "y"); err != nil || b != "v=y" {
			t.Errorf("variant y: %q, %v", b, err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if obj, err := mine.Get(context.Background(), key); err == nil {
				obj.Close()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Errorf("the marker under %q was not stored", key)
	}
	f := newFront(t, o, cache.Options{Store: s, Key: pathKey, Lock: true, LockTimeout: 10 * time.Second})
	bodies := make(chan string, 3)
	get := func(base, v string) {
		b, err := getVariant(base, v)
		if err != nil {
			b = err.Error()
		}
		bodies <- v + ":" + b
	}
	go get(third.URL, "z")
	select {
	case <-gated.arrived: // z missed: nothing is stored yet
	case <-time.After(10 * time.Second):
		t.Fatal("the request for z did not reach its lock")
	}
	go get(f.URL, "x")
	select {
	case <-xAtOrigin:
	case <-time.After(10 * time.Second):
		t.Fatal("the first request for x did not reach the origin")
	}
	go get(f.URL, "x")
	// The second request for x either waits for x's fill lock, or goes
	// upstream beside the first: a second fill of the same variant.
	select {
	case <-s.waits:
	case <-xAtOrigin:
	case <-time.After(10 * time.Second):
		t.Fatal("the second request for x neither waited nor reached the origin")
	}
	// z, let go, finds the marker after its lock: it fills z at once,
	// not after x's fill.
	close(gated.gate)
	select {
	case <-zAtOrigin:
	case <-time.After(5 * time.Second):
		t.Error("the request for z waited for the fill of x")
	}
	close(releaseX)
	for range 3 {
		b := <-bodies
		if v, body, _ := strings.Cut(b, ":"); body != "v="+v {
			t.Errorf("a request for %s got %q", v, body)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if fetches["x"] != 1 || fetches["y"] != 1 || fetches["z"] != 1 || len(fetches) != 3 {
		t.Errorf("origin fetches per variant %v, want x, y and z once each", fetches)
	}
}

// getVariant fetches /v from a front with the request header X-V: v.
func getVariant(base, v string) (string, error) {
	req, err := http.NewRequest(http.MethodGet, base+"/v", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("X-V", v)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}
