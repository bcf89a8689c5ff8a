package cache

// Internals that the tests of package cache_test reach.

import "time"

// SetClock makes c read the time from now, so that tests step through
// freshness without waiting.
func SetClock(c *Cache, now func() time.Time) { c.now = now }

// SetLockLease sets the lease of s's fill locks, before s takes any.
func SetLockLease(s *RedisStore, d time.Duration) { s.lease = d }

// WaitBackground waits for c's background updates in flight.
func WaitBackground(c *Cache) { c.bg.Wait() }

// Count counts one response of the given $upstream_cache_status, and
// CountStored one stored response, as a Cache does.
func Count(s *Stats, status string) { s.count(status) }
func CountStored(s *Stats)          { s.stored.Add(1) }

// The disk store's layout, which the tests corrupt on purpose.
const (
	DiskHeaderSize = diskHeaderSize
	GenerationFile = generationFile
)

// Sweep runs one pass of the disk store's sweeper as if at now.
func Sweep(s *DiskStore, now time.Time) { s.sweepOnce(now) }
