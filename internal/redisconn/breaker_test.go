package redisconn

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"
)

// TestBreakerProbeHasTheOperationTimeout: a Redis that answers each
// operation within its timeout, but later than the probe interval (a far
// one, given a longer redis_timeout=), closes the breaker it opened: the
// probe waits the operations' timeout. Bound by the interval, every probe
// gave up before the answer and the breaker stayed open for good.
func TestBreakerProbeHasTheOperationTimeout(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const answer = 50 * time.Millisecond
	probe := func(ctx context.Context) error {
		select {
		case <-time.After(answer):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	b := NewBreaker("far", 1, answer/5, 20*answer, probe, slog.New(slog.DiscardHandler))
	b.Record(ctx, errors.New("no answer"))
	if b.State() == BreakerClosed {
		t.Fatal("the breaker did not open")
	}
	for deadline := time.Now().Add(10 * time.Second); b.State() != BreakerClosed; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("breaker still %v: the probe, answered in %v, never closed it", b.State(), answer)
		}
	}
}
