package memcached_test

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testmemcached"
	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/memcached"
)

var quiet = slog.New(slog.DiscardHandler)

func get(t *testing.T, h http.Handler, method, target string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	resp := rec.Result()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func totalConns(t *testing.T, s *testmemcached.Server) int {
	n, err := strconv.Atoi(s.Stats(t)["total_connections"])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestHandlerWithMemcached runs a Handler in front of the real memcached:
// hits, a miss, the gzip flag, keys escaped, connections reused.
func TestHandlerWithMemcached(t *testing.T) {
	s := testmemcached.Start(t)
	s.Set(t, "/page.html", 0, "<p>hello</p>")
	s.Set(t, "/data.gz", 2, "gzipped")
	s.Set(t, "/a%20b%01%25\u00e9", 0, "escaped")
	c := &memcached.Client{Address: s.Addr, GzipFlag: 2, MaxIdle: 1}
	defer c.Close()
	h := &memcached.Handler{Client: c, Logger: quiet}

	before := totalConns(t, s)
	resp, body := get(t, h, "GET", "/page.html")
	if resp.StatusCode != 200 || body != "<p>hello</p>" || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" ||
		resp.Header.Get("Content-Length") != "12" || resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("hit: %d %v %q", resp.StatusCode, resp.Header, body)
	}
	resp, body = get(t, h, "GET", "/data.gz")
	if resp.StatusCode != 200 || body != "gzipped" || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("gzip flag: %d %v %q", resp.StatusCode, resp.Header, body)
	}
	resp, body = get(t, h, "GET", "/a%20b%01%25%C3%A9")
	if resp.StatusCode != 200 || body != "escaped" {
		t.Errorf("escaped key: %d %q", resp.StatusCode, body)
	}
	if resp, _ = get(t, h, "GET", "/missing"); resp.StatusCode != 404 {
		t.Errorf("miss: %d", resp.StatusCode)
	}
	if resp, body = get(t, h, "HEAD", "/page.html"); resp.StatusCode != 200 || body != "" || resp.Header.Get("Content-Length") != "12" {
		t.Errorf("HEAD: %d %v %q", resp.StatusCode, resp.Header, body)
	}
	if resp, _ = get(t, h, "POST", "/page.html"); resp.StatusCode != 405 {
		t.Errorf("POST: %d", resp.StatusCode)
	}
	// The gets and the HEAD went over one connection (the HEAD closes
	// it, its value unread); Stats opens one of its own.
	if n := totalConns(t, s) - before; n != 2 {
		t.Errorf("%d connections opened, want 1 for the requests and 1 for stats", n)
	}
	if resp, _ = get(t, h, "GET", "/page.html"); resp.StatusCode != 200 {
		t.Errorf("after the HEAD: %d", resp.StatusCode)
	}
	if n := totalConns(t, s) - before; n != 4 {
		t.Errorf("%d connections opened, want a new one after the HEAD", n)
	}

	long := "/" + strings.Repeat("k", 250)
	if resp, _ = get(t, h, "GET", long); resp.StatusCode != 502 {
		t.Errorf("key over 250 bytes: %d, want memcached's CLIENT_ERROR as 502", resp.StatusCode)
	}
	h.NotFound = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "fallback") })
	if resp, body = get(t, h, "GET", "/missing"); resp.StatusCode != 200 || body != "fallback" {
		t.Errorf("miss with NotFound: %d %q", resp.StatusCode, body)
	}
	h.Key = func(*http.Request) string { return "" }
	if resp, _ = get(t, h, "GET", "/page.html"); resp.StatusCode != 500 {
		t.Errorf("no key: %d", resp.StatusCode)
	}
}

// TestHandlerMemcachedSlowOrGone: a memcached stopped with SIGSTOP does
// not answer (504 after the read timeout), a killed one cannot be reached
// (502).
func TestHandlerMemcachedSlowOrGone(t *testing.T) {
	if sigStop == nil {
		t.Skip("no SIGSTOP on this platform")
	}
	s := testmemcached.Start(t)
	s.Set(t, "/x", 0, "x")
	c := &memcached.Client{Address: s.Addr, ReadTimeout: 200 * time.Millisecond}
	h := &memcached.Handler{Client: c, Logger: quiet}
	s.Signal(t, sigStop)
	start := time.Now()
	resp, _ := get(t, h, "GET", "/x")
	s.Signal(t, sigCont)
	if resp.StatusCode != 504 || time.Since(start) < 200*time.Millisecond {
		t.Errorf("memcached stopped: %d after %v", resp.StatusCode, time.Since(start))
	}
	if resp, _ = get(t, h, "GET", "/x"); resp.StatusCode != 200 {
		t.Errorf("memcached continued: %d", resp.StatusCode)
	}
	s.Stop()
	if resp, _ = get(t, h, "GET", "/x"); resp.StatusCode != 502 {
		t.Errorf("memcached gone: %d", resp.StatusCode)
	}
}

// TestClientDropsClosedIdleConnection: a server that closes an idle
// connection (memcached restarted, its idle_timeout, a proxy in front)
// must not fail the next get, as NGINX's keepalive pool closes such a
// connection when it learns of it; a connection with bytes nobody asked
// for is not reused either.
func TestClientDropsClosedIdleConnection(t *testing.T) {
	var conns atomic.Int32
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		n := conns.Add(1)
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		key := strings.TrimSuffix(strings.TrimPrefix(line, "get "), "\r\n")
		fmt.Fprintf(c, "VALUE %s 0 2\r\nok\r\nEND\r\n", key)
		if n == 2 {
			// A stray answer while the connection is idle, then the
			// connection stays open.
			time.Sleep(20 * time.Millisecond)
			io.WriteString(c, "VALUE /c 0 5\r\nstale\r\nEND\r\n")
			_, _ = br.ReadString('\n')
		}
		// Otherwise: closed once the answer has gone.
	})
	c := &memcached.Client{Address: o.Addr(), MaxIdle: 1, ReadTimeout: time.Second}
	defer c.Close()
	h := &memcached.Handler{Client: c, Logger: quiet}
	for _, key := range []string{"/a", "/b", "/c"} {
		if resp, body := get(t, h, "GET", key); resp.StatusCode != 200 || body != "ok" {
			t.Errorf("%s: %d %q, want 200 \"ok\" on a new connection", key, resp.StatusCode, body)
		}
		time.Sleep(100 * time.Millisecond) // the server closes, or sends its stray answer
	}
	if n := conns.Load(); n != 3 {
		t.Errorf("%d connections for 3 gets, each after a closed or stray one", n)
	}
}
