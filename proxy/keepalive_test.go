package proxy_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/proxy"
)

// countingOrigin is an httptest origin that counts its TCP connections.
func countingOrigin(t *testing.T, h http.HandlerFunc) (*httptest.Server, *connCounter) {
	t.Helper()
	cc := &connCounter{}
	s := httptest.NewUnstartedServer(h)
	s.Config.ConnState = cc.hook
	s.Start()
	t.Cleanup(s.Close)
	return s, cc
}

var keepaliveHeaders = []proxy.Header{proxy.Static("Connection", "")}

func TestKeepaliveReuse(t *testing.T) {
	tests := []struct {
		name      string
		keepalive int
		version   string
		headers   []proxy.Header
		wantConns int
	}{
		{"keepalive with HTTP/1.1 and Connection cleared", 4, "1.1", keepaliveHeaders, 1},
		{"no keepalive directive", 0, "1.1", keepaliveHeaders, 10},
		{"HTTP/1.0", 4, "1.0", keepaliveHeaders, 10},
		{"default Connection: close", 4, "1.1", nil, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			origin, cc := countingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, "hello")
			})
			up := mustUpstream(t, "backend", tt.keepalive, server(hostOf(origin)))
			f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up, HTTPVersion: tt.version, SetHeaders: tt.headers}))
			for i := 0; i < 10; i++ {
				if status, body, _ := get(t, f.URL+"/"); status != 200 || body != "hello" {
					t.Fatalf("request %d: %d %q", i, status, body)
				}
			}
			if got := cc.count(); got != tt.wantConns {
				t.Errorf("origin saw %d connections, want %d", got, tt.wantConns)
			}
		})
	}
}

func TestKeepaliveBoundsIdleConnections(t *testing.T) {
	const parallel = 5
	var arrived sync.WaitGroup
	release := make(chan struct{})
	origin, cc := countingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			arrived.Done()
			<-release
		}
		io.WriteString(w, "ok")
	})
	up := mustUpstream(t, "backend", 2, server(hostOf(origin)))
	f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up, HTTPVersion: "1.1", SetHeaders: keepaliveHeaders}))

	batch := func() {
		arrived.Add(parallel)
		var done sync.WaitGroup
		for i := 0; i < parallel; i++ {
			done.Add(1)
			go func() {
				defer done.Done()
				resp, err := http.Get(f.URL + "/hold")
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
		}
		arrived.Wait()
		release <- struct{}{}
		for i := 1; i < parallel; i++ {
			release <- struct{}{}
		}
		done.Wait()
	}
	batch()
	if got := cc.count(); got != parallel {
		t.Fatalf("first batch opened %d connections, want %d", got, parallel)
	}
	if idle := proxy.IdleConns(up); idle != 2 {
		t.Errorf("%d idle connections kept, want keepalive=2", idle)
	}
	batch()
	if got := cc.count(); got != parallel+parallel-2 {
		t.Errorf("after second batch %d connections, want %d (2 reused)", got, 2*parallel-2)
	}
}

func TestKeepaliveRequestsAndTimeout(t *testing.T) {
	origin, cc := countingOrigin(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	up := mustUpstream(t, "backend", 4, server(hostOf(origin)))
	up.KeepaliveRequests = 3
	f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up, HTTPVersion: "1.1", SetHeaders: keepaliveHeaders}))
	for i := 0; i < 7; i++ {
		get(t, f.URL+"/")
	}
	if got := cc.count(); got != 3 {
		t.Errorf("7 requests at 3 per connection used %d connections, want 3", got)
	}

	up.KeepaliveTimeout = 50 * time.Millisecond
	get(t, f.URL+"/")
	before := cc.count()
	time.Sleep(120 * time.Millisecond)
	get(t, f.URL+"/")
	if got := cc.count(); got != before+1 {
		t.Errorf("connection idle past keepalive_timeout reused (%d -> %d)", before, got)
	}
}

// serveKeepalive answers requests on c with a kept-alive response until
// stop says otherwise for the n-th request on this connection.
func serveKeepalive(c net.Conn, br *bufio.Reader, stop func(n int) bool) {
	serveKeepaliveN(c, br, 0, stop)
}

// serveKeepaliveN is serveKeepalive for at most max requests (0: no limit).
func serveKeepaliveN(c net.Conn, br *bufio.Reader, max int, stop func(n int) bool) {
	for n := 1; max == 0 || n <= max; n++ {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		io.Copy(io.Discard, req.Body)
		if stop(n) {
			return
		}
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	}
}

func TestStaleKeepaliveConnections(t *testing.T) {
	t.Run("closed while idle", func(t *testing.T) {
		var mu sync.Mutex
		conns := 0
		o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
			mu.Lock()
			conns++
			mu.Unlock()
			// One kept-alive response, then the origin closes the connection.
			serveKeepaliveN(c, br, 1, func(int) bool { return false })
		})
		up := mustUpstream(t, "backend", 4, server(o.Addr()))
		f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up, HTTPVersion: "1.1", SetHeaders: keepaliveHeaders}))
		for i := 0; i < 3; i++ {
			if status, body, _ := get(t, f.URL+"/"); status != 200 || body != "ok" {
				t.Fatalf("request %d: %d %q", i, status, body)
			}
			time.Sleep(20 * time.Millisecond) // let the origin close its side
		}
		mu.Lock()
		defer mu.Unlock()
		if conns != 3 {
			t.Errorf("%d connections, want 3", conns)
		}
	})
	t.Run("closed as the request arrives", func(t *testing.T) {
		o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
			// The second request on a connection is read, then dropped.
			serveKeepalive(c, br, func(n int) bool { return n == 2 })
		})
		up := mustUpstream(t, "backend", 4, server(o.Addr()))
		f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up, HTTPVersion: "1.1", SetHeaders: keepaliveHeaders}))
		for i := 0; i < 3; i++ {
			if status, body, _ := get(t, f.URL+"/"); status != 200 || body != "ok" {
				t.Fatalf("request %d: %d %q", i, status, body)
			}
			if got := f.lastVar("upstream_status"); got != "200" {
				t.Errorf("request %d: $upstream_status %q, want a single 200", i, got)
			}
		}
	})
}

func TestKeepaliveWithBodiesAndHEAD(t *testing.T) {
	origin, cc := countingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.Header().Set("Content-Length", "1000")
			return
		}
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %s", r.Method, b)
	})
	up := mustUpstream(t, "backend", 2, server(hostOf(origin)))
	f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up, HTTPVersion: "1.1", SetHeaders: keepaliveHeaders}))
	for i := 0; i < 3; i++ {
		resp, err := http.Head(f.URL + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.ContentLength != 1000 {
			t.Errorf("HEAD: %d, length %d", resp.StatusCode, resp.ContentLength)
		}
		body := fmt.Sprintf("body-%d", i)
		// An unknown length goes chunked, a known one with Content-Length.
		var rd io.Reader = io.MultiReader(strings.NewReader(body))
		if i%2 == 1 {
			rd = strings.NewReader(body)
		}
		resp, err = http.Post(f.URL+"/", "text/plain", rd)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != "POST "+body {
			t.Errorf("POST answered %q", got)
		}
	}
	if got := cc.count(); got != 1 {
		t.Errorf("%d connections, want 1 reused throughout", got)
	}
}

// TestKeepaliveTime: a connection open longer than KeepaliveTime is not
// kept after its response (keepalive_time), one within it is.
func TestKeepaliveTime(t *testing.T) {
	for _, tc := range []struct {
		life  time.Duration
		conns int
	}{{time.Hour, 1}, {time.Nanosecond, 3}} {
		origin, cc := countingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "hello")
		})
		up := mustUpstream(t, "backend", 4, server(hostOf(origin)))
		up.KeepaliveTime = tc.life
		f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up, HTTPVersion: "1.1", SetHeaders: keepaliveHeaders}))
		for range 3 {
			if status, _, _ := get(t, f.URL+"/"); status != 200 {
				t.Fatalf("status %d", status)
			}
		}
		if got := cc.count(); got != tc.conns {
			t.Errorf("keepalive_time %v: %d connections, want %d", tc.life, got, tc.conns)
		}
	}
}

// TestBytesWhileIdleNotAnAnswer: an origin that writes where no body
// belongs (after a HEAD's head, after a 204, past its Content-Length)
// does it a moment after the response, once the connection is back in
// the pool. Another client's request must not get those bytes as its
// response: the idle connection is checked before any reuse and closed.
func TestBytesWhileIdleNotAnAnswer(t *testing.T) {
	for _, tc := range []struct {
		name, method, head string
	}{
		{"HEAD with a body", "HEAD", "HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n"},
		{"204 with a body", "GET", "HTTP/1.1 204 No Content\r\n\r\n"},
		{"more than Content-Length", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := testorigin.NewRaw(t, testorigin.StrayAfter(tc.head))
			up := mustUpstream(t, "backend", 4, server(o.Addr()))
			f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up, HTTPVersion: "1.1", SetHeaders: keepaliveHeaders}))
			req, _ := http.NewRequest(tc.method, f.URL+"/first", nil)
			if resp, err := f.Client().Do(req); err != nil {
				t.Fatal(err)
			} else {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			time.Sleep(40 * time.Millisecond) // the stray bytes arrive
			if status, body, _ := get(t, f.URL+"/victim"); status != 200 || body != "victim-reply" {
				t.Errorf("the next request got %d %q, want the origin's answer to it", status, body)
			}
		})
	}
}

// TestStaleRetryAsNextUpstream: a request on a kept-alive connection that
// the origin reads and then closes without a byte of answer is sent again
// on a new connection only where proxy_next_upstream would let an error go
// on, as NGINX does: not a POST (the origin may have acted on it), not
// with proxy_next_upstream off. Either way the client gets 502 and the
// origin saw the request once.
func TestStaleRetryAsNextUpstream(t *testing.T) {
	for _, tc := range []struct {
		name   string
		method string
		next   proxy.NextUpstream
	}{
		{"POST", http.MethodPost, 0},
		{"GET with proxy_next_upstream off", http.MethodGet, proxy.NextOff},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen, conns atomic.Int32
			o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
				first := conns.Add(1) == 1
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					if req.URL.Path == "/act" {
						seen.Add(1)
						if first {
							return // acted on it, then went away
						}
					}
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				}
			})
			up := mustUpstream(t, "backend", 4, server(o.Addr()))
			f := newFront(t, proxyTo(t, "http://backend", proxy.Options{
				Upstream: up, HTTPVersion: "1.1", SetHeaders: keepaliveHeaders,
				RequestBuffering: true, NextUpstream: tc.next,
			}))
			if status, _, _ := get(t, f.URL+"/"); status != 200 {
				t.Fatalf("first request: %d", status)
			}
			req, _ := http.NewRequest(tc.method, f.URL+"/act", strings.NewReader("amount=100"))
			resp, err := f.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if n := seen.Load(); n != 1 || resp.StatusCode != 502 {
				t.Errorf("the origin saw the request %d times, the client got %d; want once and 502", n, resp.StatusCode)
			}
		})
	}
}

// TestClientConnectionCloseKeepsUpstream: a client's "Connection: close"
// (and the fields it names, now passed as NGINX passes them) ends the
// client's connection only: it is not sent upstream, and the upstream
// connection stays in the keepalive pool for the next request.
func TestClientConnectionCloseKeepsUpstream(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	origin, cc := countingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, fmt.Sprintf("close=%v connection=%q x-hop=%q", r.Close, r.Header["Connection"], r.Header.Get("X-Hop")))
		mu.Unlock()
		io.WriteString(w, "hello")
	})
	up := mustUpstream(t, "backend", 4, server(hostOf(origin)))
	f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up, HTTPVersion: "1.1", SetHeaders: keepaliveHeaders}))
	for i := 0; i < 5; i++ {
		resp, body := rawRequest(t, hostOf(f.Server), "GET / HTTP/1.1\r\nHost: a\r\nX-Hop: h\r\nConnection: close, X-Hop\r\n\r\n")
		if resp.StatusCode != 200 || body != "hello" {
			t.Fatalf("request %d: %d %q", i, resp.StatusCode, body)
		}
	}
	if got := cc.count(); got != 1 {
		t.Errorf("origin saw %d connections, want 1", got)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, s := range seen {
		if s != `close=false connection=[] x-hop="h"` {
			t.Errorf("origin got %s", s)
		}
	}
}
