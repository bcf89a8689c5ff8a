package cache_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
	"github.com/mosaic-edge/mosaic/internal/testclient"
)

func TestRedisHitAcrossInstancesWithChunkedBody(t *testing.T) {
	rs := testRedis(t)
	prefix := uniquePrefix(t)
	big := strings.Repeat("0123456789", 1000) // 10 chunks of 1000 bytes
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		if r.URL.Path == "/big" {
			fmt.Fprint(w, big)
			return
		}
		fmt.Fprint(w, "small")
	})
	a := newFront(t, o, cache.Options{Store: newRedisStore(t, rs.url(), prefix, cache.RedisOptions{ChunkSize: 1000}), Key: pathKey})
	b := newFront(t, o, cache.Options{Store: newRedisStore(t, rs.url(), prefix, cache.RedisOptions{ChunkSize: 1000}), Key: pathKey})
	for _, p := range []string{"/small", "/big"} {
		if r := a.get(t, p); r.cacheStatus() != cache.StatusMiss {
			t.Fatalf("%s on a: %q", p, r.cacheStatus())
		}
		r := b.get(t, p)
		if r.cacheStatus() != cache.StatusHit {
			t.Fatalf("%s on b: %q", p, r.cacheStatus())
		}
		if want := map[string]string{"/small": "small", "/big": big}[p]; r.body != want {
			t.Fatalf("%s body has %d bytes, want %d", p, len(r.body), len(want))
		}
	}
	if n := o.hits.Load(); n != 2 {
		t.Fatalf("origin saw %d requests, want 2", n)
	}
	c := redisClient(t, rs)
	if chunks := redisKeys(t, c, prefix+"b:*"); len(chunks) != 10 {
		t.Fatalf("%d chunk keys, want 10", len(chunks))
	}
	// TTLs are Redis's: the metadata key expires.
	ttl, err := c.Do(context.Background(), c.B().Pttl().Key(prefix+"m:/big").Build()).AsInt64()
	if err != nil || ttl <= 0 {
		t.Fatalf("metadata PTTL %d, %v", ttl, err)
	}
}

// Concurrent misses on two instances are coalesced by the lock in Redis:
// the origin sees one request.
func TestRedisCoalescingAcrossInstances(t *testing.T) {
	rs := testRedis(t)
	prefix := uniquePrefix(t)
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, "shared")
	})
	// What is tested is the lock, not Redis's latency: on a loaded machine
	// under -race, 100 requests at once can keep a command past the
	// default 250ms timeout three times in a row, and the breaker then
	// rightly bypasses the store (and its lock). A generous timeout keeps
	// the breaker out of it; that it stayed closed is checked below.
	// So are the lock's timers: past proxy_cache_lock_timeout a waiter
	// goes to the origin, past proxy_cache_lock_age another request does
	// (NGINX's rules, tested elsewhere), and under load the fill once took
	// longer than their 5 s; a minute only a lost wake reaches.
	opts := cache.RedisOptions{Timeout: 5 * time.Second}
	sa, sb := newRedisStore(t, rs.url(), prefix, opts), newRedisStore(t, rs.url(), prefix, opts)
	copts := cache.Options{Store: sa, Key: pathKey, Lock: true, LockTimeout: time.Minute, LockAge: time.Minute}
	a := newFront(t, o, copts)
	copts.Store = sb
	b := newFront(t, o, copts)
	for i, body := range hammer(t, 100, a.URL+"/cold", b.URL+"/cold") {
		if body != "shared" {
			t.Fatalf("request %d got %q", i, body)
		}
	}
	if na, nb := sa.Breaker().Opened(), sb.Breaker().Opened(); na+nb != 0 {
		t.Fatalf("the breakers opened %d and %d times: the store was bypassed, the lock not tested", na, nb)
	}
	if n := o.hits.Load(); n != 1 {
		t.Fatalf("origin saw %d requests across two instances, want 1", n)
	}
}

func TestRedisLockReleaseWakesWaitersByMessage(t *testing.T) {
	rs := testRedis(t)
	prefix := uniquePrefix(t)
	a := newRedisStore(t, rs.url(), prefix, cache.RedisOptions{})
	b := newRedisStore(t, rs.url(), prefix, cache.RedisOptions{})
	ctx := context.Background()
	release, ok, err := a.TryLock(ctx, "k", time.Minute)
	if err != nil || !ok {
		t.Fatalf("TryLock: %v %v", ok, err)
	}
	if _, ok, _ := b.TryLock(ctx, "k", time.Minute); ok {
		t.Fatal("two holders")
	}
	woke := make(chan time.Duration)
	go func() {
		start := time.Now()
		if err := b.Wait(ctx, "k"); err != nil {
			t.Error(err)
		}
		woke <- time.Since(start)
	}()
	time.Sleep(100 * time.Millisecond)
	release()
	// Without a wake the waiter would wait on: the holder renews the lock
	// for a minute. 10 s only that reaches; a bound of 2 s on the wake
	// failed under load.
	select {
	case d := <-woke:
		t.Logf("woken after %v", d)
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter was not woken by the release (the lock's TTL is a minute)")
	}
	// The lock is free again, and a stale release cannot free a new holder.
	release2, ok, err := b.TryLock(ctx, "k", time.Minute)
	if err != nil || !ok {
		t.Fatalf("TryLock after release: %v %v", ok, err)
	}
	release() // a second release of the old token is a no-op
	if _, ok, _ := a.TryLock(ctx, "k", time.Minute); ok {
		t.Fatal("an old token released the new holder's lock")
	}
	release2()
}

// A waiter whose lock timeout passes says nothing of Redis: the waiters
// of one key time out together, and counted as Redis's failures they
// opened the breaker of a Redis that answered every command.
func TestRedisLockWaitTimeoutLeavesTheBreakerClosed(t *testing.T) {
	rs := testRedis(t)
	prefix := uniquePrefix(t)
	a := newRedisStore(t, rs.url(), prefix, cache.RedisOptions{})
	b := newRedisStore(t, rs.url(), prefix, cache.RedisOptions{})
	if _, ok, err := a.TryLock(context.Background(), "k", time.Minute); err != nil || !ok {
		t.Fatalf("TryLock: %v %v", ok, err)
	}
	// A deadline already passed: the waiter's PTTL fails with it at once,
	// whatever the machine's load.
	for i := range 2 * cache.DefaultBreakerFailures {
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		err := b.Wait(ctx, "k")
		cancel()
		if n := b.Breaker().Opened(); n != 0 {
			t.Fatalf("the breaker opened after %d waiters' own deadlines", i+1)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Wait past its deadline: %v", err)
		}
	}
}

func TestRedisReadersOfReplacedEntryFinish(t *testing.T) {
	rs := testRedis(t)
	s := newRedisStore(t, rs.url(), uniquePrefix(t), cache.RedisOptions{ChunkSize: 100})
	ctx := context.Background()
	put := func(body string) {
		w, err := s.Put(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(w, body)
		if err := w.Commit(ctx, &cache.Meta{Key: "k", Status: 200, Header: http.Header{}, FreshUntil: time.Now().Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	oldBody := strings.Repeat("o", 1000)
	put(oldBody)
	old, err := s.Get(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	put(strings.Repeat("n", 1000))
	var buf bytes.Buffer
	if _, err := old.WriteTo(&buf); err != nil || buf.String() != oldBody {
		t.Fatalf("old reader: %v, %d bytes", err, buf.Len())
	}
	cur, err := s.Get(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	cur.WriteTo(&buf)
	if buf.String() != strings.Repeat("n", 1000) {
		t.Fatal("new reader does not see the new entry")
	}
}

func TestRedisDownBypassesTheCache(t *testing.T) {
	rs := startRedis(t)
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, "ok")
	})
	f := newFront(t, o, cache.Options{Store: newRedisStore(t, rs.url(), "p:", cache.RedisOptions{Timeout: 100 * time.Millisecond}), Lock: true})
	f.get(t, "/x")
	if r := f.get(t, "/x"); r.cacheStatus() != cache.StatusHit {
		t.Fatalf("with redis up: %q", r.cacheStatus())
	}
	rs.stop()
	for i := range 3 {
		r := f.get(t, "/x")
		if r.status != 200 || r.body != "ok" || r.cacheStatus() != cache.StatusMiss {
			t.Fatalf("request %d with redis down: %d %q %q", i, r.status, r.body, r.cacheStatus())
		}
	}
	if n := f.cache.Stats().Snapshot().StoreErrors; n == 0 {
		t.Fatal("no store error counted")
	}
}

func TestRedisUnreachableAtStartBypasses(t *testing.T) {
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, "ok")
	})
	// Nothing listens on port 1.
	s := newRedisStore(t, "redis://127.0.0.1:1/0", "p:", cache.RedisOptions{})
	f := newFront(t, o, cache.Options{Store: s, Lock: true})
	for range 2 {
		if r := f.get(t, "/x"); r.status != 200 || r.cacheStatus() != cache.StatusMiss {
			t.Fatalf("%d %q", r.status, r.cacheStatus())
		}
	}
}

func TestRedisSlowBypassesTheCache(t *testing.T) {
	rs := startRedis(t) // its own: it is paused below
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, "ok")
	})
	f := newFront(t, o, cache.Options{Store: newRedisStore(t, rs.url(), uniquePrefix(t), cache.RedisOptions{Timeout: 100 * time.Millisecond})})
	f.get(t, "/slow")
	// Redis stops answering (SIGSTOP) until the request has its answer
	// or the test gives up: a store that waited for Redis never
	// answers, however fast the machine, and a store that keeps its
	// 100 ms timeout answers however slow. The bound is only for that
	// wait to end, 100 times the timeout; a bound near the timeout
	// measured the machine's load (a 3 s CLIENT PAUSE failed under it).
	thaw := rs.freeze(t)
	answered := make(chan response, 1)
	go func() {
		resp, body, err := testclient.Try(http.MethodGet, f.URL+"/slow")
		if err != nil {
			t.Error(err)
			close(answered)
			return
		}
		answered <- response{status: resp.StatusCode, header: resp.Header, body: body}
	}()
	const bound = 10 * time.Second
	var r response
	select {
	case r = <-answered:
	case <-time.After(bound):
		thaw()
		<-answered
		t.Fatalf("a paused redis held the request for %v or longer", bound)
	}
	thaw()
	if r.status != 200 || r.body != "ok" || r.cacheStatus() != cache.StatusMiss {
		t.Fatalf("with redis paused: %d %q %q", r.status, r.body, r.cacheStatus())
	}
}

func TestRedisPurgeAllReachesOtherInstances(t *testing.T) {
	rs := testRedis(t)
	prefix := uniquePrefix(t)
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, "x")
	})
	sa := newRedisStore(t, rs.url(), prefix, cache.RedisOptions{})
	sb := newRedisStore(t, rs.url(), prefix, cache.RedisOptions{})
	a := newFront(t, o, cache.Options{Store: sa, Key: pathKey})
	b := newFront(t, o, cache.Options{Store: sb, Key: pathKey})
	a.get(t, "/g")
	if r := b.get(t, "/g"); r.cacheStatus() != cache.StatusHit {
		t.Fatalf("b before purge: %q", r.cacheStatus())
	}
	if _, err := sa.BumpGeneration(context.Background()); err != nil {
		t.Fatal(err)
	}
	// b reads the generation from its client-side cache, which Redis
	// invalidates with a push message.
	waitFor(t, "b to see the new generation", func() bool {
		g, _ := sb.Generation(context.Background())
		return g == 1
	})
	if r := b.get(t, "/g"); r.cacheStatus() != cache.StatusMiss {
		t.Fatalf("b after purge-all on a: %q", r.cacheStatus())
	}
}

// TestRedisVaryMarkerKeptThroughStaleWindows: Redis expires the marker of
// a Vary resource by its own TTL. It must last as long as the stale
// windows of its variants, or a variant that may be served stale cannot
// be found once its freshness and inactive have passed.
func TestRedisVaryMarkerKeptThroughStaleWindows(t *testing.T) {
	rs := testRedis(t)
	for _, tc := range []struct {
		window string
		down   bool // the origin fails: stale-if-error
	}{
		{"stale-if-error=3600", true},
		{"stale-while-revalidate=3600", false},
	} {
		t.Run(tc.window, func(t *testing.T) {
			var down atomic.Bool
			o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
				if down.Load() {
					w.WriteHeader(http.StatusInternalServerError)
					return
				}
				w.Header().Set("Cache-Control", "max-age=1, "+tc.window)
				w.Header().Set("Vary", "Accept-Encoding")
				fmt.Fprint(w, "variant")
			})
			st := newRedisStore(t, rs.url(), uniquePrefix(t), cache.RedisOptions{Inactive: time.Millisecond})
			f := newFront(t, o, cache.Options{Store: st})
			f.get(t, "/v", "Accept-Encoding", "gzip")
			down.Store(tc.down)
			// Past freshness and inactive, within the stale window; Redis
			// counts real time.
			time.Sleep(1300 * time.Millisecond)
			f.clock.Advance(1300 * time.Millisecond)
			r := f.get(t, "/v", "Accept-Encoding", "gzip")
			if r.cacheStatus() != cache.StatusStale || r.body != "variant" {
				t.Fatalf("within %s: %d %s %q", tc.window, r.status, r.cacheStatus(), r.body)
			}
		})
	}
}

// TestRedisRevalidationKeepsVaryMarker: a 304 that refreshes a variant
// must refresh its marker too, whose Redis TTL otherwise still counts
// from the first fill and ends while the variant is fresh again. Redis
// counts real time and the cache the test's clock, so rather than sleep
// past the first marker's TTL (a margin a loaded machine overruns) the
// test moves the clock alone and asserts on what was stored: the marker
// is as fresh as the variant, and Redis keeps it longer than the first
// fill could have asked for.
func TestRedisRevalidationKeepsVaryMarker(t *testing.T) {
	const maxAge, inactive = time.Minute, 500 * time.Millisecond
	rs := testRedis(t)
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("Etag", `"v1"`)
		w.Header().Set("Vary", "Accept-Encoding")
		// No Date: one from the real clock would age the entry by the
		// time the test's clock has run ahead of it.
		w.Header()["Date"] = nil
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		fmt.Fprint(w, "variant")
	})
	prefix := uniquePrefix(t)
	st := newRedisStore(t, rs.url(), prefix, cache.RedisOptions{Inactive: inactive})
	f := newFront(t, o, cache.Options{Store: st, Revalidate: true})
	f.get(t, "/v") // fresh until 60s; the first marker's TTL is 60.5s
	f.clock.Advance(75 * time.Second)
	if r := f.get(t, "/v"); r.cacheStatus() != cache.StatusRevalidated {
		t.Fatalf("at 75s: %s", r.cacheStatus())
	}
	c := redisClient(t, rs)
	keys := redisKeys(t, c, prefix+"m:*")
	if len(keys) != 2 {
		t.Fatalf("metadata keys %v, want a marker and a variant", keys)
	}
	var marker, variant *cache.Meta
	var markerKey string
	for _, k := range keys {
		obj, err := st.Get(context.Background(), strings.TrimPrefix(k, prefix+"m:"))
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if m := obj.Meta(); m.Status == 0 {
			marker, markerKey = m, k
		} else {
			variant = m
		}
		obj.Close()
	}
	if marker == nil || variant == nil {
		t.Fatalf("metadata keys %v hold no marker or no variant", keys)
	}
	if want := f.clock.Now().Add(maxAge); !variant.FreshUntil.Equal(want) {
		t.Fatalf("variant fresh until %v, want %v (revalidated at 75s with max-age=60)", variant.FreshUntil, want)
	}
	if marker.FreshUntil.Before(variant.FreshUntil) {
		t.Fatalf("marker fresh until %v, before its variant's %v", marker.FreshUntil, variant.FreshUntil)
	}
	// The refreshed marker lives until 135.5s on the test's clock, about
	// 135s from now in Redis; a TTL only falls, so one over the first
	// fill's 60.5s was written by the revalidation.
	ms, err := c.Do(context.Background(), c.B().Pttl().Key(markerKey).Build()).AsInt64()
	if ttl := time.Duration(ms) * time.Millisecond; err != nil || ttl <= maxAge+inactive {
		t.Fatalf("marker PTTL %v (%v), want over the first fill's %v", ttl, err, maxAge+inactive)
	}
	f.clock.Advance(35 * time.Second) // 110s: fresh until 135s
	if r := f.get(t, "/v"); r.cacheStatus() != cache.StatusHit || r.body != "variant" {
		t.Fatalf("at 110s, revalidated at 75s with max-age=60: %s, origin saw %d requests", r.cacheStatus(), o.hits.Load())
	}
}

// redisEntry encodes a metadata key's value as the Redis store writes it
// (version, entity, chunk count, metadata, inline body), so that a test
// can store values no writer produces.
func redisEntry(t *testing.T, entity string, chunks uint64, size int64, inline string) string {
	t.Helper()
	mb, err := (&cache.Meta{Key: "k", Status: 200, Header: http.Header{}, Size: size, Tags: []string{"tag"}}).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	v := []byte{'R'}
	v = binary.AppendUvarint(v, uint64(len(entity)))
	v = append(v, entity...)
	v = binary.AppendUvarint(v, chunks)
	v = binary.AppendUvarint(v, uint64(len(mb)))
	v = append(v, mb...)
	return string(append(v, inline...))
}

// TestRedisInconsistentChunkCountIsCorrupt: a metadata value whose chunk
// count does not follow from its body size (Redis is writable by others,
// and memory can rot) is a corrupt entry for every reader: Get, Delete,
// the purges and the commit that replaces it sized their commands by the
// count, and 1<<62 chunks made them panic.
func TestRedisInconsistentChunkCountIsCorrupt(t *testing.T) {
	rs := testRedis(t)
	rc := redisClient(t, rs)
	ctx := context.Background()
	const chunkSize = 1000
	for _, tc := range []struct {
		name    string
		entity  string
		chunks  uint64
		size    int64
		inline  string
		corrupt bool
	}{
		{"inline", "", 0, 2, "ab", false},
		{"chunked", "e", 3, 2500, "", false},
		{"1<<62 chunks", "e", 1 << 62, 0, "", true},
		{"more chunks than bytes", "e", 5, 3, "", true},
		{"one chunk too many", "e", 4, 2500, "", true},
		{"one chunk too few", "e", 2, 2500, "", true},
		{"no chunks", "e", 0, 2500, "", true},
		{"chunks of one chunk's body", "e", 1, chunkSize, "", true},
		{"chunks and an inline body", "e", 3, 2500, "x", true},
		{"chunks without an entity", "", 3, 2, "ab", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := uniquePrefix(t)
			st := newRedisStore(t, rs.url(), prefix, cache.RedisOptions{ChunkSize: chunkSize})
			plant := func() {
				t.Helper()
				value := redisEntry(t, tc.entity, tc.chunks, tc.size, tc.inline)
				err := rc.Do(ctx, rc.B().Set().Key(prefix+"m:k").Value(value).Build()).Error()
				if err == nil {
					err = rc.Do(ctx, rc.B().Sadd().Key(prefix+"t:tag").Member("k").Build()).Error()
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			noPanic := func(what string, op func() error) {
				t.Helper()
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("%s panicked: %v", what, p)
					}
				}()
				if err := op(); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
			}
			plant()
			obj, err := st.Get(ctx, "k")
			if tc.corrupt != errors.Is(err, cache.ErrCorrupt) || (!tc.corrupt && err != nil) {
				t.Fatalf("Get: %v, want corrupt %v", err, tc.corrupt)
			}
			if obj != nil {
				obj.Close()
			}
			noPanic("Delete", func() error { return st.Delete(ctx, "k") })
			plant()
			noPanic("PurgeTag", func() error { _, err := st.PurgeTag(ctx, "tag"); return err })
			plant()
			noPanic("PurgePrefix", func() error { _, err := st.PurgePrefix(ctx, ""); return err })
			plant()
			noPanic("a commit replacing it", func() error {
				w, err := st.Put(ctx, "k")
				if err != nil {
					return err
				}
				fmt.Fprint(w, strings.Repeat("n", 1500))
				return w.Commit(ctx, &cache.Meta{Key: "k", Status: 200, Header: http.Header{}, FreshUntil: time.Now().Add(time.Minute)})
			})
		})
	}
}
