package cache

import (
	"log/slog"
	"sync"
	"time"
)

// errorLog reports store failures. A store that is down fails every
// request, so the log keeps to one line a second per zone and says how
// many were left out.
type errorLog struct {
	logger *slog.Logger
	stats  *Stats
}

// storeLogLimit is the once-a-second limit, kept in the zone's Stats: the
// zone's handlers (one per location, more while a reload retires a
// configuration) share it, so that one failure seen by two of them is not
// written twice.
type storeLogLimit struct {
	mu         sync.Mutex
	last       time.Time
	suppressed int
}

func newErrorLog(l *slog.Logger, s *Stats) *errorLog { return &errorLog{logger: l, stats: s} }

// store records a failed store operation; the request goes on without the
// cache.
func (l *errorLog) store(op, key string, err error) {
	l.stats.storeErrors.Add(1)
	lim := &l.stats.storeLog
	now := time.Now()
	lim.mu.Lock()
	if now.Sub(lim.last) < time.Second {
		lim.suppressed++
		lim.mu.Unlock()
		return
	}
	lim.last = now
	n := lim.suppressed
	lim.suppressed = 0
	lim.mu.Unlock()
	l.logger.Error("cache store failed, bypassing the cache", "op", op, "key", key, "error", err, "suppressed", n)
}
