// Package endhook runs a function when a request's context ends, as
// context.AfterFunc does, more cheaply where the context offers a way:
// http1's request context (which the server's wraps) holds one such
// function in place. On it, context.AfterFunc would make the context's
// cancel context and Done channel, a child entry and the stop function,
// about nine allocations, for each request a proxy sends, whose client
// seldom leaves early.
package endhook

import "context"

// Hooker is a context that can run a function when it ends.
type Hooker interface {
	// AfterEnd arranges for f to run in its own goroutine once the
	// context ends (at once if it has), and returns the token that stops
	// it. ok is false when the context cannot take f now: the caller
	// uses context.AfterFunc.
	AfterEnd(f func()) (token uint64, ok bool)
	// StopEnd keeps the function of token from running and reports
	// whether it did: false when it has run or begun to.
	StopEnd(token uint64) bool
}

// Stop stops the function After arranged to run. The zero Stop has
// nothing to stop.
type Stop struct {
	h     Hooker
	token uint64
	std   func() bool
}

// After arranges for f to run in its own goroutine once ctx ends, as
// context.AfterFunc(ctx, f) does: through ctx's Hooker when ctx is one
// (not a context derived from one, whose end may come sooner or never).
func After(ctx context.Context, f func()) Stop {
	if h, ok := ctx.(Hooker); ok {
		if token, ok := h.AfterEnd(f); ok {
			return Stop{h: h, token: token}
		}
	}
	return Stop{std: context.AfterFunc(ctx, f)}
}

// Stop keeps f from running and reports whether it did, as the stop
// function of context.AfterFunc does.
func (s Stop) Stop() bool {
	switch {
	case s.h != nil:
		return s.h.StopEnd(s.token)
	case s.std != nil:
		return s.std()
	}
	return false
}
