package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mosaic-edge/mosaic/http1"
)

// ShutdownTimeout bounds how long a graceful stop, or the retirement of
// listeners after a reload, waits for requests in flight.
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
// on plain connections and on TLS ones, and hands the TLS connections
// that choose HTTP/2 to h2.
type listener struct {
	key  string
	addr string
	ln   net.Listener
	srv  *http1.Server
	h2   *h2Server // nil on a plain listener
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
			kept = append(kept, func() { l.srv.SetLimits(limitsFor(g)) })
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
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
		defer cancel()
		for _, l := range retired {
			_ = l.shutdown(ctx)
		}
		if old != nil {
			// Requests that started under the old configuration may still
			// be writing to its logs: give them the same grace.
			if len(retired) == 0 {
				time.AfterFunc(ShutdownTimeout, old.close)
			} else {
				old.close()
			}
		}
	}()
	return nil
}

func (rt *Runtime) open(addr string, g *addrGroup, cfg *Config) (*listener, error) {
	network, bind := "tcp4", addr
	if strings.HasPrefix(addr, "unix:") {
		network, bind = "unix", strings.TrimPrefix(addr, "unix:")
		if fi, err := os.Stat(bind); err == nil && fi.Mode()&os.ModeSocket != 0 {
			_ = os.Remove(bind) // a socket left by a previous run
		}
	} else if host, _, _ := net.SplitHostPort(addr); strings.Contains(host, ":") {
		network = "tcp6"
	}
	ln, err := net.Listen(network, bind)
	if err != nil {
		return nil, fmt.Errorf("bind() to %s failed: %w", addr, err)
	}
	d := &dispatcher{bound: addr, cur: &rt.cur}
	lim := limitsFor(g)
	connContext := func(ctx context.Context, _ net.Conn) context.Context {
		return context.WithValue(ctx, connIDKey{}, connCounter.Add(1))
	}
	srv := &http1.Server{Handler: d, Limits: lim, ConnContext: connContext, RequestContext: newRequestRoot, Logger: cfg.Logger}
	l := &listener{key: listenKey(addr, g.ssl), addr: addr, ln: ln, srv: srv}
	if g.ssl {
		l.h2 = newH2Server(ln.Addr(), d, lim, connContext, cfg.Logger)
		srv.TLSConfig = tlsConfig(&rt.cur, addr)
		srv.TLSNextProto = map[string]func(*tls.Conn){"h2": l.h2.take}
	}
	return l, nil
}

// limitsFor returns the connection limits of an address: those of its
// default server (keepalive_timeout, client_header_timeout, send_timeout,
// keepalive_requests, large_client_header_buffers, lingering_*); every
// address has one (the first of its servers unless one says
// default_server).
func limitsFor(g *addrGroup) http1.Limits {
	cl := LocConf[*coreLoc](g.def.level, coreModule)
	return http1.Limits{
		HeaderTimeout:    cl.headerTimeout.V,
		KeepAliveTimeout: cl.keepalive.V,
		WriteTimeout:     cl.sendTimeout.V,
		MaxRequests:      cl.keepaliveReqs.V,
		MaxLineBytes:     cl.headerBufs.V.Size,
		MaxHeaderBytes:   cl.headerBufs.V.Number * cl.headerBufs.V.Size,
		Linger:           cl.lingerMode.V,
		LingerTime:       cl.lingerTime.V,
		LingerTimeout:    cl.lingerTimeout.V,
	}
}

func (rt *Runtime) serve(l *listener) {
	rt.run(l, func() error { return l.srv.Serve(l.ln) })
	if l.h2 != nil {
		rt.run(l, l.h2.serve)
	}
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
// finish, HTTP/1.x and HTTP/2 alike, within the same ctx.
func (l *listener) shutdown(ctx context.Context) error {
	if l.h2 == nil {
		return l.srv.Shutdown(ctx)
	}
	h2err := make(chan error, 1)
	go func() { h2err <- l.h2.shutdown(ctx) }()
	err := l.srv.Shutdown(ctx)
	return errors.Join(err, <-h2err)
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
