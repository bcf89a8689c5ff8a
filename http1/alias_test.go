package http1

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// seen is what a handler kept of its request: the strings the parse made
// from the header and the header's lines (RequestLines, which
// $http_*-style lookups, a mirror and a background update read after the
// handler has returned).
type seen struct {
	method, target, host, tag, lines string
	trailer                          string
}

// keepingHandler keeps every request's strings in order, reading the
// body (and so the trailer) first.
type keepingHandler struct {
	mu   sync.Mutex
	kept []seen
}

func (h *keepingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	s := seen{method: r.Method, target: r.RequestURI, host: r.Host, tag: r.Header.Get("X-Tag"),
		lines: w.(interface{ RequestLines() string }).RequestLines()}
	if r.Trailer != nil {
		s.trailer = r.Trailer.Get("X-Sum")
	}
	h.mu.Lock()
	h.kept = append(h.kept, s)
	h.mu.Unlock()
	_, _ = io.WriteString(w, r.RequestURI)
}

// check compares what the handler kept with what was sent, once every
// request has been served: a string that shared the connection's read
// buffer, reused for the requests after it, would show their bytes.
func (h *keepingHandler) check(t *testing.T, want []seen) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.kept) != len(want) {
		t.Fatalf("%d requests served, want %d", len(h.kept), len(want))
	}
	for i := range want {
		if h.kept[i] != want[i] {
			t.Errorf("request %d kept %+v, sent %+v", i, h.kept[i], want[i])
		}
	}
}

// tagged is a request of the same length and layout for every i, so that
// each lies where the one before lay in a reused read buffer.
func tagged(i int) (string, seen) {
	target := fmt.Sprintf("/r%04d", i)
	host := fmt.Sprintf("h%04d", i)
	tag := fmt.Sprintf("t%04d", i)
	lines := "Host: " + host + "\r\nX-Tag: " + tag + "\r\n"
	return "GET " + target + " HTTP/1.1\r\n" + lines + "\r\n",
		seen{method: "GET", target: target, host: host, tag: tag, lines: lines}
}

// A header parsed where it lies in the read buffer (headAtOnce) leaves
// strings that later requests on the connection, read into the same
// buffer, do not change: one request at a time, and pipelined past the
// buffer's 4 KB so that it is refilled under the earlier headers.
func TestHeaderTextOutlivesReadBuffer(t *testing.T) {
	t.Run("keep-alive", func(t *testing.T) {
		h := &keepingHandler{}
		ts := startServer(t, h)
		c := dial(t, ts.addr)
		var want []seen
		for i := range 20 {
			req, s := tagged(i)
			if _, body := c.roundTrip("GET", req); body != s.target {
				t.Fatalf("request %d answered %q", i, body)
			}
			want = append(want, s)
		}
		h.check(t, want)
	})
	t.Run("pipelined", func(t *testing.T) {
		h := &keepingHandler{}
		ts := startServer(t, h)
		c := dial(t, ts.addr)
		var all strings.Builder
		var want []seen
		for i := range 200 { // about 9 KB
			req, s := tagged(i)
			all.WriteString(req)
			want = append(want, s)
		}
		c.send(all.String())
		for i, s := range want {
			resp := c.response("GET")
			body, err := io.ReadAll(resp.Body)
			if err != nil || string(body) != s.target {
				t.Fatalf("request %d answered %q, %v", i, body, err)
			}
		}
		h.check(t, want)
	})
	t.Run("bodies", func(t *testing.T) {
		// A body, and a chunked body's trailer, in the buffer behind a
		// header, then the next request read into the same buffer.
		h := &keepingHandler{}
		ts := startServer(t, h)
		c := dial(t, ts.addr)
		var want []seen
		for i := range 10 {
			_, s := tagged(i)
			s.method = "POST"
			req := "POST " + s.target + " HTTP/1.1\r\n" + s.lines + "Content-Length: 5\r\n\r\nabcde"
			s.lines += "Content-Length: 5\r\n"
			if i%2 == 1 {
				s.lines = "Host: " + s.host + "\r\nX-Tag: " + s.tag + "\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n"
				s.trailer = fmt.Sprintf("s%04d", i)
				req = "POST " + s.target + " HTTP/1.1\r\n" + s.lines + "\r\n5\r\nabcde\r\n0\r\nX-Sum: " + s.trailer + "\r\n\r\n"
			}
			if _, body := c.roundTrip("POST", req); body != s.target {
				t.Fatalf("request %d answered %q", i, body)
			}
			want = append(want, s)
		}
		h.check(t, want)
	})
	t.Run("connections", func(t *testing.T) {
		// Buffers given back to the pool when a connection waits go to
		// whichever connection reads next.
		h := &keepingHandler{}
		ts := startServer(t, h)
		a, b := dial(t, ts.addr), dial(t, ts.addr)
		var want []seen
		for i := range 20 {
			c := a
			if i%2 == 1 {
				c = b
			}
			req, s := tagged(i)
			if _, body := c.roundTrip("GET", req); body != s.target {
				t.Fatalf("request %d answered %q", i, body)
			}
			want = append(want, s)
		}
		h.check(t, want)
	})
}
