package server

import (
	"crypto/tls"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/mosaic-edge/mosaic/vars"
)

// What a connection's variables read beyond the request: its socket
// ($tcpinfo_*) and what its TLS client offered ($ssl_ciphers,
// $ssl_curves). Both are found once per connection, when its context is
// made.

// sockOf returns the socket under c, through TLS and the PROXY protocol
// reader; nil for a connection without one.
func sockOf(c net.Conn) syscall.RawConn {
	for c != nil {
		switch t := c.(type) {
		case *tls.Conn:
			c = t.NetConn()
			continue
		case syscall.Conn:
			rc, err := t.SyscallConn()
			if err != nil {
				return nil
			}
			return rc
		case interface{ NetConn() net.Conn }:
			c = t.NetConn()
			continue
		}
		return nil
	}
	return nil
}

// helloMaxAge bounds how long an offer waits for its connection's
// context. A failed handshake drops its offer (drop); one that http1
// handed to HTTP/2 after a shutdown began never gets a context, and a
// later handshake clears its offer once it is this old. It is longer
// than a handshake takes (client_header_timeout bounds them).
const helloMaxAge = 5 * time.Minute

// clientHellos holds the offers of the handshakes under way, by the
// connection that TLS runs over (tls.ClientHelloInfo.Conn, which the
// *tls.Conn's NetConn returns), from the ClientHello until the
// connection's context takes them.
var clientHellos helloTable

type helloTable struct {
	mu    sync.Mutex
	m     map[net.Conn]helloEntry
	swept time.Time
}

type helloEntry struct {
	hello *vars.ClientHello
	at    time.Time
}

// put records what hello offers on its connection.
func (t *helloTable) put(hello *tls.ClientHelloInfo) {
	if hello.Conn == nil {
		return
	}
	h := &vars.ClientHello{
		CipherSuites: append([]uint16(nil), hello.CipherSuites...),
		Curves:       append([]tls.CurveID(nil), hello.SupportedCurves...),
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[net.Conn]helloEntry{}
	}
	if now.Sub(t.swept) > time.Minute {
		t.swept = now
		for c, e := range t.m {
			if now.Sub(e.at) > helloMaxAge {
				delete(t.m, c)
			}
		}
	}
	t.m[hello.Conn] = helloEntry{h, now}
}

// drop forgets the offer of a handshake that failed over c.
func (t *helloTable) drop(c net.Conn) {
	t.mu.Lock()
	delete(t.m, c)
	t.mu.Unlock()
}

// take returns and forgets the offer of c's handshake, nil when c is not
// a TLS connection or its offer is not known.
func (t *helloTable) take(c net.Conn) *vars.ClientHello {
	tc, ok := c.(*tls.Conn)
	if !ok {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.m[tc.NetConn()]
	if !ok {
		return nil
	}
	delete(t.m, tc.NetConn())
	return e.hello
}
