// Package redisconn holds what mosaic's users of Redis share: a client
// that connects in the background and reconnects after failures, a
// per-operation timeout, and a circuit breaker that makes its users
// bypass a Redis that stopped answering instead of waiting on it.
package redisconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"
)

// Options configure a Conn.
type Options struct {
	// Name starts the Conn's log lines ("cache redis store").
	Name string
	// Timeout bounds each operation (OpCtx).
	Timeout time.Duration
	// Logger receives connection errors; nil means slog.Default().
	Logger *slog.Logger
	// Hold, when set, runs while a client is connected (the cache's
	// subscription): it calls ready once in service and returns when it
	// fails; it is then run again with the same client a second later.
	// Without it, the Conn is ready once connected.
	Hold func(ctx context.Context, c rueidis.Client, ready func()) error
}

// Errors of Client.
var (
	ErrDown        = errors.New("redis: not connected")
	ErrBreakerOpen = errors.New("redis: circuit breaker open")
)

// Conn is a Redis client kept connected in the background. A Redis that
// cannot be reached is not an error: Client fails at once and the Conn
// keeps trying to connect.
type Conn struct {
	url     string
	opt     rueidis.ClientOption
	o       Options
	client  atomic.Pointer[rueidis.Client]
	breaker *Breaker
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}
	started bool
}

// New prepares a Conn to the Redis or Valkey at url
// (redis://[user:pass@]host:port/db, rediss:// for TLS, unix://path);
// Start connects it.
func New(url string, o Options) (*Conn, error) {
	opt, err := rueidis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	opt.DisableRetry = true // a bypass is better than a slow retry
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	c := &Conn{url: url, opt: opt, o: o, done: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.breaker = NewBreaker(o.Name, DefaultFailures, DefaultProbe, o.Timeout, c.ping, o.Logger)
	return c, nil
}

// Start connects in the background and waits up to two seconds for the
// Conn to be in service, so that one made against a running Redis serves
// its first request with it.
func (c *Conn) Start() {
	ready := make(chan struct{})
	c.started = true
	go c.run(ready)
	select {
	case <-ready:
	case <-time.After(2 * time.Second):
	}
}

// Context is the Conn's own, cancelled by Close.
func (c *Conn) Context() context.Context { return c.ctx }

// Breaker returns the Conn's circuit breaker.
func (c *Conn) Breaker() *Breaker { return c.breaker }

// Client returns the client for an operation, or an error at once while
// the circuit breaker is open or no connection is up.
func (c *Conn) Client() (rueidis.Client, error) {
	if !c.breaker.Allow() {
		return nil, ErrBreakerOpen
	}
	return c.Raw()
}

// Raw returns the client whatever the breaker says (for a subscription).
func (c *Conn) Raw() (rueidis.Client, error) {
	cl := c.client.Load()
	if cl == nil {
		return nil, ErrDown
	}
	return *cl, nil
}

// OpCtx bounds one operation with the Conn's timeout.
func (c *Conn) OpCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.o.Timeout)
}

// Observe reports the outcome of an operation to the circuit breaker and
// returns err. Any reply, an error reply or nil included, is an answer.
func (c *Conn) Observe(err error) error {
	if answered(err) {
		c.breaker.Record(c.ctx, nil)
	} else {
		c.breaker.Record(c.ctx, err)
	}
	return err
}

// ObserveMulti reports a pipeline sent within one timeout to the circuit
// breaker as one operation, which failed when any of its commands got no
// answer: a pipeline that timed out counts once, as a single command
// would, not once a command. It returns the first such error, or nil.
func (c *Conn) ObserveMulti(res []rueidis.RedisResult) error {
	for _, r := range res {
		if err := r.Error(); !answered(err) {
			return c.Observe(err)
		}
	}
	return c.Observe(nil)
}

// answered reports whether err is Redis's answer (nil, an error reply or
// a nil reply) rather than the lack of one.
func answered(err error) bool {
	_, isReply := rueidis.IsRedisErr(err)
	return err == nil || isReply || rueidis.IsRedisNil(err)
}

// ping is the circuit breaker's probe.
func (c *Conn) ping(ctx context.Context) error {
	cl, err := c.Raw()
	if err != nil {
		return err
	}
	return cl.Do(ctx, cl.B().Ping().Build()).Error()
}

// run connects, then runs Hold, reconnecting and holding again after
// failures until Close.
func (c *Conn) run(ready chan struct{}) {
	defer close(c.done)
	var once sync.Once
	signal := func() { once.Do(func() { close(ready) }) }
	backoff := 100 * time.Millisecond
	var lastLog time.Time
	for c.ctx.Err() == nil {
		if c.client.Load() == nil {
			cl, err := rueidis.NewClient(c.opt)
			if err != nil {
				// Not reachable: in service at once, as a bypass.
				signal()
				if time.Since(lastLog) > time.Minute {
					c.o.Logger.Error(c.o.Name+": cannot connect, bypassing", "url", RedactURL(c.url), "error", err)
					lastLog = time.Now()
				}
				if !SleepCtx(c.ctx, backoff) {
					break
				}
				backoff = min(backoff*2, 5*time.Second)
				continue
			}
			c.client.Store(&cl)
		}
		backoff = 100 * time.Millisecond
		if c.o.Hold == nil {
			signal()
			<-c.ctx.Done()
			break
		}
		cl, _ := c.Raw()
		_ = c.o.Hold(c.ctx, cl, signal)
		if !SleepCtx(c.ctx, time.Second) {
			break
		}
	}
	signal()
	if cl := c.client.Swap(nil); cl != nil {
		(*cl).Close()
	}
}

// Close stops the background work and closes the connections.
func (c *Conn) Close() {
	c.cancel()
	if c.started {
		<-c.done
	}
}

// SleepCtx waits d, or until ctx ends (then false).
func SleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// RedactURL hides a password in a Redis URL for a log line.
func RedactURL(u string) string {
	if at := strings.LastIndex(u, "@"); at >= 0 {
		if i := strings.Index(u, "://"); i >= 0 && i < at {
			return u[:i+3] + "***" + u[at:]
		}
	}
	return u
}

// String names the Conn for a log line, without a password.
func (c *Conn) String() string { return fmt.Sprintf("%s (%s)", c.o.Name, RedactURL(c.url)) }
