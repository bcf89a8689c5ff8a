package memcached_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testmemcached"
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
	s := testmemcached.Start(t)
	s.Set(t, "/x", 0, "x")
	c := &memcached.Client{Address: s.Addr, ReadTimeout: 200 * time.Millisecond}
	h := &memcached.Handler{Client: c, Logger: quiet}
	s.Signal(t, syscall.SIGSTOP)
	start := time.Now()
	resp, _ := get(t, h, "GET", "/x")
	s.Signal(t, syscall.SIGCONT)
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
