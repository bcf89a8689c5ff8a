package cache

import (
	"strconv"
	"sync/atomic"
	"time"
)

// The values of $upstream_cache_status.
const (
	StatusMiss        = "MISS"
	StatusBypass      = "BYPASS"
	StatusExpired     = "EXPIRED"
	StatusStale       = "STALE"
	StatusUpdating    = "UPDATING"
	StatusRevalidated = "REVALIDATED"
	StatusHit         = "HIT"
)

// Stats counts what the handlers of a zone did. It is safe for concurrent
// use; share one among the handlers whose numbers belong together.
type Stats struct {
	hit, miss, expired, stale, updating, revalidated, bypass atomic.Uint64
	stored, storeErrors                                      atomic.Uint64
	storeLog                                                 storeLogLimit
}

// Counts is a snapshot of Stats.
type Counts struct {
	Hit, Miss, Expired, Stale, Updating, Revalidated, Bypass uint64
	// Stored counts responses committed to the store; StoreErrors counts
	// store operations that failed and were bypassed.
	Stored, StoreErrors uint64
}

// Snapshot reads the counters.
func (s *Stats) Snapshot() Counts {
	return Counts{
		Hit: s.hit.Load(), Miss: s.miss.Load(), Expired: s.expired.Load(),
		Stale: s.stale.Load(), Updating: s.updating.Load(),
		Revalidated: s.revalidated.Load(), Bypass: s.bypass.Load(),
		Stored: s.stored.Load(), StoreErrors: s.storeErrors.Load(),
	}
}

func (s *Stats) count(status string) {
	switch status {
	case StatusHit:
		s.hit.Add(1)
	case StatusMiss:
		s.miss.Add(1)
	case StatusExpired:
		s.expired.Add(1)
	case StatusStale:
		s.stale.Add(1)
	case StatusUpdating:
		s.updating.Add(1)
	case StatusRevalidated:
		s.revalidated.Add(1)
	case StatusBypass:
		s.bypass.Add(1)
	}
}

// cacheStatusHit formats the RFC 9211 Cache-Status value of a response
// served from the store: "NAME; hit; ttl=N", with a negative ttl for a
// stale one, and the reason it was served stale.
func (c *Cache) cacheStatusHit(m *Meta, now time.Time, detail string, collapsed bool) string {
	ttl := m.FreshUntil.Sub(now)
	secs := int64(ttl / time.Second)
	if ttl < 0 && ttl%time.Second != 0 {
		secs-- // round toward minus infinity, so stale never reads 0
	}
	var buf [64]byte // on the stack: the only allocation is the string
	b := append(buf[:0], c.name...)
	b = append(b, "; hit; ttl="...)
	b = strconv.AppendInt(b, secs, 10)
	if collapsed {
		b = append(b, "; collapsed"...)
	}
	if detail != "" {
		b = append(b, "; detail="...)
		b = append(b, detail...)
	}
	return string(b)
}

// cacheStatusForward formats the Cache-Status of a response that came
// from upstream: why it was forwarded, the upstream status, and whether it
// was stored (or why not).
func (c *Cache) cacheStatusForward(fwd string, status int, stored bool, detail string) string {
	b := make([]byte, 0, len(c.name)+64)
	b = append(b, c.name...)
	b = append(b, "; fwd="...)
	b = append(b, fwd...)
	if status > 0 {
		b = append(b, "; fwd-status="...)
		b = strconv.AppendInt(b, int64(status), 10)
	}
	if stored {
		b = append(b, "; stored"...)
	}
	if detail != "" {
		b = append(b, "; detail="...)
		b = append(b, detail...)
	}
	return string(b)
}
