package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mosaic-edge/mosaic/http1"
	"github.com/mosaic-edge/mosaic/internal/proxyproto"
	"github.com/mosaic-edge/mosaic/internal/reqrule"
	"github.com/mosaic-edge/mosaic/vars"
)

// ShutdownTimeout bounds how long a graceful stop, or the retirement of
// listeners after a reload, waits for requests in flight, unless the
// configuration says otherwise (Config.ShutdownTimeout).
var ShutdownTimeout = 30 * time.Second

// Runtime owns the listening sockets and the current configuration. A
// reload swaps the configuration atomically: requests already running
// finish with the configuration they started with, sockets whose address
// stays are kept, new ones are opened before anything changes, and
// removed ones are drained.
type Runtime struct {
	cur       atomic.Pointer[Config]
	mu        sync.Mutex
	listeners map[string]*listener
	wg        sync.WaitGroup
	errs      chan error
}

// listener is a bound socket and what serves it: http1 serves HTTP/1.x,
// on plain connections and on TLS ones, and hands to h2 the TLS
// connections that choose HTTP/2 and, with "listen ... http2", the plain
// ones that start with HTTP/2's preface.
type listener struct {
	key  string
	addr string
	ln   net.Listener
	srv  *http1.Server
	h2   *h2Server
	// cut is set when the shutdown limit ends the requests still running,
	// before their connections close (see reqRoot.Err).
	cut atomic.Bool
	// sock are the socket parameters raw was opened or last set with.
	sock *SocketOpts
	raw  net.Listener
	// proxyProt: connections accepted start with a PROXY protocol
	// header (listen ... proxy_protocol), as the configuration in force
	// says.
	proxyProt atomic.Bool
}

// NewRuntime returns a runtime with nothing listening.
func NewRuntime() *Runtime {
	return &Runtime{listeners: map[string]*listener{}, errs: make(chan error, 16)}
}

// Config returns the configuration in force.
func (rt *Runtime) Config() *Config { return rt.cur.Load() }

// Errors reports listeners that stopped with an error.
func (rt *Runtime) Errors() <-chan error { return rt.errs }

// Addrs returns the bound addresses (useful with port 0 in tests).
func (rt *Runtime) Addrs() []net.Addr {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	out := make([]net.Addr, 0, len(rt.listeners))
	for _, l := range rt.listeners {
		out = append(out, l.ln.Addr())
	}
	return out
}

func listenKey(addr string, ssl bool) string {
	if ssl {
		return addr + "|ssl"
	}
	return addr
}

// Apply makes cfg current. On error nothing changes: the previous
// configuration keeps serving on its sockets.
func (rt *Runtime) Apply(cfg *Config) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	want := cfg.bindAddrs()
	opened := map[string]*listener{}
	var kept []func()
	for addr, g := range want {
		key := listenKey(addr, g.ssl)
		if l, ok := rt.listeners[key]; ok {
			kept = append(kept, func() {
				if !sameSockOpts(l.sock, g.sock) {
					// As NGINX on a reload: the parameters a listening
					// socket takes at any time apply to the kept one;
					// ipv6only and reuseport wait for a new bind.
					if err := g.sock.apply(l.raw, l.sock); err != nil {
						cfg.Logger.Warn("socket parameters not applied", "listen", addr, "error", err)
					}
					l.sock = g.sock
				}
				l.srv.SetLimits(limitsFor(g))
				l.h2.regroup(g)                // new HTTP/2 connections take the reloaded settings
				l.proxyProt.Store(g.proxyProt) // for connections accepted from now on
			})
			continue
		}
		l, err := rt.open(addr, g, cfg)
		if err != nil {
			for _, o := range opened {
				_ = o.ln.Close()
			}
			return err
		}
		opened[key] = l
	}
	cfg.refs.Add(1) // the runtime's own, while cfg is current
	old := rt.cur.Swap(cfg)
	cfg.ApplyWorkerProcesses()
	for _, apply := range kept {
		apply() // the kept sockets' connections take the new limits
	}
	for key, l := range opened {
		rt.listeners[key] = l
		rt.serve(l)
	}
	var retired []*listener
	for key, l := range rt.listeners {
		addr, ssl := strings.TrimSuffix(key, "|ssl"), strings.HasSuffix(key, "|ssl")
		if g, ok := want[addr]; ok && g.ssl == ssl {
			continue
		}
		retired = append(retired, l)
		delete(rt.listeners, key)
	}
	for _, n := range cfg.notices {
		cfg.Logger.Log(context.Background(), LevelNotice, n)
	}
	if old != nil {
		// Requests that started under the old configuration hold it (see
		// hold) and may still be writing to its logs: it closes as the
		// last of them ends, and at the latest when the shutdown limit
		// cuts them, as it cuts those of retired listeners.
		old.release()
		time.AfterFunc(old.ShutdownTimeout(), old.close)
	}
	if len(retired) > 0 {
		limit := ShutdownTimeout
		if old != nil {
			limit = old.ShutdownTimeout()
		}
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), limit)
			defer cancel()
			for _, l := range retired {
				_ = l.shutdown(ctx)
			}
		}()
	}
	return nil
}

func (rt *Runtime) open(addr string, g *addrGroup, cfg *Config) (*listener, error) {
	network, bind := "tcp4", addr
	if strings.HasPrefix(addr, "unix:") {
		// As NGINX: a file already at the path (a socket left by a run
		// that crashed) makes the bind fail rather than being removed,
		// since it may be another server's live socket. Go's listener
		// removes the file it made when it closes, as NGINX does on a
		// stop and when a reload drops the address.
		network, bind = "unix", strings.TrimPrefix(addr, "unix:")
	} else if host, _, _ := net.SplitHostPort(addr); strings.Contains(host, ":") {
		network = "tcp6"
	}
	ln, err := listenSocket(network, bind, g.sock)
	if err != nil {
		return nil, fmt.Errorf("bind() to %s failed: %w", addr, err)
	}
	if network == "unix" {
		// Any local user may connect, as NGINX allows: access is
		// decided by the directories on the path.
		if err := os.Chmod(bind, 0o666); err != nil {
			_ = ln.Close()
			return nil, fmt.Errorf("chmod() %q failed: %w", bind, err)
		}
	}
	d := &dispatcher{bound: addr, cur: &rt.cur}
	lim := limitsFor(g)
	l := &listener{key: listenKey(addr, g.ssl), addr: addr, sock: g.sock, raw: ln}
	l.proxyProt.Store(g.proxyProt)
	l.ln = &proxyproto.Listener{Listener: ln, Enabled: &l.proxyProt, OnError: func(c net.Conn, err error) {
		rt.cur.Load().Logger.Error(err.Error()+" while reading PROXY protocol", "client", c.RemoteAddr().String())
	}}
	connContext := func(ctx context.Context, c net.Conn) context.Context {
		return &connCtx{Context: ctx, info: connInfo{id: connCounter.Add(1), cut: &l.cut, start: time.Now(), proxy: proxyConn(c),
			hello: clientHellos.take(c), conn: vars.NewConn(c.LocalAddr(), sockOf(c)), unixPeer: isUnix(c.RemoteAddr())}}
	}
	logger := slog.New(currentLog{&rt.cur})
	srv := &http1.Server{Handler: d, Limits: lim, ConnContext: connContext, NewRecord: newH1Record, Logger: logger,
		Refused: d.refused, Stats: &connStats, TLSHandshakeFailed: clientHellos.drop}
	l.srv = srv
	l.h2 = newH2Server(ln.Addr(), d, lim, g, connContext, logger)
	if g.ssl {
		srv.TLSConfig = tlsConfig(&rt.cur, addr)
		srv.TLSNextProto = map[string]func(*tls.Conn){"h2": func(c *tls.Conn) { l.h2.take(c) }}
		// A plain HTTP request is read and answered by its server (497).
		srv.PlainHTTP = true
	} else {
		// Every plain socket has its HTTP/2 server, so that a reload
		// can turn "listen ... http2" on for a socket it keeps.
		srv.PriorKnowledge = l.h2.take
	}
	return l, nil
}

// lineLimit is the longest HTTP/2 field cl accepts (admitH2): one large
// buffer, or the first buffer when that is larger, as an HTTP/1 line
// that fits the first buffer is taken whatever the large buffers' size.
func lineLimit(cl *coreLoc) int {
	return max(cl.headerBufs.V.Size, int(cl.headerBuffer.V))
}

// currentLog writes to the error log of the configuration in force. A
// listener outlives the configuration that opened it, whose log files
// close when it retires.
type currentLog struct{ cur *atomic.Pointer[Config] }

func (h currentLog) handler() slog.Handler { return h.cur.Load().Logger.Handler() }

func (h currentLog) Enabled(ctx context.Context, l slog.Level) bool {
	return h.handler().Enabled(ctx, l)
}

func (h currentLog) Handle(ctx context.Context, r slog.Record) error {
	return h.handler().Handle(ctx, r)
}

// WithAttrs and WithGroup bind to the configuration in force when called.
func (h currentLog) WithAttrs(as []slog.Attr) slog.Handler { return h.handler().WithAttrs(as) }
func (h currentLog) WithGroup(name string) slog.Handler    { return h.handler().WithGroup(name) }

// maxRequests is keepalive_requests as http1 takes it, where 0 means no
// limit: NGINX closes a connection once its count of requests reaches the
// value (requests >= keepalive_requests, counted from 1), so its 0 keeps
// no connection past its first request, as 1 does.
func maxRequests(n int) int { return max(n, 1) }

// limitsFor returns the connection limits of an address: those of its
// default server (keepalive_timeout, client_header_timeout, send_timeout,
// keepalive_requests, large_client_header_buffers, lingering_*,
// reset_timedout_connection); every
// address has one (the first of its servers unless one says
// default_server). max_headers is each server's: see fieldLimits.
func limitsFor(g *addrGroup) http1.Limits {
	cl := LocConf[*coreLoc](g.def.level, coreModule)
	maxFields, fieldLimit := fieldLimits(g)
	return http1.Limits{
		MaxFields:         maxFields,
		FieldLimit:        fieldLimit,
		HeaderTimeout:     cl.headerTimeout.V,
		KeepAliveTimeout:  cl.keepalive.V,
		WriteTimeout:      cl.sendTimeout.V,
		MaxRequests:       maxRequests(cl.keepaliveReqs.V),
		HeaderBufferBytes: int(cl.headerBuffer.V),
		MaxLineBytes:      cl.headerBufs.V.Size,
		MaxHeaderBytes:    cl.headerBufs.V.Number * cl.headerBufs.V.Size,
		Linger:            cl.lingerMode.V,
		LingerTime:        cl.lingerTime.V,
		LingerTimeout:     cl.lingerTimeout.V,
		ResetTimedOut:     cl.resetTimedOut.V,
		// NGINX 1.22 speaks HTTP/2 on a plain "listen ... http2" (NGINX
		// 1.25 also on a plain address whose default server says
		// "http2 on"), and 1.25 keeps serving HTTP/1.x there too.
		PriorKnowledge: !g.ssl && (g.http2 || sslOf(g.def).http2.V),
	}
}

// fieldLimits returns max_headers for http1.Limits: the smallest value
// of the address's servers, and, where their values or the names they
// keep (underscores_in_headers, ignore_invalid_headers) differ, or set
// otherwise than by default, or one is 0 (which http1 would take for its
// default), the function that gives the rule of the server a host
// chooses, else of the server the connection starts in (TLS's server
// name, else the default server), as NGINX checks each field against the
// server in force when it reads it.
func fieldLimits(g *addrGroup) (int, func(string, *tls.ConnectionState) http1.FieldRule) {
	of := func(s *VServer) http1.FieldRule {
		cl := LocConf[*coreLoc](s.level, coreModule)
		return http1.FieldRule{Max: cl.maxHeaders.V, Names: cl.headerNames()}
	}
	def := of(g.def)
	least, differ := def.Max, def.Names != reqrule.HeaderNames{IgnoreInvalid: true}
	for _, s := range g.servers {
		r := of(s)
		differ = differ || r != def
		least = min(least, r.Max)
	}
	if !differ && least > 0 {
		return least, nil
	}
	return least, func(host string, cs *tls.ConnectionState) http1.FieldRule {
		if h, ok := reqrule.Host(host); ok && h != "" {
			return of(g.find(h))
		}
		return of(g.initial(cs))
	}
}

func (rt *Runtime) serve(l *listener) {
	rt.run(l, func() error { return l.srv.Serve(l.ln) })
	rt.run(l, l.h2.serve)
}

// run runs one of a listener's servers until it stops, reporting an
// error other than its shutdown.
func (rt *Runtime) run(l *listener, serve func() error) {
	rt.wg.Add(1)
	go func() {
		defer rt.wg.Done()
		err := serve()
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			select {
			case rt.errs <- fmt.Errorf("listener %s: %w", l.addr, err):
			default:
			}
		}
	}()
}

// shutdown stops the listener's servers together: requests in flight
// finish, HTTP/1.x and HTTP/2 alike, within the same ctx. When ctx ends
// first the servers close the connections left; the listener is marked
// cut before, so that those requests say why they ended.
func (l *listener) shutdown(ctx context.Context) error {
	servers, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stop := context.AfterFunc(ctx, func() {
		l.cut.Store(true)
		cancel()
	})
	defer stop()
	h2err := make(chan error, 1)
	go func() { h2err <- l.h2.shutdown(servers) }()
	err := errors.Join(l.srv.Shutdown(servers), <-h2err)
	if err != nil && ctx.Err() != nil {
		return ctx.Err() // the limit, not the cancel that enforced it
	}
	return err
}

// Shutdown stops accepting, waits for requests in flight (bounded by
// ctx) and retires the configuration.
func (rt *Runtime) Shutdown(ctx context.Context) error {
	rt.mu.Lock()
	ls := make([]*listener, 0, len(rt.listeners))
	for _, l := range rt.listeners {
		ls = append(ls, l)
	}
	rt.listeners = map[string]*listener{}
	rt.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, len(ls))
	for i, l := range ls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = l.shutdown(ctx)
		}()
	}
	wg.Wait()
	rt.wg.Wait()
	if cfg := rt.cur.Load(); cfg != nil {
		cfg.close()
	}
	return errors.Join(errs...)
}

// isUnix reports whether a is a Unix-domain socket's address.
func isUnix(a net.Addr) bool { return a != nil && a.Network() == "unix" }
