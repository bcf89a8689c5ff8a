package http1

import (
	"context"
	"sync"
	"sync/atomic"
)

// requestCtx is a request's context: the connection's values, cancelled
// when the client goes away or the handler returns. It does what
// context.WithCancel does, but only makes that context (two allocations
// and a channel) when someone asks for the Done channel: a handler that
// never selects on it, such as a static file, never does, and the
// requestCtx itself lives in the request's exchange.
//
// Once made, the inner context answers Value too, so the context package
// finds it behind any wrapper (the core's request record, WithValue) and
// contexts derived from it are its ordinary children: cancelled with it,
// at once and without a goroutine each.
type requestCtx struct {
	context.Context // the connection's

	mu       sync.Mutex
	inner    atomic.Pointer[cancelPair]
	canceled atomic.Bool
	// plainNames: every field name of the request, as read, is letters,
	// digits and '-' (PlainFieldNames). (Beside canceled, in its padding.)
	plainNames bool
	err        error // once canceled without an inner context; guarded by mu
	// end is the function AfterEnd holds, to run when the context ends,
	// and endToken the token of the last one taken; guarded by mu.
	end      func()
	endToken uint64
}

// PlainFieldNames reports whether ctx is the context this server made
// for a request (the one Record.Context is given) and every field name
// of that request's header, as read, is made of letters,
// digits and '-': the names NGINX's ignore_invalid_headers and
// underscores_in_headers let through whatever their setting, so that a
// filter of the names (reqrule.HeaderNames) need not walk the header.
// The parse knows it at no cost; the walk costs a map iteration, with
// its random start, on every request.
func PlainFieldNames(ctx context.Context) bool {
	c, ok := ctx.(*requestCtx)
	return ok && c.plainNames
}

// ConnContext returns the connection's context (Server.ConnContext's)
// when ctx is the context this server made for a request (the one
// Record.Context is given), or nil. A server that keeps its record of
// the connection in a context type of its own reaches it here with two
// type tests, where Value walks every context between and compares keys
// (server's ServeGroup, once a request).
func ConnContext(ctx context.Context) context.Context {
	if c, ok := ctx.(*requestCtx); ok {
		return c.Context
	}
	return nil
}

type cancelPair struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// closedChan is the Done channel of a context cancelled before anyone
// asked for one.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

func (c *requestCtx) Done() <-chan struct{} {
	if p := c.inner.Load(); p != nil {
		return p.ctx.Done()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.inner.Load(); p != nil {
		return p.ctx.Done()
	}
	if c.canceled.Load() {
		return closedChan
	}
	ctx, cancel := context.WithCancel(c.Context)
	c.inner.Store(&cancelPair{ctx, cancel})
	return ctx.Done()
}

func (c *requestCtx) Err() error {
	if p := c.inner.Load(); p != nil {
		return p.ctx.Err()
	}
	if c.canceled.Load() {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.err
	}
	return c.Context.Err() // a connection's context that can end ends its requests
}

func (c *requestCtx) Value(key any) any {
	if p := c.inner.Load(); p != nil {
		return p.ctx.Value(key)
	}
	return c.Context.Value(key)
}

func (c *requestCtx) String() string { return "http1.requestCtx" }

// AfterEnd is endhook.Hooker's: it holds one function at a time, and
// none when the connection's context can end by itself (it would have to
// be watched as well).
func (c *requestCtx) AfterEnd(f func()) (token uint64, ok bool) {
	if c.Context.Done() != nil {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.end != nil {
		return 0, false
	}
	c.endToken++
	if c.canceled.Load() {
		go f()
	} else {
		c.end = f
	}
	return c.endToken, true
}

// StopEnd is endhook.Hooker's.
func (c *requestCtx) StopEnd(token uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.end == nil || token != c.endToken {
		return false
	}
	c.end = nil
	return true
}

// cancel ends the context with context.Canceled; later calls do nothing.
func (c *requestCtx) cancel() {
	c.mu.Lock()
	if c.canceled.Load() {
		c.mu.Unlock()
		return
	}
	p := c.inner.Load()
	if p == nil {
		// As a cancel context would: an end that came first stays.
		c.err = c.Context.Err()
		if c.err == nil {
			c.err = context.Canceled
		}
	}
	c.canceled.Store(true)
	end := c.end
	c.end = nil
	c.mu.Unlock()
	if p != nil {
		p.cancel()
	}
	if end != nil {
		go end()
	}
}
