package http1

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A CONNECT request's authority is its host, whatever Host says; an
// authority with a path is refused.
func TestParseConnectAuthority(t *testing.T) {
	var r http.Request
	if err := parseHead("CONNECT a.example:443 HTTP/1.1\r\nHost: b.example", &r, new(reqMem), fieldCap{}); err != nil {
		t.Fatal(err)
	}
	if r.Host != "a.example:443" || r.URL.Host != "a.example:443" {
		t.Errorf("Host %q, URL.Host %q", r.Host, r.URL.Host)
	}
	var bad http.Request
	err := parseHead("CONNECT a/b HTTP/1.1\r\nHost: b.example", &bad, new(reqMem), fieldCap{})
	if re, ok := err.(*requestError); !ok || re.status != http.StatusBadRequest {
		t.Errorf("CONNECT a/b: %v", err)
	}
}

// "close" wins over "keep-alive" in an HTTP/1.0 request.
func TestParseHTTP10CloseWins(t *testing.T) {
	var r http.Request
	if err := parseHead("GET / HTTP/1.0\r\nConnection: keep-alive, close", &r, new(reqMem), fieldCap{}); err != nil {
		t.Fatal(err)
	}
	if !r.Close {
		t.Error("Close = false")
	}
}

// Two Shutdowns at once both return when the last request is done.
func TestServeConcurrentShutdowns(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
	}))
	c := dial(t, ts.addr)
	c.send(get("/"))
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- ts.Shutdown(ctx) }()
	}
	for !ts.closing.Load() {
		runtime.Gosched() // until a Shutdown has begun
	}
	close(release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("Shutdown = %v", err)
		}
	}
}

// Serve closes its listener when it returns, even when the server was
// closed before it started.
func TestServeClosesListener(t *testing.T) {
	s := &Server{Handler: http.NotFoundHandler(), Logger: quietLogger}
	_ = s.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		t.Fatalf("Serve = %v", err)
	}
	if _, err := ln.Accept(); err == nil {
		t.Error("listener still open")
	}
}

// A source longer than the declared Content-Length is an error, through
// the buffer and through the socket's own ReadFrom.
func TestServeReadFromBeyondContentLength(t *testing.T) {
	errs := make(chan error, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := strings.Repeat("x", 100<<10)
		if r.URL.Path == "/small" {
			body = "hello world"
		}
		w.Header().Set("Content-Length", "5")
		_, err := w.(io.ReaderFrom).ReadFrom(&io.LimitedReader{R: strings.NewReader(body), N: int64(len(body))})
		errs <- err
	}))
	for _, path := range []string{"/small", "/large"} {
		c := dial(t, ts.addr)
		_, body := c.roundTrip("GET", get(path))
		if err := <-errs; !errors.Is(err, http.ErrContentLength) {
			t.Errorf("%s: ReadFrom = %v, want http.ErrContentLength", path, err)
		}
		if body != "hello" && body != "xxxxx" {
			t.Errorf("%s: body %q", path, body)
		}
	}
}

// A request trailer with a control character fails the body read.
func TestServeBadTrailerValue(t *testing.T) {
	errs := make(chan error, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		errs <- err
	}))
	c := dial(t, ts.addr)
	c.send("POST / HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\nTrailer: X-T\r\n\r\n" +
		"1\r\na\r\n0\r\nX-T: a\x00b\r\n\r\n")
	if err := <-errs; err == nil {
		t.Error("a trailer value with NUL was accepted")
	}
}

// Changes to the header after WriteHeader do not go out.
func TestServeHeaderAfterWriteHeader(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.Header().Set("X-After", "1")
		_, _ = io.WriteString(w, "ok")
	}))
	c := dial(t, ts.addr)
	resp, body := c.roundTrip("GET", get("/"))
	if body != "ok" || resp.Header.Get("X-After") != "" {
		t.Errorf("body %q, X-After %q", body, resp.Header.Get("X-After"))
	}
}

// Handlers abort a body cut off upstream with panic(http.ErrAbortHandler)
// when they find a server in the context: the client then sees a
// truncated response, never one that passes for complete.
func TestServeAbortConvention(t *testing.T) {
	for _, flush := range []bool{false, true} {
		ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "partial upstream body")
			if flush {
				w.(http.Flusher).Flush()
			}
			if r.Context().Value(http.ServerContextKey) != nil {
				panic(http.ErrAbortHandler)
			}
		}))
		c := dial(t, ts.addr)
		c.send(get("/"))
		got, _ := io.ReadAll(c.br)
		switch {
		case !flush && len(got) != 0:
			t.Errorf("unflushed: the client got %q", got)
		case flush && (!strings.Contains(string(got), "partial upstream body") || strings.HasSuffix(string(got), "0\r\n\r\n")):
			t.Errorf("flushed: the client got %q, want the chunks without the last one", got)
		}
	}
}

// A read deadline the handler set for the body does not end the watch
// and cancel a request whose client is still there.
func TestServeWatchOutlivesBodyDeadline(t *testing.T) {
	res := make(chan error, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		_, _ = io.ReadAll(r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(300 * time.Millisecond): // a slow upstream
		}
		res <- r.Context().Err()
		_, _ = io.WriteString(w, "done")
	}))
	c := dial(t, ts.addr)
	_, body := c.roundTrip("POST", "POST / HTTP/1.1\r\nHost: test\r\nContent-Length: 2\r\n\r\nhi")
	if err := <-res; err != nil || body != "done" {
		t.Errorf("context: %v, body %q", err, body)
	}
}

// A connection that closes after the response is not drained of the rest
// of the body first: the client sees the end at once, and Shutdown does
// not wait for a body that may never come.
func TestServeNoDrainWhenClosing(t *testing.T) {
	for _, tc := range []struct {
		name, req string
		keepAlive time.Duration
	}{
		{"keep-alive off", "POST / HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\n0123456789", 0},
		{"HTTP/1.0", "POST / HTTP/1.0\r\nContent-Length: 100\r\n\r\n0123456789", time.Minute},
		{"Connection: close", "POST / HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Length: 100\r\n\r\n0123456789", time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.WriteString(w, "ok")
			}), func(s *Server) { s.KeepAliveTimeout = tc.keepAlive })
			c := dial(t, ts.addr)
			resp, body := c.roundTrip("POST", tc.req)
			if body != "ok" || !resp.Close {
				t.Fatalf("body %q, close %v", body, resp.Close)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if err := ts.Shutdown(ctx); err != nil {
				t.Errorf("Shutdown = %v", err)
			}
			c.expectClosed()
		})
	}
}

// A response to a client still uploading arrives whole: the server stops
// sending and reads what comes before it closes, where closing with
// unread data would reset the connection and lose the response.
//
// The client reads once the handler has returned, with body bytes the
// server has not read: on a 6.18 kernel the server's socket takes the
// whole answer (Linux grows a loopback send buffer to tcp_wmem's 4 MiB),
// so that a server that then closes without lingering resets the
// connection with most of it unread. Read at once, the answer often came
// whole before that close: a server that never lingered passed 6 runs of
// 20 (2 of 30 with the body's start sent first, 0 of 30 with both).
// Where the kernel holds less, the handler returns only as the client
// reads, and the client reads after 2 s.
func TestServeLingeringClose(t *testing.T) {
	const size = 2 << 20
	wrote := make(chan struct{})
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(wrote)
		w.Header().Set("Content-Length", strconv.Itoa(size))
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		_, _ = w.Write(make([]byte, size))
	}))
	nc := clientConn(t, dialSmallWindow(t, ts.addr))
	defer nc.Close()
	// The start of the body goes with the head, so that the server has
	// some unread when it closes; the rest is still coming.
	if _, err := io.WriteString(nc, "POST / HTTP/1.1\r\nHost: test\r\nContent-Length: 100000000\r\n\r\n"+strings.Repeat("b", 32<<10)); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = nc.Write(make([]byte, 1<<20)) }() // still uploading
	select {
	case <-wrote:
	case <-time.After(2 * time.Second):
	}
	resp, err := http.ReadResponse(bufio.NewReader(nc), nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || n != size || err != nil {
		t.Errorf("status %d, %d of %d bytes, %v", resp.StatusCode, n, size, err)
	}
}

// Interim responses go to HTTP/1.1 clients only, without the fields that
// describe a body or the connection.
func TestServeInformational(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</a.css>; rel=preload")
		w.Header().Set("Content-Length", "2")
		w.WriteHeader(http.StatusEarlyHints)
		_, _ = io.WriteString(w, "ok")
	}))
	c := dial(t, ts.addr)
	c.send(get("/"))
	hints := c.rawHead()
	if hints[0] != "HTTP/1.1 103 Early Hints" {
		t.Fatalf("first response %q", hints)
	}
	if _, n := field(hints, "Link"); n != 1 {
		t.Errorf("103 without Link: %q", hints)
	}
	if _, n := field(hints, "Content-Length"); n != 0 {
		t.Errorf("103 with Content-Length: %q", hints)
	}
	if resp := c.response("GET"); resp.StatusCode != http.StatusOK {
		t.Errorf("final status %d", resp.StatusCode)
	}

	old := dial(t, ts.addr)
	old.send("GET / HTTP/1.0\r\n\r\n")
	if head := old.rawHead(); head[0] != "HTTP/1.1 200 OK" {
		t.Errorf("HTTP/1.0 client got %q first", head[0])
	}
}

// A server without a handler serves http.DefaultServeMux, as net/http's.
func TestServeNilHandler(t *testing.T) {
	ts := startServer(t, nil)
	c := dial(t, ts.addr)
	if resp, _ := c.roundTrip("GET", get("/no-such-path-registered")); resp.StatusCode != http.StatusNotFound {
		t.Errorf("status %d", resp.StatusCode)
	}
}

// WriteTimeout bounds each write of a response to a client that stopped
// reading; a handler's own write deadline replaces it.
func TestServeWriteTimeout(t *testing.T) {
	const size = 16 << 20
	errs := make(chan error, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/own" {
			_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(testTimeout))
		}
		w.Header().Set("Content-Length", strconv.Itoa(size))
		chunk := make([]byte, 64<<10)
		var err error
		for sent := 0; sent < size && err == nil; sent += len(chunk) {
			_, err = w.Write(chunk)
		}
		errs <- err
	}), func(s *Server) { s.WriteTimeout = 200 * time.Millisecond })
	for _, path := range []string{"/", "/own"} {
		c := dial(t, ts.addr)
		_ = socket(c.c).SetReadBuffer(64 << 10)
		c.send(get(path))
		time.Sleep(time.Second) // not reading
		resp := c.response("GET")
		n, _ := io.Copy(io.Discard, resp.Body)
		err := <-errs
		switch {
		case path == "/" && (err == nil || n >= size):
			t.Errorf("%s: the handler's writes ended with %v, the client got %d bytes", path, err, n)
		case path == "/own" && (err != nil || n != size):
			t.Errorf("%s: the handler's writes ended with %v, the client got %d of %d bytes", path, err, n, size)
		}
	}
}

// A body handed to ReadFrom as a *net.Buffers arrives whole, with a known
// length and chunked, small and large.
func TestServeReadFromBuffers(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		var bufs net.Buffers
		for i := range n {
			bufs = append(bufs, bytes.Repeat([]byte{byte('a' + i%26)}, 16<<10))
		}
		if r.URL.Query().Get("cl") != "" {
			w.Header().Set("Content-Length", strconv.Itoa(1+n*16<<10))
		}
		_, _ = io.WriteString(w, "<")
		if _, err := w.(io.ReaderFrom).ReadFrom(&bufs); err != nil || len(bufs) != 0 {
			t.Errorf("ReadFrom: %v, %d slices left", err, len(bufs))
		}
	}))
	for _, q := range []string{"n=1", "n=7", "n=7&cl=1"} {
		c := dial(t, ts.addr)
		_, body := c.roundTrip("GET", get("/?"+q))
		n, _ := strconv.Atoi(q[2:3])
		var want strings.Builder
		want.WriteString("<")
		for i := range n {
			want.WriteString(strings.Repeat(string(rune('a'+i%26)), 16<<10))
		}
		if body != want.String() {
			t.Errorf("%s: %d bytes, want %d", q, len(body), want.Len())
		}
	}
}

// TestHeadBuffered holds the test of whether the read buffer holds a whole
// request header (which decides whether the next request's header gets
// client_header_timeout) to the end of the header in either line ending.
func TestHeadBuffered(t *testing.T) {
	for in, want := range map[string]bool{
		"":                                     false,
		"GET / HTTP/1.1\r\n":                   false,
		"GET / HTTP/1.1\r\nHost: a\r\n":        false,
		"GET / HTTP/1.1\r\nHost: a\r\n\r":      false,
		"GET / HTTP/1.1\r\nHost: a\r\n\r\n":    true,
		"GET / HTTP/1.1\nHost: a\n\n":          true,
		"GET / HTTP/1.1\nHost: a\n\r\n":        true,
		"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET": true,
		"\n\n":                                 false, // empty lines, no request yet
		"\n":                                   false,
		"\r\n\r\nGET / HTTP/1.1\r\n":           false,
		"\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n": true,
		"\n\nGET / HTTP/1.1\n\n":                    true,
		"GET / HTTP/1.1\r\nHost: a\n\r\r\n":         false,
	} {
		c := &conn{br: bufio.NewReader(strings.NewReader(in))}
		_, _ = c.br.Peek(len(in))
		if got := c.headBuffered(); got != want {
			t.Errorf("%q: %v, want %v", in, got, want)
		}
	}
}

// dialSmallWindow connects to addr with a receive buffer of 64 KiB, set
// before the handshake so that the window stays that small: a response
// larger than it waits in the server's kernel until the client reads.
func dialSmallWindow(t *testing.T, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) {
			setRcvBuf(fd, 64<<10)
		})
	}}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = nc.SetDeadline(time.Now().Add(testTimeout))
	return nc
}

// oneByteConn hands its input over a byte per read, so that readHead never
// finds a whole header buffered and takes every one line by line.
type oneByteConn struct{ memConn }

func (c *oneByteConn) Read(p []byte) (int, error) { return c.src.Read(p[:min(len(p), 1)]) }

// TestHeadAtOnce holds readHead's taking of a header that is whole in the
// read buffer in one piece (headAtOnce) to what its loop makes of the same
// bytes a line at a time: the same header, length and error, and the same
// place for the next request, over line endings, empty lines before the
// request line, a line without a version, and headers at and over the
// first buffer's size.
func TestHeadAtOnce(t *testing.T) {
	pad := func(n int) string { // a header of n bytes with its empty line
		h := "GET / HTTP/1.1\r\nX: "
		return h + strings.Repeat("a", n-len(h)-4) + "\r\n\r\n"
	}
	heads := []string{
		"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET / HTTP/1.1\nHost: a\n\n",
		"GET / HTTP/1.1\r\nHost: a\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\n \r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n",
		"GET / HTTP/1.1\r\n\r\n",
		"\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
		"\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /\r\n",
		"GET /\r\nHost: a\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\r\n\r\n",
		pad(fuzzFirstBuffer - 1),
		pad(fuzzFirstBuffer),
		pad(fuzzFirstBuffer + 1),
		pad(fuzzFirstBuffer + fuzzMaxLine),
	}
	// What readHead makes of each request of in, in turn; with scanned,
	// each after headBuffered has looked at what is buffered, as serveOne
	// does before a request after the first (headAtOnce takes the end it
	// found rather than search again).
	read := func(src *strings.Reader, nc net.Conn, scanned bool) []string {
		c := newConn(&Server{Limits: fuzzLimits}, nc)
		var out []string
		for range 3 {
			if scanned && c.br != nil && c.br.Buffered() > 0 {
				c.headBuffered()
			}
			head, err := c.readHead()
			taken := int(src.Size()) - src.Len()
			if c.br != nil {
				taken -= c.br.Buffered()
			}
			out = append(out, fmt.Sprintf("%q %d %v, next at %d", head, c.headLen, err, taken))
			c.releaseHead()
			if err != nil {
				break
			}
		}
		return out
	}
	const first = "GET /first HTTP/1.1\r\nHost: a\r\n\r\n"
	for _, h := range heads {
		in := first + h + first
		src := strings.NewReader(in)
		atOnce := read(src, &memConn{src: src}, false)
		src = strings.NewReader(in)
		scanned := read(src, &memConn{src: src}, true)
		src = strings.NewReader(in)
		byLine := read(src, &oneByteConn{memConn{src: src}}, false)
		if !slices.Equal(atOnce, byLine) {
			t.Errorf("%q:\nat once %q\nby line %q", h, atOnce, byLine)
		}
		if !slices.Equal(scanned, byLine) {
			t.Errorf("%q:\nafter headBuffered %q\nby line %q", h, scanned, byLine)
		}
	}
}
