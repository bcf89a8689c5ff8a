package proxy

import (
	"io"
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

// TestIdleCheckedOnEveryReuse: a connection put back a moment ago is
// checked before reuse like any other: one on which the server wrote
// after its response (a body after a HEAD's head) is closed, not handed
// to the next request, whose answer those bytes would become.
func TestIdleCheckedOnEveryReuse(t *testing.T) {
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
		unsent string // what the server writes while the connection is idle
		reused bool
	}{
		{"silent", "", true},
		{"bytes after the response", "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nPWNED!", false},
	} {
		c, s := dialConn(t, ln, p)
		probed := false
		c.probe = func(fd uintptr) { probed = true; c.probeFD(fd) }
		now := time.Now()
		up.putIdle(c, now.Add(-time.Millisecond))
		if tc.unsent != "" {
			if _, err := io.WriteString(s, tc.unsent); err != nil {
				t.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond) // on its way through loopback
		}
		got := up.getIdle(p, connID{}, now)
		if !probed {
			t.Errorf("%s: reused without the check", tc.name)
		}
		if (got == c) != tc.reused {
			t.Errorf("%s: got %p, want reused %v (the idle connection %p)", tc.name, got, tc.reused, c)
		}
		if got != nil {
			got.close()
		}
		s.Close()
	}
}

// dialConn connects a conn of peer p to ln, and returns it with the
// server's end.
func dialConn(t *testing.T, ln net.Listener, p *peer) (*conn, net.Conn) {
	t.Helper()
	raw, s := dialPair(t, ln)
	return newConn(&deadlineConn{Conn: rawsock.Wrap(raw)}, nil, p, connID{}), s
}

// dialPair connects to ln and returns the client's end and the
// server's.
func dialPair(t *testing.T, ln net.Listener) (net.Conn, net.Conn) {
	t.Helper()
	raw, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return raw, s
}
