package cache_test

import (
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
)

// TestHandOffStoresNothing: a handler behind the cache that hands the fill
// back (an upstream's X-Accel-Redirect) serves the client's own request,
// with the fields it set, and nothing is stored; the fill lock is
// released before the hand-off serves.
func TestHandOffStoresNothing(t *testing.T) {
	s, err := cache.NewMemoryStore(cache.MemoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	var store cache.Store = s
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("X-Carried", "yes")
		ok := cache.HandOff(w, func(cw http.ResponseWriter, cr *http.Request) {
			// The lock is free: another fill could take it now.
			release, locked, err := store.TryLock(cr.Context(), "k", time.Second)
			if err != nil || !locked {
				t.Errorf("the fill lock is still held while the hand-off serves (%v)", err)
			} else {
				release()
			}
			cw.WriteHeader(http.StatusOK)
			if cr.Method != http.MethodHead {
				_, _ = io.WriteString(cw, "served for "+cr.Method)
			}
		})
		if !ok {
			t.Error("HandOff found no fill")
		}
	})
	c, err := cache.New(next, cache.Options{
		Store: s, Logger: quiet, Lock: true,
		Key: func(*http.Request) string { return "k" },
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, method := range []string{"GET", "GET", "HEAD"} {
		rec := httptest.NewRecorder()
		c.ServeHTTP(rec, httptest.NewRequest(method, "/x", nil))
		want := ""
		if method != "HEAD" {
			want = "served for GET"
		}
		if rec.Code != 200 || rec.Body.String() != want || rec.Header().Get("X-Carried") != "yes" {
			t.Errorf("%s #%d: %d %q carried %q", method, i, rec.Code, rec.Body.String(), rec.Header().Get("X-Carried"))
		}
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("the handler ran %d times, want 3: a handed-off answer must not be stored", n)
	}
	if cache.HandOff(httptest.NewRecorder(), func(http.ResponseWriter, *http.Request) { t.Error("served outside a fill") }) {
		t.Error("HandOff outside a fill reported a Fill")
	}
}

// TestUnbufferedStoresNothing: a handler that relays its answer
// unbuffered says so through a wrapping writer, and that answer goes to
// the client with Cache-Status saying why and is not stored, as NGINX
// stores no unbuffered answer; outside a fill Unbuffered finds nothing.
func TestUnbufferedStoresNothing(t *testing.T) {
	s, err := cache.NewMemoryStore(cache.MemoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if !cache.Unbuffered(&wrapper{w}) {
			t.Error("Unbuffered found no fill behind the wrapper")
		}
		w.Header().Set("Cache-Control", "max-age=60")
		_, _ = io.WriteString(w, "streamed")
	})
	c, err := cache.New(next, cache.Options{Store: s, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		rec := httptest.NewRecorder()
		c.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
		if rec.Body.String() != "streamed" || !strings.Contains(rec.Header().Get("Cache-Status"), "detail=unbuffered") {
			t.Errorf("answer %q, Cache-Status %q", rec.Body.String(), rec.Header().Get("Cache-Status"))
		}
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("two requests reached the handler %d times: the unbuffered answer was stored", n)
	}
	if cache.Unbuffered(httptest.NewRecorder()) {
		t.Error("a plain writer took Unbuffered")
	}
}

// TestUnstoredAnswerFreesLock: once an answer is known not to be stored
// (here its Set-Cookie), the fill lock goes, as NGINX frees the entry
// when it sends the header (ngx_http_upstream_send_response): a second
// request for the key goes upstream at once rather than waiting out the
// first answer, which a client reading slowly can stretch to the lock
// timeout for everyone.
func TestUnstoredAnswerFreesLock(t *testing.T) {
	release := make(chan struct{})
	second := make(chan struct{})
	var calls atomic.Int32
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("Set-Cookie", "sid=1")
		if calls.Add(1) == 2 {
			close(second)
			_, _ = io.WriteString(w, "second")
			return
		}
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "first")
		<-release // the rest of a long answer
	})
	c := lockingCache(t, next)
	done := serveInBackground(c, "/x")
	awaitCall(&calls)
	go c.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil))
	select {
	case <-second:
	case <-time.After(10 * time.Second):
		t.Error("the second request waited on the lock of an answer that is not stored")
	}
	close(release)
	<-done
}

// lockingCache is a memory cache in front of next whose fill lock holds
// a second request for a key for up to a minute.
func lockingCache(t *testing.T, next http.Handler) *cache.Cache {
	t.Helper()
	s, err := cache.NewMemoryStore(cache.MemoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := cache.New(next, cache.Options{Store: s, Logger: quiet, Lock: true, LockTimeout: time.Minute, LockAge: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// awaitCall waits until the handler has had its first request.
func awaitCall(calls *atomic.Int32) {
	for calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
}

// TestHeadingFreesLock: a handler that holds its header back while it
// reads the body (the proxy's buffered relay) says what the header will
// be with Heading; an answer that it says will not be stored frees the
// fill lock then, as NGINX frees the entry once it has the upstream's
// header, and a second request goes upstream while the first has
// written nothing yet. A header the cache will store keeps the lock:
// the second request waits and is served what the first stored.
func TestHeadingFreesLock(t *testing.T) {
	for _, c := range []struct {
		field, value string
		freed        bool
	}{
		{"Set-Cookie", "sid=1", true},
		{"Cache-Control", "private", true},
		{"X-Accel-Expires", "0", true},
		{"Vary", "*", true},
		{"X-Other", "1", false},
	} {
		release := make(chan struct{})
		second := make(chan struct{})
		var calls atomic.Int32
		next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := http.Header{"Cache-Control": {"max-age=60"}}
			h.Set(c.field, c.value)
			if calls.Add(1) == 2 {
				close(second)
			} else if !cache.Heading(w, http.StatusOK, h) {
				t.Error("Heading found no Fill")
			}
			// The header is written only once the body is in.
			<-release
			maps.Copy(w.Header(), h)
			_, _ = io.WriteString(w, "body")
		})
		ch := lockingCache(t, next)
		done := serveInBackground(ch, "/x")
		awaitCall(&calls)
		rec := httptest.NewRecorder()
		served := make(chan struct{})
		go func() {
			defer close(served)
			ch.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
		}()
		if c.freed {
			select {
			case <-second:
			case <-time.After(10 * time.Second):
				t.Errorf("%s: %s: the second request waited on the lock", c.field, c.value)
			}
		}
		close(release)
		<-done
		<-served
		if got, want := calls.Load(), map[bool]int32{true: 2, false: 1}[c.freed]; got != want {
			t.Errorf("%s: %s: the handler had %d requests, want %d", c.field, c.value, got, want)
		}
	}
	if cache.Heading(httptest.NewRecorder(), http.StatusOK, http.Header{}) {
		t.Error("a plain writer took Heading")
	}
}

// TestUnstoredUpdateFreesLock: the update of an expired entry lets the
// lock go once its answer is known not to be stored, as NGINX clears the
// entry's updating mark then (ngx_http_file_cache_free), in the client's
// own request and in a background update alike: under use_stale
// updating, the next request for the key does not get the stale entry
// as "updating" while the unstored answer goes on, but updates it
// itself (upstream, or in another background update).
func TestUnstoredUpdateFreesLock(t *testing.T) {
	for _, background := range []bool{false, true} {
		s, err := cache.NewMemoryStore(cache.MemoryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		headerSent := make(chan struct{})
		release := make(chan struct{})
		third := make(chan struct{})
		var calls atomic.Int32
		next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Cache-Control", "max-age=1")
			switch calls.Add(1) {
			case 1:
				_, _ = io.WriteString(w, "v1")
			case 2:
				w.Header().Set("Set-Cookie", "sid=1")
				w.WriteHeader(http.StatusOK)
				close(headerSent)
				_, _ = io.WriteString(w, "v2")
				<-release // the rest of a long answer
			case 3:
				close(third)
				_, _ = io.WriteString(w, "v3")
			}
		})
		c, err := cache.New(next, cache.Options{Store: s, Logger: quiet, UseStale: cache.StaleUpdating,
			BackgroundUpdate: background, LockAge: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		clk := newClock()
		cache.SetClock(c, clk.Now)
		c.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil))
		clk.Advance(2 * time.Second)
		done := serveInBackground(c, "/x")
		<-headerSent
		rec := httptest.NewRecorder()
		c.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
		select {
		case <-third:
		case <-time.After(10 * time.Second):
			t.Errorf("background %v: the next request got %q (Cache-Status %q) while an unstored update went on, not an update of its own",
				background, rec.Body.String(), rec.Header().Get("Cache-Status"))
		}
		close(release)
		<-done
		cache.WaitBackground(c)
	}
}

// TestHeadingDecidesStore: what is stored is decided on the header that
// Heading told, the upstream's, not on the one written, from which the
// handler hid a field (proxy_hide_header Cache-Control), as NGINX
// decides on the upstream's header: a private answer is not stored,
// with or without the lock (whose holder let it go at the head), and
// the next request goes upstream again.
func TestHeadingDecidesStore(t *testing.T) {
	for _, lock := range []bool{false, true} {
		s, err := cache.NewMemoryStore(cache.MemoryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var calls atomic.Int32
		next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			cache.Heading(w, http.StatusOK, http.Header{"Cache-Control": {"private, max-age=60"}})
			// Written without the field the handler hides.
			_, _ = io.WriteString(w, "body")
		})
		ch, err := cache.New(next, cache.Options{Store: s, Logger: quiet, Lock: lock, Valid: []cache.Valid{{TTL: time.Minute}}})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			ch.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil))
		}
		if n := calls.Load(); n != 2 {
			t.Errorf("lock %v: the handler had %d requests, want 2 (nothing stored)", lock, n)
		}
	}
}

// serveInBackground serves a GET of path on h in a goroutine and returns
// a channel that closes once h has answered it.
func serveInBackground(h http.Handler, path string) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
	}()
	return done
}
