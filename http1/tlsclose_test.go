//go:build linux

package http1

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// tlsPair returns both ends of a TLS connection over a Unix-domain
// socket, the server's over a tlsSock as Serve makes it, handshaken. A
// Unix-domain socket whose peer does not read takes nothing more once
// its buffer is full, whatever the size of the write (on the loopback,
// TCP's late acknowledgements often leave room for a short one).
func tlsPair(t *testing.T) (srv *tls.Conn, sock *tlsSock, cli *tls.Conn) {
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
		c := tls.Client(nc, &tls.Config{InsecureSkipVerify: true, ServerName: "test"})
		ch <- dialed{c, c.Handshake()}
	}()
	raw, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	sock = &tlsSock{Conn: raw}
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

// fill writes to c until a write times out: its peer reads nothing.
func fill(t *testing.T, c net.Conn) {
	t.Helper()
	buf := make([]byte, 64<<10)
	for {
		_ = c.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
		if _, err := c.Write(buf); err != nil {
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("filling: %v", err)
			}
			return
		}
	}
}

// closeTime closes c and says how long that took.
func closeTime(c *tls.Conn) (time.Duration, error) {
	start := time.Now()
	err := c.Close()
	return time.Since(start), err
}

// After a write timed out (send_timeout), Close sends no close_notify
// and returns at once, where tls.Conn alone waits 5 s for room.
func TestTLSCloseAfterWriteTimeout(t *testing.T) {
	srv, _, _ := tlsPair(t)
	fill(t, srv)
	d, err := closeTime(srv)
	if d > time.Second || !errors.Is(err, errQuietClose) {
		t.Errorf("Close after a write timeout took %v (%v); want at once, without close_notify", d, err)
	}
}

// A connection whose wait for a request ended sends close_notify if the
// socket takes it at once, and drops it if it does not.
func TestTLSCloseAtOnce(t *testing.T) {
	srv, _, cli := tlsPair(t)
	closeAtOnce(srv)
	if d, err := closeTime(srv); d > time.Second || err != nil {
		t.Errorf("Close with room took %v: %v; want the alert sent at once", d, err)
	}
	if _, err := cli.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("client read %v; want io.EOF", err)
	}

	srv, sock, _ := tlsPair(t)
	fill(t, sock.Conn) // under tlsSock: the socket full, no timeout seen
	closeAtOnce(srv)
	if d, err := closeTime(srv); d > time.Second || err == nil {
		t.Errorf("Close of a full socket took %v (%v); want at once, the alert dropped", d, err)
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
	if _, err := closeTime(srv); err != nil {
		t.Errorf("Close after a woken read: %v; want close_notify sent", err)
	}

	srv, _, _ = tlsPair(t)
	_ = srv.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := srv.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read: %v", err)
	}
	closeQuietIfTimedOut(srv)
	if _, err := closeTime(srv); !errors.Is(err, errQuietClose) {
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
	if _, err := closeTime(srv); err != nil {
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
	if _, err := closeTime(srv); !errors.Is(err, errQuietClose) {
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
