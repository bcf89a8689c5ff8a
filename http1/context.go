package http1

import (
	"context"
	"slices"
	"sync"
)

// requestCtx is a request's context: the connection's values, cancelled
// when the client goes away or the handler returns. It does what
// context.WithCancel does, but lives in the request's exchange rather than
// costing two allocations of its own, and makes its Done channel only
// when someone asks for it (a handler that never selects on it, such as a
// static file, never does).
//
// Contexts derived from it (context.WithCancel, WithTimeout, AfterFunc)
// learn of its end through AfterFunc, the method the context package
// looks for on a parent it does not know, so they need no goroutine
// either.
type requestCtx struct {
	context.Context // the connection's: values only, never done

	mu    sync.Mutex
	done  chan struct{}
	err   error
	funcs []*afterFunc
}

// afterFunc is one function registered with AfterFunc; its address tells
// it apart for stop.
type afterFunc struct{ f func() }

// closedChan is the Done channel of a context cancelled before anyone
// asked for one.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

func (c *requestCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		if c.err != nil {
			return closedChan
		}
		c.done = make(chan struct{})
	}
	return c.done
}

func (c *requestCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// AfterFunc arranges for f to run in its own goroutine once c is
// cancelled (at once if it already is); stop unregisters it, reporting
// whether that kept it from running.
func (c *requestCtx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	a := &afterFunc{f: f}
	c.funcs = append(c.funcs, a)
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		i := slices.Index(c.funcs, a)
		if i < 0 {
			return false
		}
		c.funcs = slices.Delete(c.funcs, i, i+1)
		return true
	}
}

func (c *requestCtx) String() string { return "http1.requestCtx" }

// cancel ends the context with context.Canceled; later calls do nothing.
func (c *requestCtx) cancel() {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = context.Canceled
	if c.done != nil {
		close(c.done)
	}
	funcs := c.funcs
	c.funcs = nil
	c.mu.Unlock()
	for _, a := range funcs {
		go a.f()
	}
}
