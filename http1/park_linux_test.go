package http1

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/syncbuf"
	"golang.org/x/sys/unix"
)

// waitParked waits until n connections are parked in the epoll set.
func waitParked(t *testing.T, n int) {
	t.Helper()
	waitFor(t, func() bool { return parkedCount() >= n }, "idle connections to park")
}

// Idle keep-alive connections wait in the epoll set with no goroutine:
// none of the n connections holds a stack, each is served again when its
// next request comes, the keep-alive deadline still closes one that stays
// quiet, and a client that closes its side ends the server's end too.
func TestServeIdleConnectionsPark(t *testing.T) {
	if overTLS {
		t.Skip("the record layer reads ahead: TLS connections wait on goroutines")
	}
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		growStack(32)
		_, _ = io.WriteString(w, "hello "+r.URL.Path)
	}), func(s *Server) { s.KeepAliveTimeout = 2 * time.Second })
	const n = 100
	base := runtime.NumGoroutine()
	conns := make([]*client, n)
	for i := range conns {
		conns[i] = dial(t, ts.addr)
		if _, body := conns[i].roundTrip("GET", get("/a")); body != "hello /a" {
			t.Fatalf("first response %q", body)
		}
	}
	waitFor(t, func() bool { return parkedCount() >= n }, "every idle connection to park")
	if g := runtime.NumGoroutine() - base; g > n/10 {
		t.Errorf("%d goroutines more for %d idle connections", g, n)
	}
	for i, c := range conns {
		if _, body := c.roundTrip("GET", get("/b")); body != "hello /b" {
			t.Fatalf("connection %d after parking: %q", i, body)
		}
	}
	// A client that hangs up: the server's end wakes and closes.
	waitFor(t, func() bool { return parkedCount() >= n }, "the connections to park again")
	for _, c := range conns[:n/2] {
		_ = c.c.Close()
	}
	waitFor(t, func() bool { return parkedCount() <= n/2 }, "hung-up connections to leave the set")
	// The rest reach the keep-alive deadline while parked.
	start := time.Now()
	for _, c := range conns[n/2:] {
		c.expectClosed()
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("parked connections closed after %v, keep-alive timeout 2s", d)
	}
	waitFor(t, func() bool { return parkedCount() == 0 }, "the set to empty")
}

// Pipelined data that arrives while a connection is parked wakes it at
// once, and a request split across the wake is whole.
func TestServeParkedWakesOnPartialRequest(t *testing.T) {
	if overTLS {
		t.Skip("TLS connections do not park")
	}
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok "+r.URL.Path)
	}))
	c := dial(t, ts.addr)
	c.roundTrip("GET", get("/1"))
	waitFor(t, func() bool { return parkedCount() >= 1 }, "the connection to park")
	req := get("/2")
	c.send(req[:7])
	time.Sleep(50 * time.Millisecond)
	c.send(req[7:])
	if _, body := c.roundTrip("GET", ""); !strings.HasPrefix(body, "ok /2") {
		t.Fatalf("response after a split request: %q", body)
	}
}

// A client that connects and sends nothing parks too, and the header
// timeout still closes it, logged as a wait for a request that never came.
func TestServeParkedFirstRequestTimesOut(t *testing.T) {
	if overTLS {
		t.Skip("TLS connections do not park")
	}
	log := &syncbuf.Buffer{}
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), func(s *Server) {
		// Long enough that the test sees the connection parked before
		// the timeout closes it, under the whole suite's load too (at
		// 1.5 s a run under -race once never saw it).
		s.HeaderTimeout = 3 * time.Second
		s.Logger = slog.New(slog.NewTextHandler(log, nil))
	})
	start := time.Now()
	c := dial(t, ts.addr)
	waitParked(t, 1)
	c.expectClosed()
	if d := time.Since(start); d < 2900*time.Millisecond || d > 5*time.Second {
		t.Errorf("closed after %v, header timeout 3s", d)
	}
	want := `while="waiting for request"`
	waitFor(t, func() bool { return strings.Contains(log.String(), want) }, want+" in "+log.String())
}

// A busy connection (requests back to back) waits for the next on its
// goroutine, and the idle sweeper parks it once the wait lasts.
func TestServeBusyConnectionParksLater(t *testing.T) {
	if overTLS {
		t.Skip("TLS connections do not park")
	}
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	c := dial(t, ts.addr)
	before := parkedCount()
	for range 20 {
		c.roundTrip("GET", get("/"))
	}
	if n := parkedCount(); n > before {
		t.Errorf("a busy connection parked at once")
	}
	start := time.Now()
	waitFor(t, func() bool { return parkedCount() > before }, "the busy connection to park")
	if d := time.Since(start); d < parkDelay/2 || d > 3*parkDelay {
		t.Errorf("parked after %v, want one to two sweeps of %v", d, parkDelay)
	}
	if _, body := c.roundTrip("GET", get("/")); body != "ok" {
		t.Fatalf("after parking: %q", body)
	}
}

// A header that trickles in parks its connection between the pieces:
// a slow client holds no goroutine, the header is whole when the rest
// comes, and the header timeout still ends one that never finishes,
// logged as NGINX logs it.
func TestServeParkedMidHeader(t *testing.T) {
	if overTLS {
		t.Skip("TLS connections do not park")
	}
	log := &syncbuf.Buffer{}
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Method+" "+r.URL.Path+" "+r.Header.Get("X-Slow"))
	}), func(s *Server) {
		s.HeaderTimeout = 2 * time.Second
		s.Logger = slog.New(slog.NewTextHandler(log, nil))
	})
	before := parkedCount()
	slow := dial(t, ts.addr)
	slow.send("GET /slow HTTP/1.1\r\nHost: test\r\nX-Sl")
	waitFor(t, func() bool { return parkedCount() > before }, "the half-sent header to park")
	slow.send("ow: yes\r\n")
	time.Sleep(50 * time.Millisecond)
	if _, body := slow.roundTrip("GET", "\r\n"); body != "GET /slow yes" {
		t.Fatalf("a header resumed after parking: %q", body)
	}
	// A later request on the same connection, half sent, parks too and
	// meets the header timeout.
	stuck := dial(t, ts.addr)
	stuck.roundTrip("GET", get("/first"))
	start := time.Now()
	stuck.send("GET /second HTTP/1.1\r\nHost: te")
	stuck.expectClosed()
	if d := time.Since(start); d < 1900*time.Millisecond || d > 4*time.Second {
		t.Errorf("closed after %v, header timeout 2s", d)
	}
	want := `while="reading client request headers"`
	waitFor(t, func() bool { return strings.Contains(log.String(), want) }, want+" in "+log.String())
}

// A connection closed while parked leaves the epoll set with its
// descriptor; unparking it later must not take out another connection
// parked on the reused descriptor number (an audit's finding: a Shutdown
// racing a park, then a reload's new connection on the same number).
func TestUnparkLeavesReusedDescriptor(t *testing.T) {
	p, ln := parkerAndListener(t)
	acl := dialListener(t, ln)
	defer acl.Close()
	a, asc, afd := acceptParkable(t, ln)
	if !a.park() {
		t.Fatal("the first connection did not park")
	}
	bcl := dialListener(t, ln) // before the close, so that the accept below takes afd
	defer bcl.Close()
	asc.Close() // closed while parked: the set drops it, the entry stays
	b, bsc, bfd := acceptParkable(t, ln)
	defer bsc.Close()
	if bfd != afd {
		t.Skipf("descriptor %d not reused (%d)", afd, bfd)
	}
	if !b.park() {
		t.Fatal("the second connection did not park")
	}
	defer b.unpark()
	if !a.unpark() {
		t.Fatal("the first connection was not parked")
	}
	// Still in the set: modifying its entry succeeds.
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLONESHOT, Fd: int32(bfd), Pad: int32(b.parkSeq)}
	if err := unix.EpollCtl(p.ep, unix.EPOLL_CTL_MOD, bfd, &ev); err != nil {
		t.Fatalf("the connection parked on the reused descriptor left the set: %v", err)
	}
}

// A connection that closeIfIdle closed while it was parking (its wake
// came before the connection said it was parked) does not stay parked:
// nothing would wake it but its timer, if it has one.
func TestParkAfterCloseIfIdle(t *testing.T) {
	_, ln := parkerAndListener(t)
	cl := dialListener(t, ln)
	defer cl.Close()
	c, sc, _ := acceptParkable(t, ln)
	defer sc.Close()
	c.state.Store(stateClosed) // closeIfIdle's swap, its wake already gone by
	if c.park() {
		c.unpark()
		t.Fatal("a connection closed while parking stayed parked")
	}
	if c.parkState.Load() != unparked {
		t.Fatal("left marked parked")
	}
}

// parkerAndListener starts the parker (skipping the test without epoll)
// and listens on loopback until the test ends.
func parkerAndListener(t *testing.T) (*parker, net.Listener) {
	t.Helper()
	p := &idleParker
	p.once.Do(p.start)
	if p.ep < 0 {
		t.Skip("no epoll set")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return p, ln
}

// dialListener connects to ln.
func dialListener(t *testing.T, ln net.Listener) net.Conn {
	t.Helper()
	cl, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// acceptParkable accepts the next connection on ln and returns a conn
// that can park, idle, with its socket and descriptor.
func acceptParkable(t *testing.T, ln net.Listener) (*conn, net.Conn, int) {
	t.Helper()
	sc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sc.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	fd := -1
	_ = raw.Control(func(s uintptr) { fd = int(s) })
	c := &conn{raw: raw}
	c.state.Store(stateIdle)
	return c, sc, fd
}

// A connection parked between requests, or in the middle of a header,
// holds no read buffer: the epoll set has it, and nothing of a 4 KB
// buffer (see fill and readRaw, which reads a request into the buffer
// the last one emptied and gives it back when the read would block).
func TestParkedConnectionHoldsNoReadBuffer(t *testing.T) {
	if overTLS {
		t.Skip("TLS connections do not park")
	}
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	const n = 4
	conns := make([]*client, n)
	for i := range conns {
		conns[i] = dial(t, ts.addr)
		// One request: the wait after it reads once (tryRaw) and parks
		// at once.
		conns[i].roundTrip("GET", get("/a"))
	}
	// Half of them begin a header and stop.
	for _, c := range conns[:n/2] {
		c.send("GET /c HTTP/1.1\r\nHo")
	}
	// Each parked, the half mid-header after the idle sweeper asked them.
	p := &idleParker
	holding := 0
	waitFor(t, func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		parked, mid := 0, 0
		holding = 0
		for _, c := range p.parked {
			if c.srv != ts.Server {
				continue
			}
			parked++
			if c.midHead {
				mid++
			}
			if c.br != nil {
				holding++
			}
		}
		return parked == n && mid == n/2
	}, "every connection to park, half of them mid-header")
	if holding > 0 {
		t.Errorf("%d of %d parked connections hold a read buffer", holding, n)
	}
	for i, c := range conns {
		req := get("/d")
		if i < n/2 {
			req = "st: test\r\n\r\n"
		}
		if _, body := c.roundTrip("GET", req); body != "ok" {
			t.Fatalf("connection %d after parking: %q", i, body)
		}
	}
}

// The wait after a response reads the socket first only where it must: a
// connection whose last read emptied the socket parks without a read (its
// epoll set is level-triggered), a busy one reads before it waits on Go's
// poller, which keeps no end-of-file flag: an end of file that came with
// a request, its event spent on the wait for that request, is seen only
// by a read. Either way a client that sends its last request with its end
// of file (a half close) has the connection closed right after the
// response, whether that request came during the last response (/slow)
// or after it.
func TestServeWaitSeesHalfClose(t *testing.T) {
	if overTLS {
		t.Skip("TLS connections do not park")
	}
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			time.Sleep(100 * time.Millisecond)
		}
		_, _ = io.WriteString(w, "ok "+r.URL.Path)
	}), func(s *Server) { s.KeepAliveTimeout = time.Minute })
	for _, gap := range []time.Duration{0, 3 * busyGap} { // busy, then parked
		for _, during := range []bool{false, true} {
			c := dial(t, ts.addr)
			for _, p := range []string{"/1", "/2"} {
				if _, body := c.roundTrip("GET", get(p)); body != "ok "+p {
					t.Fatalf("gap %v: response %q", gap, body)
				}
				time.Sleep(gap)
			}
			paths := []string{"/3"}
			if during {
				c.send(get("/slow"))
				time.Sleep(20 * time.Millisecond)
				paths = []string{"/slow", "/3"}
			}
			c.send(get("/3"))
			if err := c.c.(interface{ CloseWrite() error }).CloseWrite(); err != nil {
				t.Fatal(err)
			}
			for _, p := range paths {
				resp := c.response("GET")
				if body, _ := io.ReadAll(resp.Body); string(body) != "ok "+p {
					t.Fatalf("gap %v: response %q, want ok %s", gap, body, p)
				}
			}
			// At once, not when the idle sweeper parks a busy wait
			// (parkDelay) nor at the keep-alive timeout.
			start := time.Now()
			c.expectClosed()
			if d := time.Since(start); d > parkDelay/2 {
				t.Errorf("gap %v, during %v: closed %v after the last response", gap, during, d)
			}
		}
	}
}
