package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/http1"
	"github.com/mosaic-edge/mosaic/internal/reqrule"
	"github.com/mosaic-edge/mosaic/vars"
)

// sslFiles is what ssl_certificate or ssl_certificate_key lines at one
// level name: several lines add up, so that a server can hold an RSA and
// an ECDSA certificate (each with the key of the same rank), and a level
// that names none inherits its parent's list, as NGINX merges them.
type sslFiles struct {
	files []string
	dirs  []*conf.Directive
	// tpls holds, for each file, its name's template when it has
	// variables (nil otherwise): NGINX 1.15.9's certificates chosen per
	// handshake ("ssl_certificate /etc/ssl/$ssl_server_name.crt").
	tpls    []*vars.Template
	dynamic bool
}

// setCertificate reads ssl_certificate (key false) or ssl_certificate_key.
func setCertificate(key bool) func(*Cmd) error {
	return func(c *Cmd) error {
		cl := c.Loc().(*coreLoc)
		s := &cl.sslCerts
		if key {
			s = &cl.sslKeys
		}
		var tpl *vars.Template
		if strings.Contains(c.Args[0], "$") {
			t, err := c.Template(c.Args[0])
			if err != nil {
				return err
			}
			tpl = t
		}
		s.V.files = append(s.V.files, c.Args[0])
		s.V.dirs = append(s.V.dirs, c.Directive)
		s.V.tpls = append(s.V.tpls, tpl)
		s.V.dynamic = s.V.dynamic || tpl != nil
		s.Set = true
		return nil
	}
}

// setSSL reads the old "ssl on|off": on makes the server's addresses
// speak TLS, as NGINX 1.22 still does with a deprecation warning.
func setSSL(c *Cmd) error {
	cl := c.Loc().(*coreLoc)
	if err := PutFlag(c, &cl.sslOn); err != nil {
		return err
	}
	cl.sslOnAt = c.Pos()
	c.Notice("the \"ssl\" directive is deprecated, use the \"listen ... ssl\" directive instead")
	return nil
}

// loadCerts reads the server's certificates, its own or those it inherits
// from http level, once settings are merged. Pairs already read for
// another server are shared (loaded holds them by "cert\x00key").
func (s *VServer) loadCerts(loaded map[string]*tls.Certificate) error {
	cl := LocConf[*coreLoc](s.level, coreModule)
	certs, keys := cl.sslCerts.V, cl.sslKeys.V
	if len(certs.files) == 0 {
		if cl.sslOn.V && !sslOf(s).reject.V {
			return fmt.Errorf("no \"ssl_certificate\" is defined for the \"ssl\" directive in %s", cl.sslOnAt)
		}
		return nil
	}
	if len(keys.files) < len(certs.files) {
		d := certs.dirs[len(keys.files)]
		return conf.Errorf(d, "no \"ssl_certificate_key\" is defined for certificate %q", d.Args[0])
	}
	var passwords []string
	pf := sslOf(s).passwords
	if pf.Set {
		var err error
		if passwords, err = readPasswords(pf.V); err != nil {
			return err
		}
	}
	if certs.dynamic || keys.dynamic {
		// As NGINX: with a variable in any of the names, every pair is
		// read at each handshake (dynamicCerts).
		s.dynamic = &dynamicCerts{certs: certs, keys: keys, passwords: passwords, logf: s.cfg.Logger}
		return nil
	}
	s.certs = make([]tls.Certificate, len(certs.files))
	for i, d := range certs.dirs {
		id := certs.files[i] + "\x00" + keys.files[i] + "\x00" + pf.V.path
		cert := loaded[id]
		if cert == nil {
			c, err := loadKeyPair(certs.files[i], keys.files[i], passwords)
			if err != nil {
				return &conf.Error{Msg: fmt.Sprintf("cannot load certificate %q: %v", certs.files[i], err), File: d.File, Line: d.Line, Err: err}
			}
			cert = &c
			loaded[id] = cert
		}
		s.certs[i] = *cert
	}
	return nil
}

var tlsVersions = map[string]uint16{
	"TLSv1":   tls.VersionTLS10,
	"TLSv1.1": tls.VersionTLS11,
	"TLSv1.2": tls.VersionTLS12,
	"TLSv1.3": tls.VersionTLS13,
}

func setSSLProtocols(c *Cmd) error {
	var lo, hi uint16
	for _, a := range c.Args {
		// NGINX's bitmask values ignore case: "tlsv1.2" is TLSv1.2.
		var v uint16
		for name, tv := range tlsVersions {
			if strings.EqualFold(a, name) {
				v = tv
			}
		}
		if v == 0 {
			if strings.EqualFold(a, "SSLv2") || strings.EqualFold(a, "SSLv3") {
				c.Notice(fmt.Sprintf("ignoring %q: not supported", a))
				continue
			}
			return c.Invalid(a, "")
		}
		if lo == 0 || v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	// NGINX's ssl_protocols is a bitmask that each line at a level adds
	// to: "ssl_protocols TLSv1.2;" in an included snippet and
	// "ssl_protocols TLSv1.3;" after it allow both, not the last alone.
	s := &c.Loc().(*coreLoc).sslProtocols
	if prev := s.V; s.Set && prev[0] != 0 {
		if lo == 0 || prev[0] < lo {
			lo = prev[0]
		}
		hi = max(hi, prev[1])
	}
	s.Put([2]uint16{lo, hi})
	return nil
}

// tlsConfig returns the TLS settings of a listener. The server is chosen
// by SNI among the servers of the address, from the current configuration
// so that a reload changes certificates and settings without a new
// socket; a server without certificates is answered with the default
// server's. HTTP/2 is offered by ALPN when a listen of the address says
// http2 (NGINX 1.22) or the server chosen says "http2 on" (NGINX 1.25).
func tlsConfig(cur *atomic.Pointer[Config], bound string) *tls.Config {
	return &tls.Config{
		NextProtos: []string{"h2", "http/1.1"},
		GetConfigForClient: func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
			cfg := cur.Load()
			g := cfg.groupFor(bound, func() string {
				if hello.Conn == nil {
					return ""
				}
				return hello.Conn.LocalAddr().String()
			})
			if g == nil {
				return nil, fmt.Errorf("no server for %s", bound)
			}
			s := g.def
			if name, ok := reqrule.Host(hello.ServerName); ok {
				s = g.find(name)
			}
			sl := sslOf(s)
			if sl.reject.V {
				// ssl_reject_handshake: NGINX ends it with an
				// unrecognized_name alert; Go's is internal_error.
				return nil, fmt.Errorf("handshake for %q rejected by ssl_reject_handshake", hello.ServerName)
			}
			h2 := g.http2 || sl.http2.V
			if s.tls == nil {
				s = g.def
			}
			if s.tls == nil {
				return nil, fmt.Errorf("no certificate for %q", hello.ServerName)
			}
			clientHellos.put(hello) // for $ssl_ciphers and $ssl_curves
			return s.tls.forConn(h2), nil
		},
	}
}

// h2Server serves the HTTP/2 connections of a listener with Go's bundled
// HTTP/2 server. http1 does every handshake and hands over the
// connections whose ALPN protocol is "h2" (take), and on a plain socket
// with "listen ... http2" those that start with HTTP/2's preface; they
// reach net/http through a queue, an in-memory listener, and its Serve
// runs HTTP/2 on a *tls.Conn that negotiated h2 (the TLSNextProto path of
// its conn.serve; the handshake, done already, is not repeated), or on
// a plain connection that it finds the preface on (its unencrypted
// HTTP/2).
//
// Go's HTTP/2 settings (the streams a connection may open, a stream's
// receive window, the idle and write timeouts, the header's size) are an
// http.Server's, fixed while it serves. NGINX takes them from the server
// that SNI chose, so there is one http.Server for each set of settings
// among the address's servers, and take hands a
// connection to the one of its SNI server (of the default server without
// TLS or a name that chooses one). A reload that keeps the socket hands
// over its servers (regroup), and a server for each set of settings they
// bring that the socket had none for.
type h2Server struct {
	// mu guards what a reload changes: byParams, group, and whether the
	// variants serve (serving) or have shut down (stopped).
	mu       sync.Mutex
	byParams map[h2Params]*h2Variant
	// group is the address's servers in the configuration in force, whose
	// settings the variants were made with.
	group            *addrGroup
	variantOf        func(h2Params) *h2Variant
	serving, stopped bool
	// served waits for the variants' Serve, errs holds what they returned.
	served sync.WaitGroup
	errs   []error
	// prefaceTimeout is client_header_timeout, for the connections with
	// prior knowledge, which http1 hands over without a deadline: how
	// long the rest of the preface may take. A TLS connection comes with
	// the handshake's read deadline, client_header_timeout from the
	// accept, which NGINX's preface shares. (Go's server waits a fixed
	// 10 s for the preface and has no limit of its own for a frame begun.)
	// awaiting holds the connections whose preface has not come.
	prefaceTimeout time.Duration
	awaiting       sync.Map // net.Conn -> struct{}
	// idle holds the connections with no stream open, which a shutdown
	// closes at once (see connState).
	idle sync.Map // net.Conn -> struct{}
}

// h2Params are the HTTP/2 settings of a server (h2Settings): the
// streams a connection may open, a stream's receive window, and the
// connection's keepalive_timeout, send_timeout and header size.
type h2Params struct {
	streams, preread, maxHeader int
	idle, write                 time.Duration
}

// h2Variant is the HTTP/2 server of one set of settings, and the queue
// its connections reach it through.
type h2Variant struct {
	srv   *http.Server
	queue connQueue
}

func newH2Server(addr net.Addr, h http.Handler, lim http1.Limits, g *addrGroup, connContext func(context.Context, net.Conn) context.Context, logger *slog.Logger) *h2Server {
	s := &h2Server{prefaceTimeout: lim.HeaderTimeout, byParams: map[h2Params]*h2Variant{}}
	handler := countRequests(h)
	s.variantOf = func(p h2Params) *h2Variant {
		return s.newVariant(addr, handler, p, connContext, logger)
	}
	s.regroup(g)
	return s
}

// regroup makes g the address's servers, with a variant for each set of
// settings among them that has none yet, serving at once if the others
// are. Variants no server uses any more serve the connections they have,
// and shut down with the others.
func (s *h2Server) regroup(g *addrGroup) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	s.group = g
	for _, srv := range g.servers {
		p := h2Settings(srv, g)
		if s.byParams[p] != nil {
			continue
		}
		v := s.variantOf(p)
		s.byParams[p] = v
		if s.serving {
			s.start(v)
		}
	}
}

func (s *h2Server) newVariant(addr net.Addr, h http.Handler, p h2Params, connContext func(context.Context, net.Conn) context.Context, logger *slog.Logger) *h2Variant {
	// HTTP/2 only, over TLS and with prior knowledge on plain
	// connections: a connection that would speak HTTP/1.x stays in http1.
	var protos http.Protocols
	protos.SetHTTP2(true)
	protos.SetUnencryptedHTTP2(true)
	v := &h2Variant{queue: connQueue{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}}
	// Its settings cannot change while it serves: a reload that brings
	// new settings adds a variant (regroup). No WriteTimeout:
	// it would end a stream that is merely idle (a long poll); send_timeout
	// is applied on writes, per stream by the recorder and per connection
	// as HTTP/2's WriteByteTimeout, which closes a connection on which
	// nothing could be written for that long: a client that stops reading
	// its socket stalls every stream's frames, the reset frames that end
	// them included, and would hold the connection for good.
	// MaxConcurrentStreams is http2_max_concurrent_streams (NGINX's 128
	// by default, where Go's is 250): a stream past it is refused; a
	// stream's receive window is http2_body_preread_size, all streams'
	// together h2ConnWindow; the idle
	// timeout is keepalive_timeout. MaxReadFrameSize is HTTP/2's initial
	// 16 KB, where Go's is 1 MiB: Go's framer makes a buffer of the
	// length a frame's header announces before the payload comes, so
	// nine bytes from a client that then stalls held a megabyte (NGINX
	// parses frames as they arrive and holds none whole).
	v.srv = &http.Server{
		Handler:        h,
		ConnState:      func(c net.Conn, st http.ConnState) { s.connState(c, st, p.idle) },
		Protocols:      &protos,
		IdleTimeout:    p.idle,
		MaxHeaderBytes: p.maxHeader,
		HTTP2: &http.HTTP2Config{WriteByteTimeout: p.write, MaxConcurrentStreams: p.streams,
			MaxReceiveBufferPerStream: p.preread, MaxReceiveBufferPerConnection: h2ConnWindow,
			MaxReadFrameSize: h2ReadFrameSize},
		ErrorLog:    slog.NewLogLogger(logger.Handler(), slog.LevelInfo),
		ConnContext: connContext,
		// "OPTIONS *" goes to the dispatcher, whose request rules refuse
		// it on every listener, instead of Go's built-in answer.
		DisableGeneralOptionsHandler: true,
	}
	if p.idle == 0 {
		v.srv.SetKeepAlivesEnabled(false)
	}
	return v
}

// variant returns the HTTP/2 server for c: that of the server its TLS
// server name chose, as NGINX reads the HTTP/2 settings there; nil once
// the variants have shut down.
func (s *h2Server) variant(c net.Conn) *h2Variant {
	var cs *tls.ConnectionState
	if tc, ok := c.(*tls.Conn); ok {
		st := tc.ConnectionState()
		cs = &st
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil
	}
	return s.byParams[h2Settings(s.group.initial(cs), s.group)]
}

// take is http1's TLSNextProto for "h2", and its PriorKnowledge: it waits
// until Serve accepts the connection, or closes the connection if the
// server has shut down. The connection's read deadline is the preface's
// (a TLS connection's from http1, the handshake's); connState lifts it.
func (s *h2Server) take(c net.Conn) {
	s.awaiting.Store(c, struct{}{})
	if _, isTLS := c.(*tls.Conn); !isTLS && s.prefaceTimeout > 0 {
		_ = c.SetReadDeadline(time.Now().Add(s.prefaceTimeout))
	}
	v := s.variant(c)
	if v == nil {
		s.awaiting.Delete(c)
		_ = c.Close()
		return
	}
	select {
	case v.queue.conns <- c:
	case <-v.queue.done:
		s.awaiting.Delete(c)
		_ = c.Close()
	}
}

// connState counts the connection's states (countH2Conn) and lifts the
// preface's read deadline once the preface has come: Go's server reports
// the connection active first then (net/http's own report of it, before
// the preface, skips the hooks). It tells http1 when an idle
// connection closes, idle (keepalive_timeout) after its last stream
// ended, as Go's server times it from just after this report: its
// GOAWAY and close_notify then go only if the socket takes them at once
// (http1.IdleUntil), as NGINX's GOAWAY gets one try.
func (s *h2Server) connState(c net.Conn, st http.ConnState, idle time.Duration) {
	countH2Conn(c, st)
	switch st {
	case http.StateIdle:
		s.idle.Store(c, struct{}{})
		if idle > 0 {
			http1.IdleUntil(c, time.Now().Add(idle))
		}
	case http.StateActive:
		s.idle.Delete(c)
		http1.IdleUntil(c, time.Time{})
	case http.StateClosed, http.StateHijacked:
		s.idle.Delete(c)
	}
	if st == http.StateActive || st == http.StateClosed || st == http.StateHijacked {
		if _, ok := s.awaiting.LoadAndDelete(c); ok && st == http.StateActive {
			_ = c.SetReadDeadline(time.Time{})
		}
	}
}

// serve runs every variant, those a reload adds included, until they
// shut down.
func (s *h2Server) serve() error {
	s.mu.Lock()
	if !s.stopped {
		s.serving = true
		for _, v := range s.byParams {
			s.start(v)
		}
	}
	s.mu.Unlock()
	s.served.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.errs...)
}

// start runs v's Serve; s.mu is held.
func (s *h2Server) start(v *h2Variant) {
	s.served.Add(1)
	go func() {
		defer s.served.Done()
		err := v.srv.Serve(&v.queue)
		s.mu.Lock()
		s.errs = append(s.errs, err)
		s.mu.Unlock()
	}()
}

// shutdown sends GOAWAY on every connection and waits for their streams
// to finish; if ctx ends first, it closes what remains, as http1's
// Shutdown does.
func (s *h2Server) shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.stopped = true // no variant is added or started from now on
	vs := make([]*h2Variant, 0, len(s.byParams))
	for _, v := range s.byParams {
		vs = append(vs, v)
	}
	s.mu.Unlock()
	// The idle connections end at once, as http1's do and NGINX's: their
	// GOAWAY goes if the socket takes it, else the connection closes.
	now := time.Now()
	s.idle.Range(func(c, _ any) bool {
		http1.IdleUntil(c.(net.Conn), now)
		if _, still := s.idle.Load(c); !still {
			// A stream opened meanwhile; its report may have come
			// before the line above.
			http1.IdleUntil(c.(net.Conn), time.Time{})
		}
		return true
	})
	errs := make(chan error, len(vs))
	for _, v := range vs {
		go func() {
			_ = v.queue.Close() // Serve may not have started: take must not wait for it
			err := v.srv.Shutdown(ctx)
			if err != nil {
				_ = v.srv.Close()
			}
			errs <- err
		}()
	}
	var all []error
	for range vs {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}

// connQueue is a net.Listener whose connections are handed to it (by
// h2Server.take) rather than accepted from a socket.
type connQueue struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (q *connQueue) Accept() (net.Conn, error) {
	select {
	case c := <-q.conns:
		select {
		case <-q.done:
			// Closed as it came: the server would serve it unwatched
			// by its Shutdown.
			_ = c.Close()
			return nil, net.ErrClosed
		default:
			return c, nil
		}
	case <-q.done:
		return nil, net.ErrClosed
	}
}

func (q *connQueue) Close() error {
	q.once.Do(func() { close(q.done) })
	return nil
}

func (q *connQueue) Addr() net.Addr { return q.addr }
