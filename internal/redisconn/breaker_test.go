package redisconn

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/rueidis"
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

// TestObserveMultiCountsAPipelineOnce: a pipeline whose commands all went
// unanswered (one timeout) is one failed operation for the breaker, not
// one a command, so that a renewal batch of many keys that timed out
// once does not open it alone; a pipeline answered resets the count.
func TestObserveMultiCountsAPipelineOnce(t *testing.T) {
	t.Parallel()
	c, err := New("redis://127.0.0.1:1/0", Options{Name: "multi", Timeout: time.Second, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pipeline := func(err error) []rueidis.RedisResult {
		res := make([]rueidis.RedisResult, 5)
		for i := range res {
			res[i] = rueidis.NewErrorResult(err)
		}
		return res
	}
	timedOut := pipeline(context.DeadlineExceeded)
	for range DefaultFailures - 1 {
		if err := c.ObserveMulti(timedOut); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("ObserveMulti of a timed-out pipeline: %v", err)
		}
	}
	if st := c.Breaker().State(); st != BreakerClosed {
		t.Fatalf("breaker %v after %d unanswered pipelines of 5", st, DefaultFailures-1)
	}
	if err := c.ObserveMulti(pipeline(nil)); err != nil {
		t.Fatalf("ObserveMulti of an answered pipeline: %v", err)
	}
	for range DefaultFailures - 1 {
		c.ObserveMulti(timedOut)
	}
	if st := c.Breaker().State(); st != BreakerClosed {
		t.Fatalf("breaker %v: an answered pipeline did not reset the count", st)
	}
	c.ObserveMulti(timedOut)
	if st := c.Breaker().State(); st == BreakerClosed {
		t.Fatalf("breaker still closed after %d unanswered pipelines", DefaultFailures)
	}
}
