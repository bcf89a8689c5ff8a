// Package pace paces reads from an io.Reader to a rate in bytes per second.
package pace

import (
	"context"
	"io"
	"time"
)

// Reader paces the reads from an io.Reader to a rate, as NGINX's
// proxy_limit_rate paces the reading of a response from its upstream:
// counted from the Reader's making, rate × (seconds elapsed + 1) bytes may
// have been read at any time, the same allowance as the write side's.
// A wait ends early, with the context's error, when ctx is done.
type Reader struct {
	ctx   context.Context
	src   io.Reader
	rate  int64
	start time.Time
	read  int64
	timer *time.Timer
}

// NewReader returns src paced to rate bytes per second (rate > 0).
func NewReader(ctx context.Context, src io.Reader, rate int64) *Reader {
	return &Reader{ctx: ctx, src: src, rate: rate, start: time.Now()}
}

// allowed is what may be read at now.
func (r *Reader) allowed(now time.Time) int64 {
	elapsed := now.Sub(r.start) + time.Second
	return int64(float64(r.rate)*elapsed.Seconds()) - r.read
}

func (r *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return r.src.Read(p)
	}
	for {
		n := r.allowed(time.Now())
		if n > 0 {
			if int64(len(p)) > n {
				p = p[:n]
			}
			break
		}
		if err := r.wait(time.Duration((1-n)*int64(time.Second)/r.rate) + time.Millisecond); err != nil {
			return 0, err
		}
	}
	n, err := r.src.Read(p)
	r.read += int64(n)
	return n, err
}

func (r *Reader) wait(d time.Duration) error {
	if r.timer == nil {
		r.timer = time.NewTimer(d)
	} else {
		r.timer.Reset(d)
	}
	select {
	case <-r.timer.C:
		return nil
	case <-r.ctx.Done():
		r.timer.Stop()
		return r.ctx.Err()
	}
}
