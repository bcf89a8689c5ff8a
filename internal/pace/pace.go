// Package pace holds the arithmetic by which NGINX paces bytes to a rate
// (its write filter for limit_rate, its event pipe for proxy_limit_rate),
// and paces reads from an io.Reader by it.
package pace

import (
	"context"
	"io"
	"math"
	"os"
	"time"
)

// StateName is the vars.State value that overrides a location's
// limit_rate for one request, in bytes per second ("set $limit_rate", an
// upstream's X-Accel-Limit-Rate; package throttle reads it). It lives
// here, below the libraries, so that the proxies can write it without
// importing package throttle: a library imports no other library.
const StateName = "limit_rate"

// Limit is how many more bytes NGINX lets go at now, done having gone:
// rate × (whole seconds since start + 1) less done. Its clock,
// ngx_time(), counts whole seconds, and so does this one.
//
// A rate or a limit_rate_after (done < 0 before it is spent) may be
// anything up to the int64 most, from an upstream's header or a
// variable: the sum saturates there rather than overflow into a
// negative allowance, a wait that never ends. A wall clock stepped back
// past the start counts as the start's second, not as a debt of seconds.
func Limit(rate int64, start, now time.Time, done int64) int64 {
	secs := max(now.Unix()-start.Unix(), 0) + 1
	if rate > math.MaxInt64/secs {
		return math.MaxInt64
	}
	allowed := rate * secs
	if done < 0 && allowed > math.MaxInt64+done {
		return math.MaxInt64
	}
	return allowed - done
}

// Wake is when NGINX goes on where Limit is spent at now: it waits what
// is missing at the rate, in whole milliseconds, plus one, and weighs
// again, over again until its whole-second clock lets a byte go. The
// wakes before that are computed here rather than slept through.
func Wake(rate int64, start, now time.Time, done int64) time.Time {
	for n := Limit(rate, start, now, done); n <= 0; n = Limit(rate, start, now, done) {
		now = now.Add(time.Duration(-n*1000/rate+1) * time.Millisecond)
	}
	return now
}

// Delay is how long NGINX holds the next bytes back once n went: their
// time at the rate, in whole milliseconds.
func Delay(rate, n int64) time.Duration {
	return time.Duration(n*1000/rate) * time.Millisecond
}

// Page is the unit on which NGINX ends a send from a file with
// sendfile: the machine's page size (ngx_pagesize).
var Page = int64(os.Getpagesize())

// FileSend is how many bytes of a file, from offset pos to end, one send
// of NGINX's takes with sendfile on, when limit bytes are allowed: all
// that is left if it fits, otherwise limit rounded up so that the send
// ends on a page of the file, unless that passes end, where it takes
// limit (ngx_chain_coalesce_file). So at limit_rate 32k a send may go
// past the second's allowance by up to a page less a byte.
func FileSend(limit, pos, end int64) int64 {
	if end-pos <= limit {
		return end - pos
	}
	if aligned := (pos + limit + Page - 1) &^ (Page - 1); aligned <= end {
		return aligned - pos
	}
	return limit
}

// Reader paces the reads from an io.Reader to a rate, as NGINX's event
// pipe paces the reading of a response from its upstream
// (proxy_limit_rate): counted from the Reader's making, a read may take
// what Limit allows, and holds the next one back for its bytes' Delay.
// A wait ends early, with the context's cause, when ctx is done.
type Reader struct {
	ctx   context.Context
	src   io.Reader
	rate  int64
	start time.Time
	read  int64
	due   time.Time
	timer Timer
}

// NewReader returns src paced to rate bytes per second (rate > 0).
func NewReader(ctx context.Context, src io.Reader, rate int64) *Reader {
	return &Reader{ctx: ctx, src: src, rate: rate, start: time.Now()}
}

func (r *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return r.src.Read(p)
	}
	for {
		now := time.Now()
		until := r.due
		if !now.Before(until) {
			n := Limit(r.rate, r.start, now, r.read)
			if n > 0 {
				p = p[:min(int64(len(p)), n)]
				m, err := r.src.Read(p)
				r.read += int64(m)
				r.due = now.Add(Delay(r.rate, int64(m)))
				return m, err
			}
			until = Wake(r.rate, r.start, now, r.read)
		}
		if err := r.timer.Sleep(r.ctx, until.Sub(now)); err != nil {
			return 0, err
		}
	}
}

// Timer is the wait of a paced body (Reader's, package throttle's): one
// timer, made at the first wait and reset for each after, since a body
// waits once a read or a send and a timer a wait (time.NewTimer,
// time.After) would be an allocation each. The zero Timer is ready.
type Timer struct{ t *time.Timer }

// Sleep waits d, or until ctx is done, and then returns its cause
// (context.Cause: its error unless it was cancelled with one).
func (t *Timer) Sleep(ctx context.Context, d time.Duration) error {
	if t.t == nil {
		t.t = time.NewTimer(d)
	} else {
		t.t.Reset(d)
	}
	select {
	case <-t.t.C:
		return nil
	case <-ctx.Done():
		t.t.Stop() // nothing left to fire for a request that is gone
		return context.Cause(ctx)
	}
}
