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

type listener struct {
	key  string
	addr string
	ln   net.Listener
	srv  httpServer
}

// httpServer is what serves a listener: http1.Server for plain
// connections, net/http's server for TLS (HTTP/2 and HTTP/1.1).
type httpServer interface {
	Serve(net.Listener) error
	Shutdown(context.Context) error
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
			if hs, ok := l.srv.(*http1.Server); ok {
				kept = append(kept, func() { hs.SetLimits(limitsFor(g)) })
			}
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
			_ = l.srv.Shutdown(ctx)
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
	if !g.ssl {
		srv := &http1.Server{Handler: d, Limits: lim, ConnContext: connContext, RequestContext: newRequestRoot, Logger: cfg.Logger}
		return &listener{key: listenKey(addr, false), addr: addr, ln: ln, srv: srv}, nil
	}
	// net/http's settings cannot change while it serves: a reload
	// applies new ones to TLS sockets that it opens anew only. No
	// WriteTimeout: in HTTP/2 it would end a stream that is merely idle
	// (a long poll); send_timeout is applied on writes (the recorder).
	srv := &http.Server{
		Handler:           d,
		ReadHeaderTimeout: lim.HeaderTimeout,
		IdleTimeout:       lim.KeepAliveTimeout,
		MaxHeaderBytes:    lim.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelInfo),
		ConnContext:       connContext,
		// "OPTIONS *" goes to the dispatcher, whose request rules refuse
		// it on every listener, instead of Go's built-in answer.
		DisableGeneralOptionsHandler: true,
	}
	if lim.KeepAliveTimeout == 0 {
		srv.SetKeepAlivesEnabled(false)
	}
	srv.TLSConfig = tlsConfig(&rt.cur, addr)
	ln = tls.NewListener(ln, srv.TLSConfig)
	return &listener{key: listenKey(addr, true), addr: addr, ln: ln, srv: srv}, nil
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
	rt.wg.Add(1)
	go func() {
		defer rt.wg.Done()
		err := l.srv.Serve(l.ln)
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			select {
			case rt.errs <- fmt.Errorf("listener %s: %w", l.addr, err):
			default:
			}
		}
	}()
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
			errs[i] = l.srv.Shutdown(ctx)
		}()
	}
	wg.Wait()
	rt.wg.Wait()
	if cfg := rt.cur.Load(); cfg != nil {
		cfg.close()
	}
	return errors.Join(errs...)
}
