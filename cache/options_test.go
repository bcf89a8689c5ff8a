package cache

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
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
	f := newFront(t, o, Options{MinUses: 3})
	for i, want := range []string{StatusMiss, StatusMiss, StatusMiss, StatusHit} {
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
	f := newFront(t, o, Options{Bypass: func(r *http.Request) bool { return r.Header.Get("X-Refresh") != "" }})
	f.get(t, "/b")
	r := f.get(t, "/b", "X-Refresh", "1")
	if r.cacheStatus() != StatusBypass || r.header.Get("Cache-Status") != "mosaic; fwd=bypass; fwd-status=200; stored" {
		t.Fatalf("bypass: %q %q", r.cacheStatus(), r.header.Get("Cache-Status"))
	}
	if r := f.get(t, "/b"); r.cacheStatus() != StatusHit {
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
	f := newFront(t, o, Options{NoCache: func(r *http.Request, status int, h http.Header) bool {
		return h.Get("X-Kind") == "private"
	}})
	f.get(t, "/n?kind=private")
	if r := f.get(t, "/n?kind=private"); r.cacheStatus() != StatusMiss {
		t.Fatalf("no_cache response was stored: %q", r.cacheStatus())
	}
	f.get(t, "/n?kind=public")
	if r := f.get(t, "/n?kind=public"); r.cacheStatus() != StatusHit {
		t.Fatalf("%q", r.cacheStatus())
	}
}

func TestMethods(t *testing.T) {
	o := okOrigin(t)
	f := newFront(t, o, Options{})
	f.do(t, http.MethodPost, "/p")
	if r := f.do(t, http.MethodPost, "/p"); r.cacheStatus() != "" {
		t.Fatalf("POST went through the cache by default: %q", r.cacheStatus())
	}
	key := func(r *http.Request) string { return r.Method + r.URL.Path }
	f = newFront(t, o, Options{Methods: []string{"post"}, Key: key})
	f.do(t, http.MethodPost, "/p")
	if r := f.do(t, http.MethodPost, "/p"); r.cacheStatus() != StatusHit || r.body != "POST /p" {
		t.Fatalf("POST with proxy_cache_methods POST: %q %q", r.cacheStatus(), r.body)
	}
}

func TestFailureReporterTimeout(t *testing.T) {
	clk := newClock()
	var fail atomic.Bool
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			FailureReporter(func(w http.ResponseWriter, r *http.Request, status int) {
				w.WriteHeader(status)
			})(w, r, http.StatusGatewayTimeout)
			return
		}
		w.Header().Set("Cache-Control", "max-age=10")
		w.Header().Set("Date", clk.Now().UTC().Format(http.TimeFormat))
		fmt.Fprint(w, "good")
	})
	s, _ := NewMemoryStore(MemoryOptions{})
	defer s.Close()
	for _, tc := range []struct {
		stale UseStale
		code  int
		cache string
	}{{StaleTimeout, 200, StatusStale}, {StaleError, 504, StatusExpired}} {
		c, err := New(next, Options{Store: s, UseStale: tc.stale, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		c.now = clk.Now
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

func TestOptionErrors(t *testing.T) {
	s, _ := NewMemoryStore(MemoryOptions{})
	defer s.Close()
	next := http.NotFoundHandler()
	for name, opts := range map[string]Options{
		"no store":      {},
		"bad ignore":    {Store: s, IgnoreHeaders: []string{"X-Nope"}},
		"bad status":    {Store: s, Valid: []Valid{{Codes: []int{42}, TTL: time.Second}}},
		"negative time": {Store: s, Valid: []Valid{{Any: true, TTL: -time.Second}}},
	} {
		if _, err := New(next, opts); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := ParseUseStale([]string{"error", "bogus"}); err == nil {
		t.Error("ParseUseStale accepted bogus")
	}
	u, err := ParseUseStale([]string{"error", "timeout", "updating", "http_503"})
	if err != nil || u != StaleError|StaleTimeout|StaleUpdating|StaleHTTP503 {
		t.Errorf("ParseUseStale: %b %v", u, err)
	}
	if u, err := ParseUseStale([]string{"off"}); err != nil || u != 0 {
		t.Errorf("off: %b %v", u, err)
	}
}

func TestValidRuleOrder(t *testing.T) {
	byStatus, anyTTL, hasAny, err := compileValid([]Valid{
		{TTL: 10 * time.Minute},
		{Codes: []int{404, 200}, TTL: time.Minute},
		{Any: true, TTL: 5 * time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The first directive naming a status wins, as in NGINX.
	if byStatus[200] != 10*time.Minute || byStatus[302] != 10*time.Minute || byStatus[404] != time.Minute {
		t.Fatalf("%v", byStatus)
	}
	if !hasAny || anyTTL != 5*time.Second {
		t.Fatalf("any: %v %v", hasAny, anyTTL)
	}
}
