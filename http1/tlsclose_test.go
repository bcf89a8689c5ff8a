//go:build linux

package http1

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// tlsPair returns both ends of a TLS connection over a Unix-domain
// socket, the server's over a tlsSock as Serve makes it, handshaken. A
// Unix-domain socket whose peer does not read takes nothing more once
// its buffer is full, whatever the size of the write (on the loopback,
// TCP's late acknowledgements often leave room for a short one).
func tlsPair(t *testing.T) (srv *tls.Conn, sock *tlsSock, cli *tls.Conn) {
	t.Helper()
	return tlsPairUpTo(t, 0)
}

// tlsPairUpTo is tlsPair with the client's highest TLS version max (0:
// crypto/tls's, TLS 1.3).
func tlsPairUpTo(t *testing.T, max uint16) (srv *tls.Conn, sock *tlsSock, cli *tls.Conn) {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type dialed struct {
		c   *tls.Conn
		err error
	}
	ch := make(chan dialed, 1)
	go func() {
		nc, err := net.Dial("unix", ln.Addr().String())
		if err != nil {
			ch <- dialed{nil, err}
			return
		}
		c := tls.Client(nc, &tls.Config{InsecureSkipVerify: true, ServerName: "test", MaxVersion: max})
		ch <- dialed{c, c.Handshake()}
	}()
	raw, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	sock = &tlsSock{Conn: &deadlineSock{UnixConn: raw.(*net.UnixConn)}}
	srv = tls.Server(sock, testServerTLS(t))
	t.Cleanup(func() { _ = raw.Close() })
	if err := srv.Handshake(); err != nil {
		t.Fatal(err)
	}
	d := <-ch
	if d.err != nil {
		t.Fatal(d.err)
	}
	t.Cleanup(func() { _ = d.c.Close() })
	return srv, sock, d.c
}

// fill writes to c, whose peer reads nothing, until its socket takes no
// more (testclient.Fill). It reports a failure with t.Errorf, so that a
// handler's goroutine may call it.
func fill(t *testing.T, c net.Conn) {
	t.Helper()
	if err := testclient.Fill(c); err != nil {
		t.Errorf("filling: %v", err)
	}
}

// deadlineSock is a Unix-domain socket that notes, for each write that
// waited for room until its deadline ended it, how far that deadline was
// from the write's start: what a close gave its alert, read without
// timing the close. A close timed from outside took alertWait plus
// whatever the machine's load added (a goroutine descheduled for a
// second before the alert's deadline is set, on a loaded 2-core CI
// machine); the deadline, set before the write starts, is never later
// than alertWait from that start, however late the write.
type deadlineSock struct {
	*net.UnixConn
	mu    sync.Mutex
	wd    time.Time       // the write deadline last set
	waits []time.Duration // per write its deadline ended: deadline - start
}

func (d *deadlineSock) SetWriteDeadline(t time.Time) error {
	d.mu.Lock()
	d.wd = t
	d.mu.Unlock()
	return d.UnixConn.SetWriteDeadline(t)
}

func (d *deadlineSock) SetDeadline(t time.Time) error {
	d.mu.Lock()
	d.wd = t
	d.mu.Unlock()
	return d.UnixConn.SetDeadline(t)
}

func (d *deadlineSock) Write(p []byte) (int, error) {
	start := time.Now()
	d.mu.Lock()
	wd := d.wd
	d.mu.Unlock()
	n, err := d.UnixConn.Write(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		d.mu.Lock()
		d.waits = append(d.waits, wd.Sub(start))
		d.mu.Unlock()
	}
	return n, err
}

// waited returns the waits noted from the nth on.
func (d *deadlineSock) waited(from int) []time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]time.Duration(nil), d.waits[min(from, len(d.waits)):]...)
}

// notesOf returns the deadlineSock under c, a TLS connection that
// tlsPair or serveTLSRequest made.
func notesOf(c net.Conn) *deadlineSock {
	return sockOf(c).Conn.(*deadlineSock)
}

// closeTime closes c, a connection tlsPair made, and says how long that
// took and how long each of its writes waited for room (deadlineSock).
func closeTime(c *tls.Conn) (time.Duration, []time.Duration, error) {
	ds := notesOf(c)
	before := len(ds.waited(0))
	start := time.Now()
	err := c.Close()
	return time.Since(start), ds.waited(before), err
}

// After a write timed out (send_timeout), Close sends no close_notify
// and returns at once, where tls.Conn alone waits 5 s for room.
func TestTLSCloseAfterWriteTimeout(t *testing.T) {
	srv, sock, _ := tlsPair(t)
	fill(t, sock.Conn)
	_ = srv.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	if _, err := srv.Write(make([]byte, 1024)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a write to a full socket: %v; want its deadline passed", err)
	}
	if _, waits, err := closeTime(srv); len(waits) > 0 || !errors.Is(err, errQuietClose) {
		t.Errorf("Close after a write timeout waited %v for room (%v); want at once, without close_notify", waits, err)
	}
}

// A connection whose wait for a request ended sends close_notify if the
// socket takes it at once, and drops it if it does not.
func TestTLSCloseAtOnce(t *testing.T) {
	srv, _, cli := tlsPair(t)
	closeAtOnce(srv)
	if _, waits, err := closeTime(srv); len(waits) > 0 || err != nil {
		t.Errorf("Close with room waited %v for room: %v; want the alert sent at once", waits, err)
	}
	if _, err := cli.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("client read %v; want io.EOF", err)
	}

	srv, sock, _ := tlsPair(t)
	fill(t, sock.Conn) // under tlsSock: the socket full, no timeout seen
	closeAtOnce(srv)
	if _, waits, err := closeTime(srv); len(waits) > 0 || err == nil {
		t.Errorf("Close of a full socket waited %v for room (%v); want at once, the alert dropped", waits, err)
	}
}

// A connection whose last read timed out (client_header_timeout,
// client_body_timeout) closes quietly; a read woken by a deadline in the
// past set while it waits (the watch stopped, a proxy cutting an upload)
// is no timeout.
func TestTLSCloseAfterReadTimeout(t *testing.T) {
	srv, _, _ := tlsPair(t)
	_ = srv.SetReadDeadline(aLongTimeAgo)
	if _, err := srv.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("woken read: %v", err)
	}
	closeQuietIfTimedOut(srv)
	if _, _, err := closeTime(srv); err != nil {
		t.Errorf("Close after a woken read: %v; want close_notify sent", err)
	}

	srv, _, _ = tlsPair(t)
	_ = srv.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := srv.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read: %v", err)
	}
	closeQuietIfTimedOut(srv)
	if _, _, err := closeTime(srv); !errors.Is(err, errQuietClose) {
		t.Errorf("Close after a read timeout: %v; want no close_notify", err)
	}

	// A deadline that has passed when it is set, set while a read waits,
	// wakes that read: the proxy and uwsgi handlers cut a client's upload
	// so (ResponseController.SetReadDeadline(time.Now())) when their
	// upstream fails, and then answer; that close is no timeout's.
	srv, _, _ = tlsPair(t)
	read := make(chan error, 1)
	go func() {
		_, err := srv.Read(make([]byte, 1))
		read <- err
	}()
	time.Sleep(50 * time.Millisecond) // the read waits on the socket
	_ = srv.SetReadDeadline(time.Now())
	if err := <-read; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("cut read: %v", err)
	}
	closeQuietIfTimedOut(srv)
	if _, _, err := closeTime(srv); err != nil {
		t.Errorf("Close after a cut read: %v; want close_notify sent", err)
	}

	// A timeout of 0 (client_body_timeout 0: server.ZeroTimeout, 1 ns)
	// sets a deadline that has passed by the time it is set: still a
	// timeout, not a wake-up.
	srv, _, _ = tlsPair(t)
	_ = srv.SetReadDeadline(time.Now().Add(time.Nanosecond))
	if _, err := srv.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read: %v", err)
	}
	closeQuietIfTimedOut(srv)
	if _, _, err := closeTime(srv); !errors.Is(err, errQuietClose) {
		t.Errorf("Close after a read timeout of 0: %v; want no close_notify", err)
	}
}

// A write that waits for no room and that the socket takes only in part
// says so: tls.Conn takes a write without an error for its whole record
// sent, and would go on after one cut short.
func TestTLSSockNoWaitShortWrite(t *testing.T) {
	_, sock, _ := tlsPair(t)
	sock.mode.Store(sockNoWait)
	p := make([]byte, 16<<20) // more than the socket's buffer takes
	n, err := sock.Write(p)
	if n == len(p) {
		t.Fatalf("the socket took all %d bytes; the test needs a larger write", n)
	}
	if err == nil {
		t.Errorf("Write took %d of %d bytes without an error", n, len(p))
	}
}

// alertWaited says whether a Close of a full socket that took d, whose
// writes waited for room as waits says (deadlineSock), gave its
// close_notify alert alertWait, not tls.Conn's 5 s: one write waited,
// with a deadline alertWait at most from its start, and the close took
// alertWait at least. Neither bound is one that load can break: load
// makes a close longer and a deadline nearer the write's start.
func alertWaited(d time.Duration, waits []time.Duration) bool {
	return d >= alertWait-100*time.Millisecond && len(waits) == 1 && waits[0] <= alertWait
}

// A normal close (Connection: close, keepalive_requests, lingering)
// gives its close_notify alert 3 s, as NGINX does, where tls.Conn alone
// waits 5 s for room.
func TestTLSCloseBounded(t *testing.T) {
	t.Parallel()
	srv, sock, _ := tlsPair(t)
	fill(t, sock.Conn)
	closeBounded(srv)
	if d, waits, err := closeTime(srv); !alertWaited(d, waits) || err == nil {
		t.Errorf("Close of a full socket took %v, its writes waiting %v for room (%v); want %v, the alert dropped", d, waits, err, alertWait)
	}

	srv, _, cli := tlsPair(t)
	closeBounded(srv)
	if _, waits, err := closeTime(srv); len(waits) > 0 || err != nil {
		t.Errorf("Close with room waited %v for room: %v; want the alert sent at once", waits, err)
	}
	if _, err := cli.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("client read %v; want io.EOF", err)
	}
}

// The server a connection was handed over to (HTTP/2) closes it with
// tls.Conn.Close unannounced: its alert gets 3 s too, in TLS 1.2, where
// its record says it is one, and in TLS 1.3, where the deadline tls.Conn
// sets for it does.
func TestTLSCloseHandedOver(t *testing.T) {
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		t.Run(tls.VersionName(v), func(t *testing.T) {
			t.Parallel()
			srv, sock, _ := tlsPairUpTo(t, v)
			if st := srv.ConnectionState(); st.Version != v {
				t.Fatalf("negotiated %s", tls.VersionName(st.Version))
			}
			sock.handedOver.Store(true)
			fill(t, sock.Conn)
			if d, waits, err := closeTime(srv); !alertWaited(d, waits) || err == nil {
				t.Errorf("Close of a full socket took %v, its writes waiting %v for room (%v); want %v, the alert dropped", d, waits, err, alertWait)
			}
		})
	}
}

// records notes the TLS records written through it, one a write, as
// tls.Conn writes them, and whether alertRecord took each for an alert
// (asked there, under tls.Conn's Write or Close, as tlsSock asks).
type records struct {
	net.Conn
	writes [][]byte
	alert  []bool
}

func (r *records) Write(p []byte) (int, error) {
	r.writes = append(r.writes, append([]byte(nil), p...))
	r.alert = append(r.alert, alertRecord(p))
	return r.Conn.Write(p)
}

// alertRecord tells the alert of a close from data, 2 bytes of which
// make a record of its size in TLS 1.3, even written with the 5 s
// deadline that tls.Conn gives its alert.
func TestAlertRecord(t *testing.T) {
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		t.Run(tls.VersionName(v), func(t *testing.T) {
			srv, sock, cli := tlsPairUpTo(t, v)
			go func() { _, _ = io.Copy(io.Discard, cli) }()
			rec := &records{Conn: sock.Conn}
			sock.Conn = rec
			_ = srv.SetWriteDeadline(time.Now().Add(5 * time.Second))
			if _, err := srv.Write([]byte("ab")); err != nil {
				t.Fatal(err)
			}
			last := len(rec.writes) - 1
			if data := rec.writes[last]; rec.alert[last] {
				t.Errorf("a record of 2 bytes of data, % x, taken for an alert", data[:5])
			}
			_ = srv.Close()
			alert := rec.writes[len(rec.writes)-1]
			if !rec.alert[len(rec.writes)-1] {
				t.Errorf("the close's record, % x (%d bytes), not taken for an alert", alert[:5], len(alert))
			}
			if data := rec.writes[last]; v == tls.VersionTLS13 && len(data) != len(alert) {
				t.Errorf("a record of 2 bytes of data has %d bytes, the alert's %d: the test needs them alike", len(data), len(alert))
			}
		})
	}
}

// connKey keys the connection in the contexts of
// TestTLSNormalClosesBounded's requests.
type connKey struct{}

// A connection that closes normally after its response went out whole,
// the client having left the socket full, closes within alertWait of the
// response's end: its close_notify alert gets 3 s, as NGINX's, where it
// got tls.Conn's 5 s. The socket is filled under TLS once the response
// has gone, as a client that stops reading leaves it when the response
// happens to end at its buffer's end.
func TestTLSNormalClosesBounded(t *testing.T) {
	cases := []struct {
		name, req string
		maxReqs   int
	}{
		{"Connection: close", "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0},
		{"keepalive_requests", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 1},
		// The body left unread: the close lingers, after the alert.
		{"lingering", "POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 100\r\n\r\n0123456789", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
			if err != nil {
				t.Fatal(err)
			}
			type answer struct {
				end time.Time
				ds  *deadlineSock
			}
			answered := make(chan answer, 1)
			s := &Server{Logger: quietLogger, TLSConfig: testServerTLS(t),
				Limits: Limits{KeepAliveTimeout: time.Minute, MaxRequests: tc.maxReqs},
				ConnContext: func(ctx context.Context, c net.Conn) context.Context {
					return context.WithValue(ctx, connKey{}, c)
				},
				Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Length", "3")
					_, _ = io.WriteString(w, "ok\n")
					if err := http.NewResponseController(w).Flush(); err != nil {
						t.Error(err)
					}
					nc := r.Context().Value(connKey{}).(net.Conn)
					fill(t, sockOf(nc).Conn)
					answered <- answer{time.Now(), notesOf(nc)}
				})}
			raw := serveTLSRequest(t, s, ln, tc.req)
			a := <-answered
			for !testclient.HungUp(t, raw) && time.Since(a.end) < 10*time.Second {
				time.Sleep(10 * time.Millisecond)
			}
			if d, waits := time.Since(a.end), a.ds.waited(0); !alertWaited(d, waits) {
				t.Errorf("the server closed %v after its response, its writes waiting %v for room; want %v, the alert's wait",
					d, waits, alertWait)
			}
		})
	}
}

// noteListener hands out its Unix-domain sockets as deadlineSocks.
type noteListener struct{ net.Listener }

func (l noteListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &deadlineSock{UnixConn: c.(*net.UnixConn)}, nil
}

// serveTLSRequest serves s on ln, a Unix-domain listener, until the test
// ends, its sockets deadlineSocks, and sends req over TLS on a connection
// to it that then reads nothing. It returns the client's socket, closed
// when the test ends.
func serveTLSRequest(t *testing.T, s *Server, ln net.Listener, req string) *net.UnixConn {
	t.Helper()
	served := make(chan error, 1)
	go func() { served <- s.Serve(noteListener{ln}) }()
	t.Cleanup(func() {
		_ = s.Close()
		<-served
	})
	raw, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = raw.Close() })
	c := tls.Client(raw, &tls.Config{InsecureSkipVerify: true, ServerName: "x"})
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	return raw.(*net.UnixConn)
}

// A connection handed over whose idle time has ended (IdleUntil) writes
// only what its socket takes at once: its server's GOAWAY and its
// close_notify alert do not wait for room; before that time, and once
// it serves a request again, its writes wait as any.
func TestIdleUntil(t *testing.T) {
	t.Parallel()
	srv, sock, _ := tlsPair(t)
	sock.handedOver.Store(true)
	fill(t, sock.Conn)
	IdleUntil(srv, time.Now().Add(time.Hour))
	start := time.Now() // before the deadline: a pause between the two cannot shorten the wait seen
	_ = srv.SetWriteDeadline(start.Add(200 * time.Millisecond))
	if _, err := srv.Write([]byte("goaway")); time.Since(start) < 150*time.Millisecond || err == nil {
		t.Errorf("a write while idle took %v (%v); want it to wait for room until its deadline", time.Since(start), err)
	}

	srv, sock, _ = tlsPair(t)
	sock.handedOver.Store(true)
	fill(t, sock.Conn)
	IdleUntil(srv, time.Now())
	if _, waits, err := closeTime(srv); len(waits) > 0 || err == nil {
		t.Errorf("Close of a full socket after the idle time waited %v for room (%v); want at once, the alert dropped", waits, err)
	}

	srv, sock, _ = tlsPair(t)
	sock.handedOver.Store(true)
	fill(t, sock.Conn)
	IdleUntil(srv, time.Now())
	IdleUntil(srv, time.Time{}) // a stream opened
	if d, waits, err := closeTime(srv); !alertWaited(d, waits) || err == nil {
		t.Errorf("Close of a full socket once active again took %v, its writes waiting %v for room (%v); want %v", d, waits, err, alertWait)
	}
}

// An idle deadline passes when the monotonic clock reaches it. A step of
// the wall clock, which moved it when it was kept in Unix nanoseconds,
// takes a privilege (CAP_SYS_TIME) and would move every clock of the
// machine; what is checked here: the deadline passes on time from a t
// with a monotonic reading (time.Now().Add, as server/tls.go makes it)
// and from one without (Round(0): converted at the call), at once when
// t is long past, and never once unset.
func TestIdleDeadline(t *testing.T) {
	t.Parallel()
	// lateBy allows for the wall clock and the monotonic one parting
	// between t's two readings (a t of Round(0) is converted from the
	// wall reading).
	const wait, lateBy = 100 * time.Millisecond, 20 * time.Millisecond
	for _, tc := range []struct {
		name string
		end  func() time.Time
	}{
		{"monotonic", func() time.Time { return time.Now().Add(wait) }},
		{"wall only", func() time.Time { return time.Now().Round(0).Add(wait) }},
	} {
		// The deadline lies between start+wait and set+wait. It is late
		// when a look that began past set+wait finds it has not passed,
		// early when it has passed by a look that ended before
		// start+wait: each look timed on its own side, so a look the
		// machine delays is no failure (a loop timed as a whole failed
		// when the goroutine lost a second between two looks).
		var d idleDeadline
		start := time.Now()
		d.set(tc.end())
		set := time.Now()
		for {
			before := time.Now()
			passed := d.passed()
			if after := time.Now(); passed && after.Sub(start) < wait {
				t.Errorf("%s: a deadline %v away passed after %v", tc.name, wait, after.Sub(start))
			}
			if late := before.Sub(set) - wait; !passed && late > lateBy {
				t.Errorf("%s: a deadline %v away not passed %v past it", tc.name, wait, late)
				break
			}
			if passed {
				break
			}
			time.Sleep(time.Millisecond)
		}
		d.set(time.Time{})
		if d.passed() {
			t.Errorf("%s: an unset deadline has passed", tc.name)
		}
	}
	var d idleDeadline
	if d.passed() {
		t.Error("a deadline never set has passed")
	}
	d.set(time.Unix(1, 0))
	if !d.passed() {
		t.Error("a deadline of 1970 has not passed")
	}
}

// A handler that hijacked a TLS connection (the proxy's upgrade) closes
// it unannounced too: its alert gets 3 s on a full socket, as NGINX's
// close of an upgraded connection gives it; but a close after a read of
// the handler's timed out is quiet and at once, as NGINX's shutdown of a
// connection whose client timed out.
func TestTLSHijackedCloseBounded(t *testing.T) {
	for _, tc := range []struct {
		name        string
		readTimeout bool // the hijacker's read times out before it closes
	}{{"normal", false}, {"after a read timeout", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
			if err != nil {
				t.Fatal(err)
			}
			type closed struct {
				took  time.Duration
				waits []time.Duration
				err   error
			}
			result := make(chan closed, 1)
			s := &Server{Logger: quietLogger, TLSConfig: testServerTLS(t), Limits: Limits{KeepAliveTimeout: time.Minute},
				Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					nc, _, err := http.NewResponseController(w).Hijack()
					if err != nil {
						t.Error(err)
						result <- closed{}
						return
					}
					_, _ = io.WriteString(nc, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: upgrade\r\n\r\n")
					if tc.readTimeout {
						_ = nc.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
						if _, err := nc.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
							t.Errorf("the hijacker's read: %v; want its deadline passed", err)
						}
					}
					fill(t, sockOf(nc).Conn)
					start := time.Now()
					err = nc.Close()
					result <- closed{time.Since(start), notesOf(nc).waited(0), err}
				})}
			serveTLSRequest(t, s, ln, "GET / HTTP/1.1\r\nHost: x\r\nConnection: upgrade\r\nUpgrade: x\r\n\r\n")
			got := <-result
			switch {
			case !tc.readTimeout && !alertWaited(got.took, got.waits):
				t.Errorf("the hijacker's Close of a full socket took %v, its writes waiting %v for room; want %v",
					got.took, got.waits, alertWait)
			// The quiet close is told by its error, and by no write
			// waiting for room.
			case tc.readTimeout && (len(got.waits) > 0 || !errors.Is(got.err, errQuietClose)):
				t.Errorf("the hijacker's Close of a full socket after a read timeout waited %v for room (%v); want at once, quietly",
					got.waits, got.err)
			}
		})
	}
}

// A record of 2 bytes of data on a TLS 1.3 connection handed over,
// written with a deadline of 5 s (send_timeout 5s: HTTP/2's
// WriteByteTimeout, the proxy's upgraded connection), has an alert's
// size and a close's deadline: it is still data, and the writes after it
// keep their own deadlines rather than the alert's 3 s.
func TestTLSShortDataIsNoAlert(t *testing.T) {
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		t.Run(tls.VersionName(v), func(t *testing.T) {
			t.Parallel()
			srv, sock, cli := tlsPairUpTo(t, v)
			sock.handedOver.Store(true)
			_ = srv.SetWriteDeadline(time.Now().Add(5 * time.Second))
			if _, err := srv.Write([]byte("ab")); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(cli, make([]byte, 2)); err != nil {
				t.Fatal(err)
			}
			fill(t, sock.Conn)
			const wait = alertWait + 500*time.Millisecond
			start := time.Now() // before the deadline, as in TestIdleUntil
			_ = srv.SetWriteDeadline(start.Add(wait))
			if _, err := srv.Write([]byte("cd")); !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("a write to a full socket: %v; want its deadline passed", err)
			}
			if d := time.Since(start); d < wait-100*time.Millisecond {
				t.Errorf("a write to a full socket gave up after %v; want its own deadline, %v", d, wait)
			}
		})
	}
}
