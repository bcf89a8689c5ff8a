package cache_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
)

func okOrigin(t *testing.T) *origin {
	return newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("X-Kind", r.URL.Query().Get("kind"))
		fmt.Fprint(w, r.Method, " ", r.URL.Path)
	})
}

func TestMinUses(t *testing.T) {
	o := okOrigin(t)
	f := newFront(t, o, cache.Options{MinUses: 3})
	for i, want := range []string{cache.StatusMiss, cache.StatusMiss, cache.StatusMiss, cache.StatusHit} {
		r := f.get(t, "/m")
		if r.cacheStatus() != want {
			t.Fatalf("request %d: %q, want %q (%s)", i, r.cacheStatus(), want, r.header.Get("Cache-Status"))
		}
	}
	if r := f.get(t, "/m"); r.header.Get("Cache-Status") == "" {
		t.Fatal("no Cache-Status")
	}
}

func TestBypassFetchesButStores(t *testing.T) {
	o := okOrigin(t)
	f := newFront(t, o, cache.Options{Bypass: func(r *http.Request) bool { return r.Header.Get("X-Refresh") != "" }})
	f.get(t, "/b")
	r := f.get(t, "/b", "X-Refresh", "1")
	if r.cacheStatus() != cache.StatusBypass || r.header.Get("Cache-Status") != "mosaic; fwd=bypass; fwd-status=200; stored" {
		t.Fatalf("bypass: %q %q", r.cacheStatus(), r.header.Get("Cache-Status"))
	}
	if r := f.get(t, "/b"); r.cacheStatus() != cache.StatusHit {
		t.Fatalf("after: %q", r.cacheStatus())
	}
	if n := o.hits.Load(); n != 2 {
		t.Fatalf("origin saw %d requests", n)
	}
	if s := f.cache.Stats().Snapshot(); s.Bypass != 1 || s.Miss != 1 || s.Hit != 1 || s.Stored != 2 {
		t.Fatalf("counters %+v", s)
	}
}

func TestNoCacheSeesTheResponse(t *testing.T) {
	o := okOrigin(t)
	f := newFront(t, o, cache.Options{NoCache: func(r *http.Request, status int, h http.Header) bool {
		return h.Get("X-Kind") == "private"
	}})
	f.get(t, "/n?kind=private")
	if r := f.get(t, "/n?kind=private"); r.cacheStatus() != cache.StatusMiss {
		t.Fatalf("no_cache response was stored: %q", r.cacheStatus())
	}
	f.get(t, "/n?kind=public")
	if r := f.get(t, "/n?kind=public"); r.cacheStatus() != cache.StatusHit {
		t.Fatalf("%q", r.cacheStatus())
	}
}

func TestMethods(t *testing.T) {
	o := okOrigin(t)
	f := newFront(t, o, cache.Options{})
	f.do(t, http.MethodPost, "/p")
	if r := f.do(t, http.MethodPost, "/p"); r.cacheStatus() != "" {
		t.Fatalf("POST went through the cache by default: %q", r.cacheStatus())
	}
	key := func(r *http.Request) string { return r.Method + r.URL.Path }
	f = newFront(t, o, cache.Options{Methods: []string{"post"}, Key: key})
	f.do(t, http.MethodPost, "/p")
	if r := f.do(t, http.MethodPost, "/p"); r.cacheStatus() != cache.StatusHit || r.body != "POST /p" {
		t.Fatalf("POST with proxy_cache_methods POST: %q %q", r.cacheStatus(), r.body)
	}
}

// A failure reported through a writer that wraps the Fill is the
// condition that proxy_cache_use_stale names, whatever the status.
func TestReportFailureTimeout(t *testing.T) {
	clk := newClock()
	var fail atomic.Bool
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			if !cache.ReportFailure(&wrapper{w}, cache.FailTimeout) {
				t.Error("no Fill found behind the wrapper")
			}
			w.WriteHeader(http.StatusGatewayTimeout)
			return
		}
		w.Header().Set("Cache-Control", "max-age=10")
		w.Header().Set("Date", clk.Now().UTC().Format(http.TimeFormat))
		fmt.Fprint(w, "good")
	})
	s, _ := cache.NewMemoryStore(cache.MemoryOptions{})
	defer s.Close()
	for _, tc := range []struct {
		stale cache.UseStale
		code  int
		cache string
	}{{cache.StaleTimeout, 200, cache.StatusStale}, {cache.StaleError, 504, cache.StatusExpired}} {
		c, err := cache.New(next, cache.Options{Store: s, UseStale: tc.stale, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		cache.SetClock(c, clk.Now)
		srv := httptest.NewServer(echoCacheStatus(c))
		f := &front{Server: srv, cache: c}
		fail.Store(false)
		f.get(t, "/t")
		clk.Advance(time.Minute)
		fail.Store(true)
		r := f.get(t, "/t")
		srv.Close()
		if r.status != tc.code || r.cacheStatus() != tc.cache {
			t.Fatalf("use_stale %b: %d %q", tc.stale, r.status, r.cacheStatus())
		}
		s.BumpGeneration(t.Context())
	}
}

// wrapper is a ResponseWriter wrapped the way middleware wraps one.
type wrapper struct{ http.ResponseWriter }

func (w *wrapper) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func TestReportFailureOutsideFill(t *testing.T) {
	if cache.ReportFailure(httptest.NewRecorder(), cache.FailError) {
		t.Error("a plain writer took the failure")
	}
}

func TestOptionErrors(t *testing.T) {
	s, _ := cache.NewMemoryStore(cache.MemoryOptions{})
	defer s.Close()
	next := http.NotFoundHandler()
	for name, opts := range map[string]cache.Options{
		"no store":      {},
		"bad ignore":    {Store: s, IgnoreHeaders: []string{"X-Nope"}},
		"bad status":    {Store: s, Valid: []cache.Valid{{Codes: []int{42}, TTL: time.Second}}},
		"negative time": {Store: s, Valid: []cache.Valid{{Any: true, TTL: -time.Second}}},
	} {
		if _, err := cache.New(next, opts); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := cache.ParseUseStale([]string{"error", "bogus"}); err == nil {
		t.Error("ParseUseStale accepted bogus")
	}
	u, err := cache.ParseUseStale([]string{"error", "timeout", "updating", "http_503"})
	if err != nil || u != cache.StaleError|cache.StaleTimeout|cache.StaleUpdating|cache.StaleHTTP503 {
		t.Errorf("ParseUseStale: %b %v", u, err)
	}
	if u, err := cache.ParseUseStale([]string{"off"}); err != nil || u != 0 {
		t.Errorf("off: %b %v", u, err)
	}
	// NGINX's bitmask takes "off" beside other values too, and off wins.
	if u, err := cache.ParseUseStale([]string{"error", "OFF"}); err != nil || u != 0 {
		t.Errorf("error off: %b %v", u, err)
	}
}
