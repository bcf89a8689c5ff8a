package proxy_test

import (
	"bufio"
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

// get performs a GET and returns status and body.
func get(t *testing.T, url string, header ...string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b), resp.Header
}

// logBuffer collects log output from several goroutines.
type logBuffer struct{ syncbuf.Buffer }

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// rawOrigin is a TCP server whose connections a test handles by hand.
type rawOrigin struct {
	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
}

func newRawOrigin(t *testing.T, serve func(c net.Conn, br *bufio.Reader)) *rawOrigin {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o := &rawOrigin{ln: ln}
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			o.mu.Lock()
			o.conns = append(o.conns, c)
			o.mu.Unlock()
			o.wg.Add(1)
			go func() {
				defer o.wg.Done()
				defer c.Close()
				serve(c, bufio.NewReader(c))
			}()
		}
	}()
	t.Cleanup(o.close)
	return o
}

func (o *rawOrigin) addr() string { return o.ln.Addr().String() }

func (o *rawOrigin) close() {
	o.ln.Close()
	o.mu.Lock()
	for _, c := range o.conns {
		c.Close()
	}
	o.mu.Unlock()
	o.wg.Wait()
}

// refusedAddr is a loopback address nobody listens on.
func refusedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
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
