package cache_test

import (
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/vars"
)

// origin is a loopback HTTP server that counts the requests it answers.
type origin struct {
	*httptest.Server
	hits atomic.Int64
	mu   sync.Mutex
	last *http.Request
}

func newOrigin(t testing.TB, h http.HandlerFunc) *origin {
	t.Helper()
	o := &origin{}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.hits.Add(1)
		o.mu.Lock()
		o.last = r.Clone(r.Context())
		o.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(o.Close)
	return o
}

// newProxy is a reverse proxy to target that reports unreachable origins
// to the cache, as the server wires mosaic's proxy to it.
func newProxy(t testing.TB, target string) http.Handler {
	t.Helper()
	p, err := reverseProxy(target)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func reverseProxy(target string) (http.Handler, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	p := httputil.NewSingleHostReverseProxy(u)
	// No transparent gzip (the tests look at Accept-Encoding), and no retry
	// of a request whose kept-alive connection the origin closed (the tests
	// count origin requests).
	p.Transport = &http.Transport{DisableCompression: true, DisableKeepAlives: true}
	p.ErrorLog = log.New(io.Discard, "", 0)
	p.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		cache.ReportFailure(w, cache.FailError)
		w.WriteHeader(http.StatusBadGateway)
	}
	return p, nil
}

// clock is a settable time source for the cache's freshness decisions.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Now()} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// front is a cache in front of an origin, served on loopback.
type front struct {
	*httptest.Server
	cache  *cache.Cache
	store  cache.Store
	origin *origin
	clock  *clock
}

func newFront(t testing.TB, o *origin, opts cache.Options) *front {
	t.Helper()
	return newFrontClock(t, o, opts, newClock())
}

// newFrontClock is newFront with the cache reading time from clk.
func newFrontClock(t testing.TB, o *origin, opts cache.Options, clk *clock) *front {
	t.Helper()
	if opts.Store == nil {
		s, err := cache.NewMemoryStore(cache.MemoryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		opts.Store = s
	}
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	c, err := cache.New(newProxy(t, o.URL), opts)
	if err != nil {
		t.Fatal(err)
	}
	cache.SetClock(c, clk.Now)
	srv := httptest.NewServer(echoCacheStatus(c))
	t.Cleanup(func() {
		srv.Close()
		cache.WaitBackground(c)
	})
	return &front{Server: srv, cache: c, store: opts.Store, origin: o, clock: clk}
}

// response is what a test request got.
type response struct {
	status int
	header http.Header
	body   string
}

func (r response) cacheStatus() string { return r.header.Get("X-Test-Cache") }

// do sends a request through the front; extra is header name/value pairs.
func (f *front) do(t testing.TB, method, path string, extra ...string) response {
	t.Helper()
	resp, body := testclient.Do(t, method, f.URL+path, extra...)
	return response{status: resp.StatusCode, header: resp.Header, body: body}
}

func (f *front) get(t testing.TB, path string, extra ...string) response {
	t.Helper()
	return f.do(t, http.MethodGet, path, extra...)
}

// echoCacheStatus runs h with per-request variables, as the server does,
// and copies $upstream_cache_status into an X-Test-Cache response header
// when the header goes out, so that tests read what the server would log.
func echoCacheStatus(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := &vars.State{}
		h.ServeHTTP(&statusEcho{ResponseWriter: w, st: st}, r.WithContext(vars.NewContext(r.Context(), st)))
	})
}

type statusEcho struct {
	http.ResponseWriter
	st    *vars.State
	wrote bool
}

func (e *statusEcho) WriteHeader(code int) {
	if !e.wrote {
		e.wrote = true
		if v, ok := e.st.Get("upstream_cache_status"); ok {
			e.Header().Set("X-Test-Cache", v)
		}
	}
	e.ResponseWriter.WriteHeader(code)
}

func (e *statusEcho) Write(p []byte) (int, error) {
	if !e.wrote {
		e.WriteHeader(http.StatusOK)
	}
	return e.ResponseWriter.Write(p)
}

func (e *statusEcho) Flush() { e.ResponseWriter.(http.Flusher).Flush() }

func (e *statusEcho) Unwrap() http.ResponseWriter { return e.ResponseWriter }

// quiet discards logs the tests provoke on purpose.
var quiet = slog.New(slog.DiscardHandler)

// newServer serves h on loopback for the test's lifetime.
func newServer(t testing.TB, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}
