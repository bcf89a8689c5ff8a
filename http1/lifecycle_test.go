package http1

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/proxyproto"
)

// Regressions found by an audit of the connection's lifecycle
// (2026-12-04): a pipelined request's first byte held by the watch when
// the connection closes, empty lines before a trickled header, and a
// hijacker reading the connection after the watch took a byte, a file
// sent with sendfile to a client that stops reading, a body read by a
// goroutine the handler left while the server drains it, the keep-alive
// wait after a handler that flushed its response early.

// A request pipelined while the handler runs past the watch's delay: the
// watch reads its first byte (c.has); the connection closes after this
// response (MaxRequests 1) with the rest unread. It must linger.
func TestLingerWithWatchByte(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(80 * time.Millisecond)
		_, _ = io.WriteString(w, strings.Repeat("x", 1000))
	}), func(s *Server) { s.MaxRequests = 1; s.Linger = LingerOn })
	c := dial(t, ts.addr)
	c.send(get("/1"))
	time.Sleep(40 * time.Millisecond) // the watch has started
	c.send(get("/2") + strings.Repeat("GET /3 HTTP/1.1\r\nHost: t\r\n\r\n", 50))
	time.Sleep(200 * time.Millisecond) // the response and the close have come
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		t.Fatalf("reading response: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil || len(b) != 1000 {
		t.Fatalf("body %d bytes, %v", len(b), err)
	}
	rest, err := io.ReadAll(c.br)
	t.Logf("after the response: %d bytes, %v", len(rest), err)
	if err != nil {
		t.Errorf("the server did not linger: %v", err)
	}
}

// A request pipelined while a quick handler runs, before the watch has
// begun (within watchDelay, or later when the sweeper is late on a
// loaded machine): its bytes wait in the socket, read by no one, when
// the connection closes after this response (MaxRequests 1). It must
// linger, as NGINX does when its read event says bytes came
// (read->ready); closing with them unread resets the connection, and
// the reset destroys the response the client has not read yet. Behind
// the PROXY protocol (listen ... proxy_protocol) the socket is under the
// connection that read the header.
func TestLingerWithBytesUnwatched(t *testing.T) {
	for _, proxied := range []bool{false, true} {
		t.Run("proxy_protocol="+strconv.FormatBool(proxied), func(t *testing.T) {
			lingerWithBytesUnwatched(t, proxied)
		})
	}
}

func lingerWithBytesUnwatched(t *testing.T, proxied bool) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if proxied {
		on := new(atomic.Bool)
		on.Store(true)
		ln = &proxyproto.Listener{Listener: ln, Enabled: on}
	}
	running, sent := make(chan struct{}), make(chan struct{})
	ts := startServerOn(t, ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(running)
		<-sent
		_, _ = io.WriteString(w, strings.Repeat("x", 1000))
	}), func(s *Server) { s.MaxRequests = 1; s.Linger = LingerOn })
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = nc.SetDeadline(time.Now().Add(testTimeout))
	if proxied {
		if _, err := io.WriteString(nc, "PROXY TCP4 192.0.2.1 192.0.2.2 1000 80\r\n"); err != nil {
			t.Fatal(err)
		}
	}
	cc := clientConn(t, nc)
	t.Cleanup(func() { _ = cc.Close() })
	c := &client{t: t, c: cc, br: bufio.NewReader(cc)}
	c.send(get("/1"))
	<-running
	// On the loopback the bytes are in the server's socket once the
	// write returns.
	c.send(get("/2") + strings.Repeat("GET /3 HTTP/1.1\r\nHost: t\r\n\r\n", 50))
	close(sent)
	time.Sleep(100 * time.Millisecond) // the response and the close have come
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		t.Fatalf("reading response: %v", err)
	}
	if b, err := io.ReadAll(resp.Body); err != nil || len(b) != 1000 {
		t.Fatalf("body %d bytes, %v", len(b), err)
	}
	if _, err := io.ReadAll(c.br); err != nil {
		t.Errorf("the server did not linger: %v", err)
	}
	// Over TLS the reading ends at the close_notify alert, which comes
	// before the reset: the socket under it ends with the lingering
	// close's FIN, or with the reset of a close that left bytes unread.
	if _, err := socket(c.c).Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("the server did not linger: the socket ended with %v", err)
	}
}

// The same with a response larger than the client's receive window: the
// reset destroys what the server's kernel still holds of it.
func TestLingerWithWatchByteKeepsResponse(t *testing.T) {
	const size = 2 << 20
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(80 * time.Millisecond)
		w.Header().Set("Content-Length", strconv.Itoa(size))
		_, _ = w.Write(make([]byte, size))
	}), func(s *Server) { s.MaxRequests = 1; s.Linger = LingerOn })
	nc := dialSmallWindow(t, ts.addr)
	defer nc.Close()
	_, _ = io.WriteString(nc, get("/1"))
	time.Sleep(40 * time.Millisecond)
	_, _ = io.WriteString(nc, get("/2")+get("/3"))
	time.Sleep(300 * time.Millisecond)
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading response: %v", err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if n != size || err != nil {
		t.Errorf("%d of %d bytes, %v", n, size, err)
	}
}

// Empty lines before a pipelined request line end no header: the request
// that trickles in after them gets the header timeout.
func TestHeaderTimeoutAfterEmptyLines(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		_, _ = io.WriteString(w, "ok "+r.URL.Path)
	}), func(s *Server) { s.HeaderTimeout = 300 * time.Millisecond; s.KeepAliveTimeout = 500 * time.Millisecond })
	c := dial(t, ts.addr)
	c.send("POST /1 HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\n\r\nx\r\n\r\nGET /2 HTTP/1.1\r\n")
	if _, body := c.roundTrip("POST", ""); body != "ok /1" {
		t.Fatalf("first: %q", body)
	}
	start := time.Now()
	for i := 0; i < 10; i++ {
		time.Sleep(200 * time.Millisecond)
		if _, err := io.WriteString(c.c, "X-A: b\r\n"); err != nil {
			t.Logf("closed after %v", time.Since(start))
			return
		}
	}
	c.send("Host: t\r\n\r\n")
	resp, err := http.ReadResponse(c.br, nil)
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		t.Errorf("a header trickled in for %v, header timeout 300ms: served, %q", time.Since(start), b)
	}
}

// Bytes the client sent before a slow handler hijacks are the hijacker's,
// the watch's byte first: it is in the reader's buffer (as net/http puts
// it), where a hijacker looks before reading the net.Conn.
func TestHijackGetsWatchByte(t *testing.T) {
	got := make(chan string, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(100 * time.Millisecond)
		nc, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			got <- err.Error()
			return
		}
		defer nc.Close()
		buf := make([]byte, 5)
		if brw.Reader.Buffered() > 0 {
			n, _ := io.ReadFull(brw.Reader, buf)
			got <- "buffered:" + string(buf[:n])
			return
		}
		_ = nc.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		n, _ := io.ReadFull(nc, buf)
		got <- "conn:" + string(buf[:n])
	}))
	c := dial(t, ts.addr)
	c.send(get("/"))
	time.Sleep(40 * time.Millisecond)
	c.send("hello")
	if s := <-got; s != "buffered:hello" && s != "conn:hello" {
		t.Errorf("hijacker read %q, want hello", s)
	}
}

// sparseFile makes a file of size bytes (a hole: no disk used).
func sparseFile(t *testing.T, size int64) string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "big")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return f.Name()
}

// serveFile answers with the file at name through ReadFrom (sendfile),
// reporting io.Copy's error on done.
func serveFile(name string, size int64, done chan<- error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Open(name)
		if err != nil {
			done <- err
			return
		}
		defer f.Close()
		w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
		_, err = io.Copy(w, f)
		done <- err
	})
}

// A client that stops reading a file sent with sendfile is cut off after
// the send timeout; the file once went out with no deadline at all.
func TestSendfileStallTimesOut(t *testing.T) {
	const size = 64 << 20
	done := make(chan error, 1)
	ts := startServer(t, serveFile(sparseFile(t, size), size, done),
		func(s *Server) { s.WriteTimeout = 300 * time.Millisecond })
	c := dial(t, ts.addr)
	_ = socket(c.c).SetReadBuffer(64 << 10)
	c.send(get("/"))
	select {
	case err := <-done:
		if err == nil {
			t.Error("the whole file went to a client that read none of it")
		}
	case <-time.After(5 * time.Second):
		t.Error("a client that does not read held the sendfile 5 s past a 300 ms send timeout")
	}
}

// The send timeout bounds each piece of a file, not the whole: a client
// that reads steadily gets a file that takes several timeouts to send.
func TestSendfileSlowReaderServed(t *testing.T) {
	const size = 16 << 20
	done := make(chan error, 1)
	// Long enough that a reader the scheduler leaves waiting still takes
	// a piece (256 KiB) within it, whose deadline is armed up to a tenth
	// early: under -race on a loaded machine (three busy loops and a
	// second copy of the package's tests on two cores), 200 ms failed
	// about one run in twenty, 500 ms 5 of 30 of the package's runs (a
	// reader whose reads came at most 339 ms apart cut off at 9.7 MB).
	// The reading takes at least 2.5 of them (6.5 MB/s at most).
	timeout := time.Second
	ts := startServer(t, serveFile(sparseFile(t, size), size, done),
		func(s *Server) { s.WriteTimeout = timeout })
	c := dial(t, ts.addr)
	_ = socket(c.c).SetReadBuffer(64 << 10)
	start := time.Now()
	c.send(get("/"))
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	var got int64
	var gap time.Duration // the longest time between two reads' ends
	last := time.Now()
	for {
		n, err := io.ReadFull(resp.Body, buf)
		got += int64(n)
		gap, last = max(gap, time.Since(last)), time.Now()
		if err != nil {
			break
		}
		time.Sleep(10 * time.Millisecond) // about 6.5 MB/s at most
	}
	took := time.Since(start)
	if got != size {
		t.Fatalf("%d of %d bytes in %v, reads up to %v apart (send timeout %v)", got, size, took, gap, timeout)
	}
	if err := <-done; err != nil {
		t.Fatalf("handler: %v", err)
	}
	if took < 2*timeout {
		t.Logf("sent in %v: too fast to show the timeout is per piece", took)
	}
}

// A goroutine the handler left reading the body gets errBodyClosed while
// the server drains the rest, not the bytes (the drain once reopened the
// body for itself, unlocked: a data race, and a thief). The goroutine
// starts reading once the client has the response, which the server
// writes after it has closed the body to the handler: a goroutine woken
// when the handler is about to return may read before the server closes
// the body, and what it reads then is still the handler's.
func TestBodyClosedWhileDrained(t *testing.T) {
	var stolen atomic.Int64
	answered := make(chan struct{})
	done := make(chan struct{})
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/1" {
			return
		}
		go func() {
			defer close(done)
			<-answered
			buf := make([]byte, 100)
			end := time.Now().Add(300 * time.Millisecond)
			for time.Now().Before(end) {
				n, _ := r.Body.Read(buf)
				stolen.Add(int64(n))
			}
		}()
	}))
	c := dial(t, ts.addr)
	c.send("POST /1 HTTP/1.1\r\nHost: t\r\nContent-Length: 20000\r\n\r\n")
	c.send(strings.Repeat("a", 1000))
	c.response("POST").Body.Close()
	close(answered)
	for i := 0; i < 19; i++ {
		c.send(strings.Repeat("a", 1000))
		time.Sleep(5 * time.Millisecond)
	}
	// The drain took the rest: the next request is read from its start.
	if resp, _ := c.roundTrip("GET", get("/2")); resp.StatusCode != http.StatusOK {
		t.Errorf("the request after the drained body: %s", resp.Status)
	}
	<-done
	if n := stolen.Load(); n > 0 {
		t.Errorf("a read after the handler returned got %d bytes", n)
	}
}

// A handler that flushes its whole response and goes on working past the
// keep-alive timeout: the keep-alive wait starts when it returns, so the
// next request, sent at once, is served (it once met a deadline already
// past).
func TestKeepAliveFromHandlerEnd(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "2")
		_, _ = io.WriteString(w, "ok")
		w.(http.Flusher).Flush()
		if r.URL.Path == "/1" {
			time.Sleep(500 * time.Millisecond)
		}
	}), func(s *Server) { s.KeepAliveTimeout = 300 * time.Millisecond; s.HeaderTimeout = 0 })
	c := dial(t, ts.addr)
	if _, body := c.roundTrip("GET", get("/1")); body != "ok" {
		t.Fatalf("first: %q", body)
	}
	c.send(get("/2"))
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		t.Fatalf("the second request, sent at once, got no response: %v", err)
	}
	resp.Body.Close()
}

// slowSource yields size bytes, chunk at a time, a pause before each.
type slowSource struct {
	left, chunk int
	pause       time.Duration
}

func (s *slowSource) Read(p []byte) (int, error) {
	if s.left == 0 {
		return 0, io.EOF
	}
	time.Sleep(s.pause)
	n := min(len(p), s.chunk, s.left)
	s.left -= n
	return n, nil
}

// A body of known length from a slow source that is not a file (an
// upstream's) is not cut by the send timeout while the source is read:
// the timeout runs between writes.
func TestSlowSourceNotCutBySendTimeout(t *testing.T) {
	const size = 512 << 10
	done := make(chan error, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(size))
		_, err := io.Copy(w, &slowSource{left: size, chunk: 32 << 10, pause: 60 * time.Millisecond})
		done <- err
	}), func(s *Server) { s.WriteTimeout = 300 * time.Millisecond })
	c := dial(t, ts.addr)
	c.send(get("/"))
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if n != size || err != nil {
		t.Errorf("%d of %d bytes, %v", n, size, err)
	}
	if err := <-done; err != nil {
		t.Errorf("handler: %v", err)
	}
}
