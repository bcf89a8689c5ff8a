package redisconn

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"
)

// BreakerState is the state of a circuit breaker.
type BreakerState uint32

// The states of a circuit breaker.
const (
	// BreakerClosed: operations go to Redis.
	BreakerClosed BreakerState = iota
	// BreakerOpen: Redis failed too often in a row; operations fail at
	// once while a background probe waits to retry.
	BreakerOpen
	// BreakerHalfOpen: the background probe is asking Redis whether it
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

// Defaults of the circuit breaker.
const (
	// DefaultFailures is how many operations in a row must fail (or time
	// out) to open the breaker. A paused Redis costs each operation up to
	// its timeout until then, so the number stays small; a single lost
	// packet does not open it.
	DefaultFailures = 3
	// DefaultProbe is how often an open breaker pings Redis; it is also
	// about how long a Redis that answers again stays bypassed.
	DefaultProbe = 250 * time.Millisecond
)

// Breaker is a circuit breaker around a Redis connection: after Failures
// operations in a row failed it opens, and its users bypass Redis at once
// (serving from elsewhere: the cache from upstream, a limit zone from
// memory) instead of every request waiting for the timeout. While open,
// a probe runs every Probe interval in the background (half-open while it
// runs) and closes the breaker as soon as Redis answers. It is safe for
// concurrent use.
type Breaker struct {
	name     string // the user, in log lines
	failures int32
	interval time.Duration
	// timeout bounds one probe: at least interval, and the operations'
	// own bound when longer, so that a Redis whose answers take longer
	// than the interval (a far one, given its redis_timeout=) can still
	// close the breaker it opened.
	timeout time.Duration
	probe   func(context.Context) error // a cheap round trip
	log     *slog.Logger

	state  atomic.Uint32
	failed atomic.Int32  // operations failed in a row
	opened atomic.Uint64 // times the breaker opened
	// local counts operations answered locally because Redis could not.
	local atomic.Uint64
}

// NewBreaker returns a closed breaker; name starts its log lines. Each
// probe has timeout, or interval when that is longer.
func NewBreaker(name string, failures int, interval, timeout time.Duration, probe func(context.Context) error, log *slog.Logger) *Breaker {
	if failures <= 0 {
		failures = DefaultFailures
	}
	if interval <= 0 {
		interval = DefaultProbe
	}
	if log == nil {
		log = slog.Default()
	}
	return &Breaker{name: name, failures: int32(failures), interval: interval, timeout: max(timeout, interval),
		probe: probe, log: log}
}

// CountLocal records an operation answered locally because Redis could
// not answer it.
func (b *Breaker) CountLocal() { b.local.Add(1) }

// LocalServed is how many operations were answered locally because Redis
// could not answer them.
func (b *Breaker) LocalServed() uint64 { return b.local.Load() }

// State returns the breaker's state now.
func (b *Breaker) State() BreakerState { return BreakerState(b.state.Load()) }

// Opened returns how many times the breaker has opened.
func (b *Breaker) Opened() uint64 { return b.opened.Load() }

// Allow reports whether an operation may go to Redis.
func (b *Breaker) Allow() bool { return b.State() == BreakerClosed }

// Record counts the outcome of one operation: err is nil when Redis
// answered (an error reply is an answer) and the transport's error when
// it did not. A caller that gave up (context.Canceled) says nothing of
// Redis. ctx is the connection's own, which ends the probe loop.
func (b *Breaker) Record(ctx context.Context, err error) {
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
	b.log.Error(b.name+": circuit breaker open, bypassing Redis", "failures", b.failures, "error", err)
	go b.probeLoop(ctx)
}

// probeLoop pings Redis until it answers, then closes the breaker.
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
		pctx, cancel := context.WithTimeout(ctx, b.timeout)
		err := b.probe(pctx)
		cancel()
		if err == nil {
			b.failed.Store(0)
			b.state.Store(uint32(BreakerClosed))
			b.log.Info(b.name + ": circuit breaker closed, Redis answers again")
			return
		}
		b.state.Store(uint32(BreakerOpen))
	}
}
