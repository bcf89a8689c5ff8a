package http1

import (
	"sync"
	"sync/atomic"
	"time"
)

// The watch. While a handler runs, nothing reads its connection, so a
// client that closes it would go unnoticed until the response is
// written. Once a request has run for watchDelay and its body has been
// read, a read is started on the connection: end of file cancels the
// request's context (as net/http and NGINX notice a client that goes
// away); a byte (the next pipelined request) is kept for the next read.
//
// A timer per request would cost more than many whole responses: arming
// one can wake the network poller, a system call. Instead each running
// request is linked into a list, and one sweeper per server, running
// only while some request is, looks at the lists every watchDelay and
// starts the watch of the requests that have run for at least one whole
// interval. A response done sooner costs two list operations.

// watchDelay is the sweep interval: a slow response (an upstream that
// takes its time, a stream of events) learns of a disconnect within
// twice this delay.
const watchDelay = 10 * time.Millisecond

// watcher holds the running requests of a server, in shards so that
// connections on different CPUs rarely share a lock.
type watcher struct {
	tick     atomic.Int64 // sweeps so far
	sweeping atomic.Bool
	shards   [16]watchShard
}

type watchShard struct {
	mu   sync.Mutex
	head *conn
	n    int
}

// watchShardOf spreads connections over the shards.
var watchShardOf atomic.Uint32

// link and unlink add and remove a running request; sh.mu is held.
func (sh *watchShard) link(c *conn) {
	c.prev, c.next = nil, sh.head
	if sh.head != nil {
		sh.head.prev = c
	}
	sh.head = c
	sh.n++
}

func (sh *watchShard) unlink(c *conn) {
	if c.prev != nil {
		c.prev.next = c.next
	} else if sh.head == c {
		sh.head = c.next
	}
	if c.next != nil {
		c.next.prev = c.prev
	}
	c.prev, c.next = nil, nil
	sh.n--
}

// sweep runs while requests do, starting the watch of those that have
// run for a whole interval. It ends when a sweep finds none running.
func (w *watcher) sweep() {
	t := time.NewTicker(watchDelay)
	defer t.Stop()
	for range t.C {
		tick := w.tick.Add(1)
		running := 0
		for i := range w.shards {
			sh := &w.shards[i]
			sh.mu.Lock()
			running += sh.n
			for c := sh.head; c != nil; c = c.next {
				if c.startTick < tick-1 {
					c.fire()
				}
			}
			sh.mu.Unlock()
		}
		if running == 0 {
			w.sweeping.Store(false)
			// A request that started after its shard was looked at saw
			// sweeping still true: sweep again for it.
			if !w.busy() || !w.sweeping.CompareAndSwap(false, true) {
				return
			}
		}
	}
}

func (w *watcher) busy() bool {
	for i := range w.shards {
		sh := &w.shards[i]
		sh.mu.Lock()
		n := sh.n
		sh.mu.Unlock()
		if n > 0 {
			return true
		}
	}
	return false
}

// The fields of the watch (running, fired, bodyDone, watching, aborting,
// gone) are guarded by the connection's shard lock, which the sweeper
// holds as it looks at them: a request takes one lock to start and one
// to end.

// startWatch arms the watch for the request about to run; bodyDone says
// the request has no body to read first.
func (c *conn) startWatch(ctx *requestCtx, bodyDone bool) {
	w := &c.srv.watch
	sh := c.shard
	bodyDone = bodyDone && c.br.Buffered() == 0
	sh.mu.Lock()
	c.running, c.fired, c.reqCtx, c.bodyDone = true, false, ctx, bodyDone
	c.startTick = w.tick.Load()
	sh.link(c)
	sh.mu.Unlock()
	if !w.sweeping.Load() && w.sweeping.CompareAndSwap(false, true) {
		go w.sweep()
	}
}

// fire marks the request as having run for watchDelay and starts the
// watch if its body has been read. The sweeper calls it with the shard's
// lock held.
func (c *conn) fire() {
	if c.fired {
		return
	}
	c.fired = true
	if c.running && c.bodyDone && !c.watching {
		c.beginWatch()
	}
}

// beginWatch starts the watch's read, with the shard's lock held, so
// that stopWatch's wake-up deadline cannot come before the deadline is
// lifted here.
func (c *conn) beginWatch() {
	c.watching = true
	// A deadline the handler set for its body reads must not end the
	// watch and pass for the client going away.
	c.setRead(time.Time{})
	go c.watch()
}

// bodyRead is called when the request body has been read to its end.
func (c *conn) bodyRead() {
	idle := c.br.Buffered() == 0
	c.shard.mu.Lock()
	c.bodyDone = idle
	if c.running && c.fired && idle && !c.watching {
		c.beginWatch()
	}
	c.shard.mu.Unlock()
}

func (c *conn) watch() {
	n, err := c.rwc.Read(c.one[:])
	c.shard.mu.Lock()
	defer c.shard.mu.Unlock()
	c.watching = false
	switch {
	case n > 0:
		c.has.Store(true)
	case err != nil && !c.aborting:
		c.gone = true
		c.reqCtx.cancel()
	}
	c.cond.Broadcast()
}

// stopWatch ends the watch when the handler returns (or hijacks the
// connection), waking a read in progress.
func (c *conn) stopWatch() {
	sh := c.shard
	sh.mu.Lock()
	if c.running {
		c.running = false
		sh.unlink(c)
	}
	if c.watching {
		c.aborting = true
		c.setRead(aLongTimeAgo)
		for c.watching {
			c.cond.Wait()
		}
		c.aborting = false
		c.setRead(time.Time{})
	}
	c.reqCtx = nil
	sh.mu.Unlock()
}
