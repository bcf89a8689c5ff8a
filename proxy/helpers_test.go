package proxy_test

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/syncbuf"
	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/vars"
)

// front is a loopback server running a proxy Handler, with a vars.State
// in every request so tests can read the variables the proxy publishes.
type front struct {
	*httptest.Server
	mu     sync.Mutex
	states []*vars.State
}

func newFront(t *testing.T, h http.Handler) *front {
	t.Helper()
	f := &front{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := &vars.State{Start: time.Now()}
		f.mu.Lock()
		f.states = append(f.states, st)
		f.mu.Unlock()
		h.ServeHTTP(w, r.WithContext(vars.NewContext(r.Context(), st)))
	}))
	t.Cleanup(f.Close)
	return f
}

// lastVar returns a variable of the latest request.
func (f *front) lastVar(name string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.states) == 0 {
		return ""
	}
	v, _ := f.states[len(f.states)-1].Get(name)
	return v
}

// waitVar polls a variable of the latest request until it has the wanted
// value or two seconds have passed, and returns its last value.
func (f *front) waitVar(name, want string) string {
	deadline := time.Now().Add(2 * time.Second)
	for {
		got := f.lastVar(name)
		if got == want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// proxyTo builds a Handler for target with opts, failing the test on error.
func proxyTo(t *testing.T, target string, opts proxy.Options) *proxy.Handler {
	t.Helper()
	p, err := proxy.ParsePass(target)
	if err != nil {
		t.Fatal(err)
	}
	opts.Pass = p
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	h, err := proxy.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// mustUpstream builds an upstream group, failing the test on error.
func mustUpstream(t *testing.T, name string, keepalive int, servers ...proxy.Server) *proxy.Upstream {
	t.Helper()
	u, err := proxy.NewUpstream(name, servers, keepalive)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(u.CloseIdle)
	return u
}

// server is a Server with NGINX's default parameters.
func server(addr string) proxy.Server {
	return proxy.Server{Addr: addr, Weight: 1, MaxFails: 1, FailTimeout: proxy.DefaultFailTimeout}
}

// hostOf is the host:port of an httptest server.
func hostOf(s *httptest.Server) string {
	return strings.TrimPrefix(s.URL, "http://")
}

// get performs a GET with header name/value pairs and returns status,
// body and header.
func get(t *testing.T, url string, header ...string) (int, string, http.Header) {
	t.Helper()
	resp, body := testclient.Get(t, url, header...)
	return resp.StatusCode, body, resp.Header
}

// logBuffer collects log output from several goroutines.
type logBuffer struct{ syncbuf.Buffer }

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// connCounter counts the TCP connections an httptest origin accepts.
type connCounter struct {
	mu sync.Mutex
	n  int
}

func (c *connCounter) hook(_ net.Conn, s http.ConnState) {
	if s == http.StateNew {
		c.mu.Lock()
		c.n++
		c.mu.Unlock()
	}
}

func (c *connCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
