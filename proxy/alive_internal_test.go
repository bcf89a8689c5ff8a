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
		raw, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		c := newConn(&deadlineConn{Conn: rawsock.Wrap(raw)}, nil, nil, connID{})
		tc.peer(s)
		time.Sleep(20 * time.Millisecond) // for the bytes or the FIN to arrive
		if got := c.alive(); got != tc.alive {
			t.Errorf("%s: alive %v, want %v", tc.name, got, tc.alive)
		}
		c.close()
		s.Close()
	}
}
