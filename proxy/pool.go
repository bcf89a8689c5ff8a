package proxy

import (
	"sync"
	"time"
)

// idlePool is an upstream's cache of idle keepalive connections. Like
// NGINX's keepalive module it holds at most Keepalive connections across
// all the group's servers and, when full, closes the one idle longest to
// make room. Lookups take the most recently used connection to the server
// the balancer chose that was opened for the same connID.
type idlePool struct {
	mu    sync.Mutex
	conns []*conn // oldest first
}

// getIdle returns an idle connection to p opened for id that is still
// usable, or nil. Every reuse first reads the socket once without waiting
// (conn.alive): bytes that arrived while the connection sat idle (a body
// sent after a HEAD's or a 204's head, more than Content-Length said, an
// HTTP server's 408 after its own idle timeout) would otherwise be read as
// the next request's response, another client's. NGINX learns of them from
// its event loop and closes the connection at once; here the check costs a
// system call per reuse.
func (u *Upstream) getIdle(p *peer, id connID, now time.Time) *conn {
	if u.Keepalive <= 0 {
		return nil
	}
	for {
		c := u.idle.take(p, id)
		if c == nil {
			return nil
		}
		if now.Sub(c.idleSince) <= u.KeepaliveTimeout && c.alive() {
			return c
		}
		c.close()
	}
}

// putIdle keeps c for reuse, or closes it when the group keeps no
// connections or c has served its share of requests or of time
// (keepalive_requests, keepalive_time).
func (u *Upstream) putIdle(c *conn, now time.Time) {
	if u.Keepalive <= 0 || c.requests >= u.KeepaliveRequests || now.Sub(c.opened) > u.KeepaliveTime {
		c.close()
		return
	}
	c.idleSince = now
	for _, old := range u.idle.add(c, u.Keepalive, now.Add(-u.KeepaliveTimeout)) {
		old.close()
	}
}

func (ip *idlePool) take(p *peer, id connID) *conn {
	ip.mu.Lock()
	defer ip.mu.Unlock()
	for i := len(ip.conns) - 1; i >= 0; i-- {
		if c := ip.conns[i]; c.peer == p && c.id == id {
			copy(ip.conns[i:], ip.conns[i+1:])
			ip.conns[len(ip.conns)-1] = nil
			ip.conns = ip.conns[:len(ip.conns)-1]
			return c
		}
	}
	return nil
}

// add appends c and returns the connections it pushed out: those idle
// since before expired, and the oldest beyond max.
func (ip *idlePool) add(c *conn, max int, expired time.Time) []*conn {
	ip.mu.Lock()
	defer ip.mu.Unlock()
	n := 0
	for n < len(ip.conns) && (ip.conns[n].idleSince.Before(expired) || len(ip.conns)-n >= max) {
		n++
	}
	var out []*conn
	if n > 0 {
		out = append(out, ip.conns[:n]...)
		rest := copy(ip.conns, ip.conns[n:])
		clear(ip.conns[rest:])
		ip.conns = ip.conns[:rest]
	}
	ip.conns = append(ip.conns, c)
	return out
}

func (ip *idlePool) closeAll() {
	ip.mu.Lock()
	conns := ip.conns
	ip.conns = nil
	ip.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
}
