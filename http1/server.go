// Package http1 serves HTTP/1.0 and HTTP/1.1, on plain connections or
// over TLS, for an http.Handler.
//
// It does what net/http's server does for HTTP/1.x, with the costs of an
// edge server in mind: the status line, the header and a body that fits
// the output buffer leave in one writev; a connection that waits for a
// request, or for the rest of a header, holds no buffer and (plain
// connections) waits on a goroutine with a small stack (conn.go's fill
// and awaitRequest); the request header is read into one
// string that every header value shares; a client that goes away during
// a slow response is noticed without a goroutine or a timer per request
// (watch.go); and deadlines are re-armed only when stale (deadline.go).
// Handlers see the usual *http.Request and a ResponseWriter that
// implements http.Flusher, http.Hijacker, io.ReaderFrom (sendfile, and a
// *net.Buffers in one writev) and the deadline methods of
// http.ResponseController.
//
// Differences from net/http, each what NGINX does: no Content-Type
// sniffing (a response without Content-Type goes out without one); a
// request with both Content-Length and Transfer-Encoding, or with a
// transfer coding other than chunked, is refused (400, 501); header
// lines are limited like large_client_header_buffers (414 for a request
// line, 431 for a header field or the whole header); "Expect" values
// other than 100-continue are ignored; a connection closed while its
// client may still be sending lingers first (lingering_close).
//
// Over TLS, connections that choose another protocol by ALPN (HTTP/2)
// are handed over after the handshake (Server.TLSNextProto); the rest
// are served here like plain ones.
package http1

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mosaic-edge/mosaic/internal/reqrule"
)

// FieldRule is how one server counts a request's header fields, as
// NGINX's max_headers does: Max fields at most, counting those whose
// names Names keeps (underscores_in_headers, ignore_invalid_headers).
type FieldRule struct {
	Max   int
	Names reqrule.HeaderNames
}

// Limits are the timeouts and limits of a server's connections.
type Limits struct {
	// HeaderTimeout bounds reading a request's header, from its first
	// byte (from the connection's start for the first request), like
	// NGINX's client_header_timeout. Zero means no limit.
	HeaderTimeout time.Duration
	// KeepAliveTimeout is how long a connection may wait for its next
	// request (keepalive_timeout). Zero turns keep-alive off: every
	// response closes its connection, as "keepalive_timeout 0" does.
	KeepAliveTimeout time.Duration
	// MaxRequests closes a connection after that many requests
	// (keepalive_requests); zero means no limit.
	MaxRequests int
	// HeaderBufferBytes, MaxLineBytes and MaxHeaderBytes bound a request
	// header as NGINX's client_header_buffer_size and
	// large_client_header_buffers (size, and number × size) do: the header
	// is read into a buffer of HeaderBufferBytes, and a line that does
	// not fit what is left of it moves, whole, into one of
	// MaxHeaderBytes / MaxLineBytes large buffers of MaxLineBytes each,
	// and so on. A request line that cannot move is refused with 414, a
	// field with 400 (StatusHeaderTooLarge). Zero means 1 KB, 8 KB and
	// 32 KB. MaxHeaderBytes also bounds a chunked body's trailer.
	HeaderBufferBytes, MaxLineBytes, MaxHeaderBytes int

	// MaxFields bounds the number of a request's header fields, as
	// NGINX's max_headers does (494 and close for the field after it);
	// zero without FieldLimit means 1000. Only names of letters, digits
	// and '-' count, the others being dropped uncounted as NGINX's
	// ignore_invalid_headers does by default. Where the servers of an
	// address differ, in max_headers or in the names they keep, MaxFields
	// is their smallest value and FieldLimit gives the rule in force: that
	// of the server host chooses (a Host field or an absolute-form target;
	// "" for none), else the one the connection starts in (cs being its
	// TLS state, nil on a plain connection). NGINX checks each field
	// against the server in force when it reads it.
	MaxFields  int
	FieldLimit func(host string, cs *tls.ConnectionState) FieldRule

	// ResetTimedOut ends a connection whose client timed out (in the
	// middle of its header, of its body, or of a response's sending) with
	// a reset rather than a FIN, as reset_timedout_connection does: the
	// kernel then drops what it still holds for that client at once.
	ResetTimedOut bool

	// WriteTimeout bounds the writes of each response, from the start of
	// the request; handlers may move the deadline (http.ResponseController).
	// It covers what the server writes after the handler returns: the
	// buffered rest of the response. Zero means no limit.
	WriteTimeout time.Duration

	// Lingering: when the server closes a connection whose client may
	// still be sending (a request body left unread, a refused request,
	// pipelined requests beyond MaxRequests), it first shuts down its
	// sending side and reads and drops what comes for up to LingerTime in
	// all, waiting at most LingerTimeout for each read, as NGINX's
	// lingering_close does: closing with unread data makes the kernel
	// reset the connection, which can destroy the response before the
	// client reads it. Linger says when (LingerOn, LingerOff,
	// LingerAlways); zero durations mean 30 s and 5 s.
	Linger                    LingerMode
	LingerTime, LingerTimeout time.Duration

	// PriorKnowledge says that a plain connection whose first bytes are
	// HTTP/2's connection preface goes to Server.PriorKnowledge (NGINX's
	// "listen ... http2" without ssl); the value in force when its first
	// request comes decides.
	PriorKnowledge bool
}

// SetLimits replaces the server's limits while it runs (a configuration
// reload): each request takes the limits in force when it starts.
func (s *Server) SetLimits(l Limits) { s.limits.Store(&l) }

// current returns the limits in force.
func (s *Server) current() *Limits {
	if l := s.limits.Load(); l != nil {
		return l
	}
	return &s.Limits
}

// Server serves HTTP/1.x connections accepted from listeners. As with
// net/http, a handler may not use its ResponseWriter once it has returned;
// here the connection's next response reuses the header map.
type Server struct {
	Handler http.Handler
	// Limits are the server's timeouts and limits; SetLimits replaces
	// them while it runs.
	Limits

	// ConnContext, when set, derives the context of a connection's
	// requests from the connection's base context.
	ConnContext func(context.Context, net.Conn) context.Context
	// NewRecord, when set, returns a new record for each request whose
	// header is whole: the record holds the request's Exchange, and
	// derives its context (Record.Context). A handler that would wrap
	// the context anyway saves copying the request with WithContext, and
	// one that keeps a record of its own for each request, an allocation.
	NewRecord func() Record
	// Logger receives connection-level errors (bad requests and failed
	// TLS handshakes at info, panics at error). Nil means slog.Default().
	Logger *slog.Logger
	// Refused, when set, is told of every request that ended before it
	// reached the handler: a malformed or oversized header (answered
	// with 400, 414, 494, 501 or 505) or one not whole within
	// HeaderTimeout (408: closed with nothing sent, as NGINX does). It
	// may write the answer through Refusal.Answer (NGINX's add_header
	// and error_page apply to these); what it leaves unwritten, the
	// server's own page answers. NGINX writes these to its access log; a
	// connection that sent nothing is not reported. It runs on the
	// connection's goroutine.
	Refused func(*Refusal)

	// Stats, when set, counts the server's connections by state and its
	// requests (NGINX's stub_status). Servers may share one.
	Stats *ConnStats

	// TLSConfig, when set, makes every connection Serve accepts TLS. Each
	// handshakes on its own goroutine within HeaderTimeout; requests
	// carry the connection's state in r.TLS. Its NextProtos should offer
	// only "http/1.1" and the keys of TLSNextProto.
	TLSConfig *tls.Config
	// TLSNextProto takes over, once its handshake is done, a TLS
	// connection whose ALPN protocol is a key of the map (such as "h2",
	// for an HTTP/2 server); connections without an entry ("http/1.1",
	// none) are served here. The function runs on the connection's
	// goroutine and owns the connection: Shutdown and Close neither wait
	// for it nor close it. The connection keeps the handshake's read
	// deadline (HeaderTimeout from the accept), for the function to lift
	// once the protocol's first request has come.
	TLSNextProto map[string]func(*tls.Conn)
	// PlainHTTP, with TLSConfig, serves a connection whose first byte is
	// not a TLS record's as plain HTTP/1.x, its requests' r.TLS nil, for
	// the handler to answer as NGINX answers a plain HTTP request on an
	// HTTPS port (497, which error_page may turn into a redirect). Without
	// it such a client is answered 400 "The plain HTTP request was sent to
	// HTTPS port" here.
	PlainHTTP bool
	// PriorKnowledge takes over, while Limits.PriorKnowledge is on, a
	// plain connection that starts with HTTP/2's connection preface
	// (HTTP/2 with prior knowledge, RFC 9113 §3.3); other connections
	// are served here. The connection it gets reads the bytes already
	// read again first. Like TLSNextProto's functions, it runs on the
	// connection's goroutine and owns the connection.
	PriorKnowledge func(net.Conn)
	// TLSHandshakeFailed, when set, is told of each failed handshake,
	// with the connection that TLS ran over (what tls.ClientHelloInfo.Conn
	// was), so that what a GetConfigForClient kept for it can go.
	TLSHandshakeFailed func(net.Conn)

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	closing   atomic.Bool
	limits    atomic.Pointer[Limits] // set by SetLimits
	done      chan struct{}          // closed when the last connection has gone, during Shutdown
	watch     watcher
	// The idle sweeper (idle.go): its tick, and whether it runs (s.mu).
	idleTick     atomic.Int64
	idleSweeping bool
}

// Refusal is a request that ended before it reached the handler.
type Refusal struct {
	// Status is the request's status: 400, 414, 494 (below), 501 or 505
	// for a header to be answered with an error page; 408 for a header
	// timeout and 400 for a client that closed in its header, neither
	// answered.
	Status int
	// Line is the request line as received, whole or cut short (NGINX's
	// $request for such a request); "" when none came.
	Line string
	// Method is the method of a request line read whole and valid (the
	// fields refused, or not whole in time), "" when the line itself was
	// refused or not whole.
	Method string
	// Header holds the fields that came whole before the line refused
	// (NGINX has read them: its $http_ variables see them), the Host
	// field among them as sent; nil when the request line was refused or
	// not whole.
	Header http.Header
	// Host is the host that had chosen the request's server when it was
	// refused, as NGINX chooses it as soon as it reads it: an
	// absolute-form target's, else the first Host field's when valid;
	// "" when none had (the server is then the one TLS's server name
	// chose, or the default).
	Host string
	// AtEnd says the refusal came from a check made once the header had
	// ended (HTTP/1.1 without Host, a bad Content-Length or
	// Transfer-Encoding): NGINX has then looked the server up again, for
	// an empty name when no Host had chosen one.
	AtEnd bool
	// TLS is the connection's TLS state, nil on a plain connection.
	TLS *tls.ConnectionState
	// Answer is the response to a refusal to be answered (nil for one
	// that is not): the connection closes after it, whatever it says.
	Answer http.ResponseWriter
	// Start is when the request's first byte came.
	Start time.Time
	// RemoteAddr is the client's address, as in http.Request.
	RemoteAddr string
	// Context is the connection's context (ConnContext applied).
	Context context.Context
}

// StatusHeaderTooLarge is NGINX's 494: a header field, or the whole
// header, over the limits. It goes out as 400 with NGINX's explanation,
// "Request Header Or Cookie Too Large"; error_page catches it as 494.
const StatusHeaderTooLarge = 494

// LingerMode says when a connection lingers before it closes.
type LingerMode int

const (
	LingerOn     LingerMode = iota // when the client may still be sending
	LingerOff                      // never
	LingerAlways                   // whenever the server closes after a request
)

// Connection states, as Shutdown sees them.
const (
	stateIdle   int32 = iota // waiting for a request: may be closed at once
	stateActive              // reading or serving a request
	stateClosed              // closed by Shutdown or Close
)

// Serve accepts connections from ln and serves them until ln fails or
// the server is shut down, in which case it returns http.ErrServerClosed.
// It closes ln before it returns.
func (s *Server) Serve(ln net.Listener) error {
	defer ln.Close()
	if !s.track(ln, true) {
		return http.ErrServerClosed
	}
	defer s.track(ln, false)
	var backoff time.Duration
	for {
		rwc, err := ln.Accept()
		if err != nil {
			if s.closing.Load() {
				return http.ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || isTemporary(err) {
				// Out of descriptors or a similar passing state: wait
				// and retry rather than end the listener.
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.logger().Warn("accept failed, retrying", "error", err, "in", backoff)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		if s.TLSConfig != nil {
			rwc = tls.Server(&tlsSock{Conn: rwc}, s.TLSConfig) // handshaken by serve, off this loop
		}
		c := newConn(s, rwc)
		if !s.addConn(c) {
			_ = rwc.Close()
			return http.ErrServerClosed
		}
		c.setStat(statWaiting)
		go c.serve()
	}
}

func isTemporary(err error) bool {
	t, ok := err.(interface{ Temporary() bool })
	return ok && t.Temporary()
}

func (s *Server) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

func (s *Server) track(ln net.Listener, add bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !add {
		delete(s.listeners, ln)
		return true
	}
	if s.closing.Load() {
		return false
	}
	if s.listeners == nil {
		s.listeners = map[net.Listener]struct{}{}
	}
	s.listeners[ln] = struct{}{}
	return true
}

func (s *Server) addConn(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Load() {
		return false
	}
	if s.conns == nil {
		s.conns = map[*conn]struct{}{}
	}
	s.conns[c] = struct{}{}
	if !s.idleSweeping {
		s.idleSweeping = true
		go s.sweepIdle()
	}
	return true
}

func (s *Server) removeConn(c *conn) {
	c.setStat(statNone)
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
	if len(s.conns) == 0 && s.done != nil {
		close(s.done)
		s.done = nil
	}
}

// Shutdown stops accepting, closes idle connections, lets requests in
// flight finish (each connection closes after its current response) and
// returns when none is left or ctx ends; then it closes what remains and
// returns ctx's error.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing.Store(true)
	err := s.closeListeners()
	// Every Shutdown in progress waits for the same channel.
	done := s.done
	if done == nil && len(s.conns) > 0 {
		done = make(chan struct{})
		s.done = done
	}
	for c := range s.conns {
		c.closeIfIdle()
	}
	s.mu.Unlock()
	if done == nil {
		return err
	}
	select {
	case <-done:
		return err
	case <-ctx.Done():
		s.closeAll()
		return ctx.Err()
	}
}

// Close closes the listeners and every connection at once.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closing.Store(true)
	err := s.closeListeners()
	s.mu.Unlock()
	s.closeAll()
	return err
}

// closeListeners closes the listeners once; s.mu is held.
func (s *Server) closeListeners() error {
	var err error
	for ln := range s.listeners {
		if cerr := ln.Close(); cerr != nil && err == nil {
			err = cerr
		}
		delete(s.listeners, ln)
	}
	return err
}

func (s *Server) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.state.Store(stateClosed)
		c.wake()
		closeAtOnce(c.rwc) // under s.mu: no waiting on a client
		_ = c.rwc.Close()
	}
}
