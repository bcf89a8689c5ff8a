package http1

import (
	"errors"
	"os"
	"time"
)

// Idle connections. A connection waiting for its next request first waits
// on its own goroutine, which costs nothing more under load (the next
// request is usually there within microseconds). One still waiting after
// parkDelay is parked by the server's idle sweeper: the sweeper marks it
// and moves its read deadline into the past, and the goroutine, woken,
// restores the deadline and hands the connection over (park): to the
// process's epoll set with no goroutine at all where there is one
// (park_linux.go), else to a fresh goroutine whose stack starts small
// (the handlers of the requests before may have grown this one's to 8 or
// 16 KB, and the runtime shrinks stacks only at a garbage collection,
// which a mostly idle server rarely runs).

// parkDelay is the sweep interval: a connection idle for one to two
// intervals is parked.
const parkDelay = 500 * time.Millisecond

// idleAsked marks a connection that the sweeper has asked to park.
const idleAsked = -1

// beginIdle says the connection waits for a request from now.
func (c *conn) beginIdle() {
	c.idleSince.Store(c.srv.idleTick.Load() + 1)
}

// endIdle ends the wait and reports whether the sweeper asked the
// connection to park; then the read deadline it moved is restored.
func (c *conn) endIdle() bool {
	if c.idleSince.Swap(0) != idleAsked {
		return false
	}
	// The sweeper moves the deadline with the shard's lock held: taking
	// it makes sure the move is done before it is undone here.
	c.shard.mu.Lock()
	c.shard.mu.Unlock()
	c.setRead(c.waitUntil)
	return true
}

// armedDeadline is when the wait that the connection armed for a request
// ends; zero for none.
func (c *conn) armedDeadline() time.Time {
	if !c.rd.valid || c.rd.d <= 0 {
		return time.Time{}
	}
	return c.rd.at.Add(c.rd.d)
}

// waitIdle waits on the goroutine for more of a request, as a connection
// the idle sweeper may ask to park: then it returns errPark, with the
// read deadline restored to waitUntil.
func (c *conn) waitIdle() error {
	c.beginIdle()
	err := c.fill()
	if c.endIdle() && errors.Is(err, os.ErrDeadlineExceeded) {
		if d := c.waitUntil; d.IsZero() || time.Now().Before(d) {
			return errPark
		}
	}
	return err
}

// errPark says the idle sweeper asked a waiting connection to park.
var errPark = errors.New("http1: park")

// sweepIdle runs while the server has connections, asking those idle for
// a whole interval to park.
func (s *Server) sweepIdle() {
	t := time.NewTicker(parkDelay)
	defer t.Stop()
	for range t.C {
		tick := s.idleTick.Add(1)
		s.mu.Lock()
		if len(s.conns) == 0 {
			s.idleSweeping = false
			s.mu.Unlock()
			return
		}
		for c := range s.conns {
			since := c.idleSince.Load()
			if since <= 0 || since >= tick {
				continue
			}
			c.shard.mu.Lock()
			if c.idleSince.CompareAndSwap(since, idleAsked) {
				c.setRead(aLongTimeAgo)
			}
			c.shard.mu.Unlock()
		}
		s.mu.Unlock()
	}
}
