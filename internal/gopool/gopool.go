// Package gopool runs short jobs on goroutines that are kept for the next
// job once theirs is done.
//
// A goroutine starts with a small stack and grows it by copying, in steps,
// as its calls go deeper: a fragment of an ESI page, which goes through the
// server's location handlers and the proxy, grows its goroutine's stack two
// or three times, and those copies (runtime.newstack) were about a twentieth
// of the server's CPU on pages of 32 fragments. A goroutine that has done
// such a job already has the stack the next one needs. The runtime still
// shrinks the stacks of goroutines that use little of theirs at a garbage
// collection, so an idle pool gives its memory back.
package gopool

import (
	"sync"
	"time"
)

// Pool keeps up to MaxIdle goroutines waiting for jobs; one idle for longer
// than IdleTimeout ends when the pool is next used. The zero Pool keeps 256
// for a minute.
type Pool struct {
	MaxIdle     int
	IdleTimeout time.Duration

	mu   sync.Mutex
	idle []*worker // the most recently idle last
}

type worker struct {
	jobs  chan func() // nil: end
	since time.Time   // idle since
}

// Go runs f on a goroutine: an idle one of the pool, or a new one. As with
// the go statement, a panic in f ends the process unless f recovers it.
func (p *Pool) Go(f func()) {
	now := time.Now()
	p.mu.Lock()
	p.expire(now)
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		w.jobs <- f
		return
	}
	p.mu.Unlock()
	go p.work(f)
}

// expire ends the goroutine idle for longest when it has been idle too
// long: one per call is enough to drain an idle pool while it is used.
func (p *Pool) expire(now time.Time) {
	if len(p.idle) == 0 {
		return
	}
	timeout := p.IdleTimeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	if w := p.idle[0]; now.Sub(w.since) > timeout {
		copy(p.idle, p.idle[1:])
		p.idle[len(p.idle)-1] = nil
		p.idle = p.idle[:len(p.idle)-1]
		w.jobs <- nil
	}
}

// work runs f, then the jobs Go hands it, until the pool has no room for
// it or tells it to end.
func (p *Pool) work(f func()) {
	w := &worker{jobs: make(chan func(), 1)}
	for f != nil {
		f()
		if !p.park(w) {
			return
		}
		f = <-w.jobs
	}
}

// park puts w among the idle goroutines, unless there are MaxIdle.
func (p *Pool) park(w *worker) bool {
	max := p.MaxIdle
	if max <= 0 {
		max = 256
	}
	w.since = time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) >= max {
		return false
	}
	p.idle = append(p.idle, w)
	return true
}
