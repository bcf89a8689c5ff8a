package cache

import (
	"errors"

	"github.com/mosaic-edge/mosaic/internal/redisconn"
)

// ErrUnavailable is wrapped by the errors of a store that bypasses itself
// without trying, because its circuit breaker is open.
var ErrUnavailable = errors.New("cache: store unavailable")

// Breaker is the circuit breaker of a Redis store, shared with mosaic's
// other users of Redis (internal/redisconn): after
// DefaultBreakerFailures operations in a row failed it opens, and the
// store is bypassed at once (the handler serves from upstream,
// Cache-Status says "detail=store-unavailable", or the local tier answers
// with what it holds) instead of every request waiting for the store's
// timeout, until a background probe gets an answer again.
type Breaker = redisconn.Breaker

// BreakerState is the state of a store's circuit breaker.
type BreakerState = redisconn.BreakerState

// The states of a circuit breaker.
const (
	BreakerClosed   = redisconn.BreakerClosed
	BreakerOpen     = redisconn.BreakerOpen
	BreakerHalfOpen = redisconn.BreakerHalfOpen
)

// Defaults of the Redis store's circuit breaker.
const (
	DefaultBreakerFailures = redisconn.DefaultFailures
	DefaultBreakerProbe    = redisconn.DefaultProbe
)
