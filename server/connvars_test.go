package server

import (
	"crypto/tls"
	"net"
	"testing"
	"time"
)

// The offers of handshakes wait in the table until the connection's
// context takes them, and go when a handshake fails or is abandoned.
func TestHelloTable(t *testing.T) {
	var tab helloTable
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	tab.put(&tls.ClientHelloInfo{Conn: a, CipherSuites: []uint16{0x1301}, SupportedCurves: []tls.CurveID{tls.X25519}})
	if tab.take(a) != nil {
		t.Error("a connection that is not TLS took an offer")
	}
	h := tab.take(tls.Server(a, &tls.Config{}))
	if h == nil || len(h.CipherSuites) != 1 || h.CipherSuites[0] != 0x1301 || h.Curves[0] != tls.X25519 {
		t.Fatalf("take: %+v", h)
	}
	if tab.take(tls.Server(a, &tls.Config{})) != nil || len(tab.m) != 0 {
		t.Error("an offer was taken twice")
	}

	tab.put(&tls.ClientHelloInfo{Conn: a})
	tab.drop(a)
	if len(tab.m) != 0 {
		t.Error("drop left the offer of a failed handshake")
	}

	// An offer older than helloMaxAge goes with the next sweep.
	tab.put(&tls.ClientHelloInfo{Conn: a})
	e := tab.m[a]
	e.at = time.Now().Add(-helloMaxAge - time.Second)
	tab.m[a] = e
	tab.swept = time.Time{}
	tab.put(&tls.ClientHelloInfo{Conn: b})
	if _, ok := tab.m[a]; ok || len(tab.m) != 1 {
		t.Errorf("after the sweep: %d offers, the old one kept: %v", len(tab.m), ok)
	}
}

// sockOf finds the socket under TLS; a connection without one has none.
func TestSockOf(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if sockOf(c) == nil || sockOf(tls.Client(c, &tls.Config{})) == nil {
		t.Error("no socket under a TCP connection")
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if sockOf(a) != nil {
		t.Error("a socket under a pipe")
	}
}
