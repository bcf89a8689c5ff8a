package cache

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"
)

// ErrUnavailable is wrapped by the errors of a store that bypasses itself
// without trying, because its circuit breaker is open.
var ErrUnavailable = errors.New("cache: store unavailable")

// BreakerState is the state of a store's circuit breaker.
type BreakerState uint32

// The states of a circuit breaker.
const (
	// BreakerClosed: operations go to the store.
	BreakerClosed BreakerState = iota
	// BreakerOpen: the store failed too often in a row; operations fail at
	// once with ErrUnavailable while a background probe waits to retry.
	BreakerOpen
	// BreakerHalfOpen: the background probe is asking the store whether it
	// answers again; operations still fail at once.
	BreakerHalfOpen
)

func (s BreakerState) String() string {
	switch s {
	case BreakerOpen:
		return "open"
	case BreakerHalfOpen:
		return "half-open"
	}
	return "closed"
}

// Defaults of the Redis store's circuit breaker.
const (
	// DefaultBreakerFailures is how many operations in a row must fail (or
	// time out) to open the breaker. A paused Redis costs each request up
	// to Timeout per operation until then, so the number stays small; a
	// single lost packet does not open it.
	DefaultBreakerFailures = 3
	// DefaultBreakerProbe is how often an open breaker pings the store;
	// it is also about how long a store that answers again stays bypassed.
	DefaultBreakerProbe = 250 * time.Millisecond
)

// Breaker is a circuit breaker around a store: after Failures operations
// in a row failed it opens, and the store is bypassed at once (the
// handler serves from upstream, Cache-Status says
// "detail=store-unavailable") instead of every request waiting for the
// store's timeout (or, when the store has a local tier, the entries it
// holds are served from memory). While open, a probe runs every Probe interval in the
// background (half-open while it runs) and closes the breaker as soon as
// the store answers. It is safe for concurrent use.
type Breaker struct {
	failures int32
	interval time.Duration
	probe    func(context.Context) error // a cheap round trip to the store
	log      *slog.Logger

	state  atomic.Uint32
	failed atomic.Int32  // operations failed in a row
	opened atomic.Uint64 // times the breaker opened
	// local counts lookups answered by the store's local tier because the
	// store could not answer.
	local atomic.Uint64
}

func newBreaker(failures int, interval time.Duration, probe func(context.Context) error, log *slog.Logger) *Breaker {
	if failures <= 0 {
		failures = DefaultBreakerFailures
	}
	if interval <= 0 {
		interval = DefaultBreakerProbe
	}
	return &Breaker{failures: int32(failures), interval: interval, probe: probe, log: log}
}

// LocalServed is how many lookups the store's local tier answered because
// the store could not (RedisOptions.LocalSize).
func (b *Breaker) LocalServed() uint64 { return b.local.Load() }

// State returns the breaker's state now.
func (b *Breaker) State() BreakerState { return BreakerState(b.state.Load()) }

// Opened returns how many times the breaker has opened.
func (b *Breaker) Opened() uint64 { return b.opened.Load() }

// allow reports whether an operation may go to the store.
func (b *Breaker) allow() bool { return b.State() == BreakerClosed }

// record counts the outcome of one operation: err is nil when the store
// answered (an error reply is an answer) and the transport's error when
// it did not. A caller that gave up (context.Canceled) says nothing of the
// store. ctx is the store's own, which ends the probe loop.
func (b *Breaker) record(ctx context.Context, err error) {
	if err == nil {
		b.failed.Store(0)
		return
	}
	if errors.Is(err, context.Canceled) {
		return
	}
	if b.failed.Add(1) < b.failures || !b.state.CompareAndSwap(uint32(BreakerClosed), uint32(BreakerOpen)) {
		return
	}
	b.opened.Add(1)
	b.log.Error("cache store: circuit breaker open, bypassing the store", "failures", b.failures, "error", err)
	go b.probeLoop(ctx)
}

// probeLoop pings the store until it answers, then closes the breaker.
func (b *Breaker) probeLoop(ctx context.Context) {
	t := time.NewTicker(b.interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
		b.state.Store(uint32(BreakerHalfOpen))
		pctx, cancel := context.WithTimeout(ctx, b.interval)
		err := b.probe(pctx)
		cancel()
		if err == nil {
			b.failed.Store(0)
			b.state.Store(uint32(BreakerClosed))
			b.log.Info("cache store: circuit breaker closed, the store answers again")
			return
		}
		b.state.Store(uint32(BreakerOpen))
	}
}
