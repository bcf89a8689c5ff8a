package http1

import (
	"net"
	"testing"
)

// The connection's address in the request context is the listener's,
// and its text is made once: $server_addr and $server_port read it for
// every FastCGI request.
func TestLocalAddrTextMadeOnce(t *testing.T) {
	a := &localAddr{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}}
	if a.String() != "127.0.0.1:8080" || a.Network() != "tcp" {
		t.Errorf("%s %s", a.Network(), a)
	}
	if n := testing.AllocsPerRun(100, func() { _ = a.String() }); n != 0 {
		t.Errorf("the text is made again: %v allocations", n)
	}
}
