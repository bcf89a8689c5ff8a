package http1

import (
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"time"
)

// TLS. With Server.TLSConfig set, Serve wraps each accepted connection in
// a *tls.Conn and the connection's own goroutine runs the handshake, so
// that a slow client holds up no other. The handshake gets HeaderTimeout,
// as NGINX bounds its handshakes by client_header_timeout. A connection
// whose ALPN protocol has an entry in TLSNextProto (HTTP/2) is handed
// over; the others are served as HTTP/1.x, exactly as plain connections
// are, with r.TLS set.

// errPlainHTTP is what a handshake that got an HTTP request is logged as.
var errPlainHTTP = errors.New("the plain HTTP request was sent to HTTPS port")

// handshake completes the TLS handshake of c. It reports whether c is to
// be served as HTTP/1.x: false when the handshake failed or another
// protocol has taken the connection over.
func (c *conn) handshake(tc *tls.Conn) bool {
	if err := tc.Handshake(); err != nil {
		if f := c.srv.TLSHandshakeFailed; f != nil {
			f(tc.NetConn())
		}
		c.handshakeFailed(err)
		return false
	}
	st := tc.ConnectionState()
	next := c.srv.TLSNextProto[st.NegotiatedProtocol]
	if next == nil {
		// One state for every request of the connection, as net/http
		// does: r.TLS is read, never written.
		c.tlsState = &st
		return true
	}
	// Claim the connection from Shutdown, which closes it if it is still
	// idle, before handing it over; from then on it is the other
	// server's, like a hijacked one.
	if !c.state.CompareAndSwap(stateIdle, stateActive) {
		return false
	}
	c.hijacked = true
	c.srv.removeConn(c)
	// The write deadline is the other server's to set; the read deadline
	// stays the handshake's, HeaderTimeout from the accept: NGINX's one
	// client_header_timeout covers HTTP/2's preface too, as it covers
	// HTTP/1's first header, and the other server lifts it.
	_ = tc.SetWriteDeadline(time.Time{})
	handOver(tc, false)
	next(tc)
	return false
}

// armHandshake gives the handshake, the look at the first byte included,
// HeaderTimeout from the accept.
func (c *conn) armHandshake(tc *tls.Conn) {
	if d := c.lim.HeaderTimeout; d > 0 {
		// Both directions: a client that stops reading stalls the
		// handshake as surely as one that stops writing. HTTP/1.x re-arms
		// both before its first read and write (awaitRequest, armWrite).
		_ = tc.SetDeadline(c.accepted.Add(d))
	}
}

// plainFirst reports whether the client's first byte is not a TLS
// record's (a handshake record begins with 0x16, an SSLv2-style hello
// with its high bit set), looking without taking it, as NGINX does
// before it serves such a client as plain HTTP. A connection it cannot
// look into, or one that fails or times out first, goes to the
// handshake, which meets the same end.
func (c *conn) plainFirst(nc net.Conn) bool {
	var b byte
	var err error
	if p, ok := nc.(interface{ PeekByte() (byte, error) }); ok {
		b, err = p.PeekByte()
	} else {
		b, err = peekSocket(nc)
	}
	if err != nil || b == 0x16 || b >= 0x80 {
		return false
	}
	c.srv.logger().Info("client sent plain HTTP request to HTTPS port", "client", c.remoteAddr)
	return true
}

// becomePlain makes c, whose client sent plain HTTP, a plain connection
// over nc. Shutdown and Close read c.rwc under the server's lock.
func (c *conn) becomePlain(nc net.Conn) {
	c.srv.mu.Lock()
	c.rwc = nc
	c.srv.mu.Unlock()
	c.initRaw()
}

// handshakeFailed logs a failed handshake at info, as NGINX does (it is
// the client's doing), and answers a client that sent plain HTTP to the
// TLS port with a 400, as NGINX does, rather than close without a word.
func (c *conn) handshakeFailed(err error) {
	if c.srv.closing.Load() {
		return // Shutdown closed the connection under the handshake
	}
	var re tls.RecordHeaderError
	if errors.As(err, &re) && re.Conn != nil && isPlainHTTP(re.RecordHeader) {
		err = errPlainHTTP
		writeRefusal(re.Conn, 497) // NGINX's code for plain HTTP on a TLS port
	}
	c.srv.logger().Info("TLS handshake failed", "client", c.remoteAddr, "error", err)
}

// isPlainHTTP reports whether the first bytes a client sent are those of
// an HTTP request rather than of a TLS record, which starts with its
// content type (20 to 24) where a request starts with its method.
func isPlainHTTP(hdr [5]byte) bool {
	return hdr[0] >= 'A' && hdr[0] <= 'Z'
}

// gatherMax bounds what writeBufs copies into one write on a TLS
// connection: beyond it, the records are full-sized anyway.
const gatherMax = 64 << 10

var gatherPool = sync.Pool{New: func() any { b := make([]byte, 0, outSize+4<<10); return &b }}

// writeBufs writes c.bufs. A socket takes them in one writev; a TLS
// connection would make a record, and a system call, of each slice (the
// header, a chunk size, the body), so there they are gathered into one
// write first.
func (c *conn) writeBufs() error {
	if c.tlsState == nil {
		if c.raw != nil {
			return c.writeRaw()
		}
		_, err := c.bufs.WriteTo(c.rwc)
		return err
	}
	size := 0
	for _, b := range c.bufs {
		size += len(b)
	}
	if size > gatherMax {
		_, err := c.bufs.WriteTo(c.rwc)
		return err
	}
	bp := gatherPool.Get().(*[]byte)
	out := (*bp)[:0]
	for _, b := range c.bufs {
		out = append(out, b...)
	}
	_, err := c.rwc.Write(out)
	*bp = out[:0]
	gatherPool.Put(bp)
	return err
}

// closeWrite shuts down the sending side of a connection before it
// lingers. On TLS that is a close_notify alert and then the socket's
// shutdown, as NGINX does: the alert alone would leave the client that
// reads the socket to its end waiting for it.
func closeWrite(rwc net.Conn) error {
	if tc, ok := rwc.(*tls.Conn); ok {
		if err := tc.CloseWrite(); err != nil {
			return err
		}
	}
	cw, ok := socketUnder(rwc).(interface{ CloseWrite() error })
	if !ok {
		return errors.ErrUnsupported
	}
	return cw.CloseWrite()
}

// socketUnder returns the connection under every wrapper of nc that
// names what it wraps (NetConn: TLS, Serve's tlsSock, the PROXY
// protocol's reader, replayConn): the socket, which the lingering close
// shuts down and looks into and writeOnce writes to. The PROXY
// protocol's reader hid it, and a connection that came through it closed
// without lingering.
func socketUnder(nc net.Conn) net.Conn {
	for {
		w, ok := nc.(interface{ NetConn() net.Conn })
		if !ok {
			return nc
		}
		nc = w.NetConn()
	}
}
