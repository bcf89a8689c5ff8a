package http1

import (
	"crypto/tls"
	"errors"
	"net"
	"os"
	"runtime"
	"sync/atomic"
	"time"
)

// Closing a TLS connection that timed out. tls.Conn's Close sends a
// close_notify alert first and gives it a fixed 5 s: on a connection
// whose client stopped reading, its socket buffer full, the socket and
// the goroutine closing it would outlive the timeout that closed it by
// 5 s, where NGINX closes at once (ngx_ssl_shutdown shuts a connection
// that timed out down quietly, with no alert; the alert of any other
// close gets up to 3 s in NGINX 1.22). tlsSock, the socket as tls.Server
// sees it, makes the alert's write give up:
//
//   - after a write timed out (send_timeout, HTTP/2's WriteByteTimeout):
//     every write fails at once; tls.Conn fails its own writes from then
//     on anyway, a record may have gone out cut short, and NGINX sends no
//     alert after a send timeout;
//   - when a connection whose last read timed out (client_header_timeout
//     in the middle of a header, client_body_timeout) closes: the same,
//     as NGINX's c->timedout makes its shutdown quiet;
//   - when a connection closes after its wait for a request ended
//     (keepalive_timeout, client_header_timeout before any byte) or a
//     shutdown closes it idle: the alert goes if the socket takes it at
//     once, and is dropped if it does not. NGINX sends it there, with up
//     to 3 s for it; here it gets no wait: Shutdown and Close close idle
//     connections with the server's lock held, and a wait of 5 s for
//     each client that stopped reading would hold them all up.
//
// A handler that hijacked a connection and closes it after a read of
// its timed out (a deadline of its own) closes it quietly too, as NGINX
// shuts down quietly any connection whose client timed out. HTTP/2's
// server is no hijacker: NGINX's own HTTP/2 sends the alert after a read
// timeout (the preface's client_header_timeout), its GOAWAY before it.
//
// Every other close (a response done, Connection: close, the last of
// keepalive_requests, the alert that starts a lingering close, and the
// closes of the server a connection was handed over to, HTTP/2's, or of
// the handler that hijacked it, the proxy's of an upgraded connection)
// gives the alert alertWait, as NGINX's ngx_ssl_shutdown gives a socket
// that did not take it 3 s, and then closes quietly; tls.Conn alone gave
// it 5 s. http1 says so before its own closes (closeBounded); the other
// server and the hijacker close with tls.Conn.Close unannounced, so for
// a connection handed over tlsSock knows the alert when tls.Conn writes
// it (alertRecord).

// tlsSock modes: what a write does.
const (
	sockOpen    int32 = iota // as the socket's own
	sockNoWait               // one attempt, no wait for room
	sockQuiet                // fails at once
	sockBounded              // the alert of a normal close: alertWait at most
)

// alertWait is how long a normal close waits for room for its
// close_notify alert: NGINX's ngx_ssl_shutdown arms a timer of 3 s when
// SSL_shutdown cannot write it, and closes quietly when it fires.
const alertWait = 3 * time.Second

// errQuietClose is what a write on a connection closing quietly returns.
var errQuietClose = errors.New("http1: connection timed out, closing without close_notify")

type tlsSock struct {
	net.Conn
	mode atomic.Int32
	// readTimedOut says the last read ended at its deadline; rWake that
	// the read deadline was set to wake a read, which is no timeout:
	// aLongTimeAgo (stopWatch, closeForHandler), or any deadline already
	// past set while a read waits (the proxy and uwsgi handlers cut a
	// client's upload with time.Now() when their upstream fails). A
	// deadline already past set before a read is a timeout: a timeout of
	// 0 (NGINX's "at once", server.ZeroTimeout, 1 ns) sets one.
	readTimedOut, rWake atomic.Bool
	// reading says a Read waits on the socket (tls.Conn reads it from one
	// goroutine at a time).
	reading atomic.Bool
	// handedOver says the connection went to another server (HTTP/2) or
	// to a handler that hijacked it, which close it unannounced (see
	// alertRecord).
	handedOver atomic.Bool
	// hijacked says a handler took the connection (Hijack): its close
	// after a read timed out is quiet.
	hijacked atomic.Bool
	// idleEnd is when the idle connection handed over closes (its
	// server's idle timeout, or a shutdown); unset while a request is
	// open (see IdleUntil).
	idleEnd idleDeadline
}

func (s *tlsSock) Read(p []byte) (int, error) {
	s.reading.Store(true)
	n, err := s.Conn.Read(p)
	s.reading.Store(false)
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) && !s.rWake.Load() {
		s.readTimedOut.Store(true)
	} else if n > 0 && s.readTimedOut.Load() {
		s.readTimedOut.Store(false)
	}
	return n, err
}

func (s *tlsSock) Write(p []byte) (int, error) {
	switch s.mode.Load() {
	case sockQuiet:
		return 0, errQuietClose
	case sockNoWait:
		return writeOnce(s.Conn, p)
	case sockOpen:
		if !s.handedOver.Load() {
			break
		}
		if s.idleEnd.passed() {
			return writeOnce(s.Conn, p) // the idle close's GOAWAY, its alert
		}
		if !alertRecord(p) {
			break
		}
		if s.hijacked.Load() && s.readTimedOut.Load() {
			s.mode.CompareAndSwap(sockOpen, sockQuiet)
			return 0, errQuietClose
		}
		s.mode.CompareAndSwap(sockOpen, sockBounded)
		fallthrough
	case sockBounded:
		_ = s.Conn.SetWriteDeadline(time.Now().Add(alertWait))
	}
	n, err := s.Conn.Write(p)
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		s.mode.Store(sockQuiet)
	}
	return n, err
}

func (s *tlsSock) SetReadDeadline(t time.Time) error {
	s.rWake.Store(s.isWake(t))
	return s.Conn.SetReadDeadline(t)
}

func (s *tlsSock) SetDeadline(t time.Time) error {
	s.rWake.Store(s.isWake(t))
	return s.Conn.SetDeadline(t)
}

// alertRecord reports whether p, a record tls.Conn writes (one a Write),
// is an alert. Up to TLS 1.2 its type says so (21). TLS 1.3 disguises an
// alert as application data (23): its 2 bytes, with the inner type and
// the AEAD's 16-byte tag, make a record of 19 bytes, as do 2 bytes of
// data (a WebSocket ping that the proxy relays, the end of a write that
// tls.Conn cuts into records), and neither its deadline (tls.Conn's 5 s,
// send_timeout 5s) nor its place tells them apart; so a record of that
// size is an alert only when tls.Conn writes it while sending one
// (inSendAlert). Mistaking data for the alert would give every later
// write of the connection alertWait, whatever its send_timeout.
func alertRecord(p []byte) bool {
	const hdr = 5
	switch {
	case len(p) < hdr:
		return false
	case p[0] == 21:
		return true
	}
	return p[0] == 23 && len(p) == hdr+19 && int(p[3])<<8|int(p[4]) == 19 && inSendAlert()
}

// sendAlert is the function through which tls.Conn sends every alert,
// close_notify (Close, CloseWrite) included.
const sendAlert = "crypto/tls.(*Conn).sendAlertLocked"

// inSendAlert reports whether its caller runs under tls.Conn's
// sendAlert. It walks the stack: only a record of an alert's size on a
// connection handed over asks.
func inSendAlert() bool {
	var pcs [16]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs[:])])
	for {
		f, more := frames.Next()
		if f.Function == sendAlert {
			return true
		}
		if !more {
			return false
		}
	}
}

// isWake reports whether a read deadline of t, set now, is one set to
// wake a read (see rWake).
func (s *tlsSock) isWake(t time.Time) bool {
	return !t.IsZero() && (!t.After(aLongTimeAgo) || s.reading.Load() && !t.After(time.Now()))
}

// NetConn returns the socket underneath, as tls.Conn's does, for those
// that look through connections (the PROXY protocol reader, the socket's
// $tcpinfo_ variables).
func (s *tlsSock) NetConn() net.Conn { return s.Conn }

// sockOf returns the tlsSock under a TLS connection made by Serve, nil
// for any other.
func sockOf(rwc net.Conn) *tlsSock {
	tc, ok := rwc.(*tls.Conn)
	if !ok {
		return nil
	}
	s, _ := tc.NetConn().(*tlsSock)
	return s
}

// resetOnClose makes the close of rwc a reset (SO_LINGER 0): that of the
// socket under it, through TLS, Serve's tlsSock and the PROXY protocol
// reader (each says what it wraps with NetConn).
func resetOnClose(rwc net.Conn) {
	for rwc != nil {
		switch t := rwc.(type) {
		case interface{ SetLinger(int) error }:
			_ = t.SetLinger(0)
			return
		case interface{ NetConn() net.Conn }:
			rwc = t.NetConn()
		default:
			return
		}
	}
}

// transport returns the connection under TLS, past Serve's tlsSock.
func transport(tc *tls.Conn) net.Conn {
	if s, ok := tc.NetConn().(*tlsSock); ok {
		return s.Conn
	}
	return tc.NetConn()
}

// closeAtOnce makes the close_notify alert of rwc, a TLS connection whose
// wait for a request ended, go only if its socket takes it at once.
func closeAtOnce(rwc net.Conn) {
	if s := sockOf(rwc); s != nil {
		s.mode.CompareAndSwap(sockOpen, sockNoWait)
	}
}

// handOver notes that rwc, a TLS connection, is no longer Serve's: its
// closes are unannounced (alertRecord). hijacked says a handler took it;
// whether its close is quiet then depends on the handler's reads alone.
func handOver(rwc net.Conn, hijacked bool) {
	if s := sockOf(rwc); s != nil {
		if hijacked {
			s.readTimedOut.Store(false)
			s.hijacked.Store(true)
		}
		s.handedOver.Store(true)
	}
}

// closeBounded gives the close_notify alert of rwc, a TLS connection
// about to close normally, alertWait.
func closeBounded(rwc net.Conn) {
	if s := sockOf(rwc); s != nil {
		s.mode.CompareAndSwap(sockOpen, sockBounded)
	}
}

// IdleUntil tells Serve that c, a connection it handed over to HTTP/2
// (TLSNextProto, PriorKnowledge), is idle and closes at t if it still is
// then; the zero t, that it serves a request again. From t on its writes
// (the GOAWAY with which HTTP/2 ends an idle connection, the
// close_notify alert) go only if the socket takes them at once, as those
// of a connection of Serve's own that its keep-alive wait ends: a client
// that left the socket full would hold it until the write timeout
// (HTTP/2's WriteByteTimeout, send_timeout), where NGINX sends its
// GOAWAY once, closes quietly what its socket did not take and lingers
// for lingering_timeout at most. Any other connection is left as it is.
//
// t is measured on the monotonic clock, which a step of the wall clock
// does not move: a t from time.Now (plus a duration) carries its
// monotonic reading, and IdleUntil keeps it; a t without one (Round(0),
// time.Unix) is measured from monoBase's wall reading, so a step of the
// wall clock since the start moves it.
func IdleUntil(c net.Conn, t time.Time) {
	if rc, ok := c.(*replayConn); ok {
		rc.idleEnd.set(t)
	} else if s := sockOf(c); s != nil {
		s.idleEnd.set(t)
	}
}

// monoBase is the instant idleDeadline measures from; it carries a
// monotonic reading, so differences from it are monotonic ones.
var monoBase = time.Now()

// idleDeadline is when an idle connection handed over closes, as
// nanoseconds after monoBase on the monotonic clock; 0 is none. In Unix
// nanoseconds, as it was, a step of the wall clock moved every idle close with it:
// back by an hour, the GOAWAY and the alert of an idle close waited for
// room again; forward, those of a connection still in its idle time went
// only if the socket took them at once.
type idleDeadline struct{ at atomic.Int64 }

// set makes t the end; the zero t unsets it.
func (e *idleDeadline) set(t time.Time) {
	var at int64
	if !t.IsZero() {
		// At least 1: an end at or before monoBase has passed.
		at = max(int64(t.Sub(monoBase)), 1)
	}
	e.at.Store(at)
}

// passed reports whether the end is set and has come.
func (e *idleDeadline) passed() bool {
	at := e.at.Load()
	return at != 0 && int64(time.Since(monoBase)) >= at
}

// closeQuietIfTimedOut makes rwc, a TLS connection about to close, send
// no close_notify alert when its last read timed out.
func closeQuietIfTimedOut(rwc net.Conn) {
	if s := sockOf(rwc); s != nil && s.readTimedOut.Load() {
		s.mode.CompareAndSwap(sockOpen, sockQuiet)
	}
}
