package proxy

import (
	"net"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/rawsock"
)

// TestConnAlive: an idle connection is alive while the server keeps it
// open and silent, and not once it has sent something unasked or closed.
// (A read under a deadline already past never reaches the socket, so the
// check must read it without one.)
func TestConnAlive(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, tc := range []struct {
		name  string
		peer  func(net.Conn)
		alive bool
	}{
		{"open and silent", func(net.Conn) {}, true},
		{"sent something", func(s net.Conn) { s.Write([]byte("HTTP/1.1 408 Request Timeout\r\n\r\n")) }, false},
		{"closed", func(s net.Conn) { s.Close() }, false},
	} {
		c, s := dialConn(t, ln, nil)
		tc.peer(s)
		time.Sleep(20 * time.Millisecond) // for the bytes or the FIN to arrive
		if got := c.alive(); got != tc.alive {
			t.Errorf("%s: alive %v, want %v", tc.name, got, tc.alive)
		}
		c.close()
		s.Close()
	}
}

// TestIdleCheckSkippedWhenJustIdle: a connection put back moments ago is
// reused without the read that checks it, unless the request could not
// be sent again (a streamed body), and one idle longer is checked.
func TestIdleCheckSkippedWhenJustIdle(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	up, err := NewUpstream("u", []Server{{Addr: ln.Addr().String()}}, 4)
	if err != nil {
		t.Fatal(err)
	}
	p := up.primary[0]
	for _, tc := range []struct {
		name   string
		idle   time.Duration
		check  bool
		probed bool
	}{
		{"just idle", time.Millisecond, false, false},
		{"just idle, body not replayable", time.Millisecond, true, true},
		{"idle a while", 2 * trustIdle, false, true},
	} {
		c, s := dialConn(t, ln, p)
		probed := false
		c.probe = func(fd uintptr) { probed = true; c.probeFD(fd) }
		now := time.Now()
		up.putIdle(c, now.Add(-tc.idle))
		if got := up.getIdle(p, connID{}, now, tc.check); got != c {
			t.Errorf("%s: got %p, want the idle connection %p", tc.name, got, c)
		}
		if probed != tc.probed {
			t.Errorf("%s: checked %v, want %v", tc.name, probed, tc.probed)
		}
		c.close()
		s.Close()
	}
}

// dialConn connects a conn of peer p to ln, and returns it with the
// server's end.
func dialConn(t *testing.T, ln net.Listener, p *peer) (*conn, net.Conn) {
	t.Helper()
	raw, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return newConn(&deadlineConn{Conn: rawsock.Wrap(raw)}, nil, p, connID{}), s
}
