package cache

import (
	"log/slog"
	"sync"
	"time"
)

// errorLog reports store failures. A store that is down fails every
// request, so the log keeps to one line a second and says how many were
// left out.
type errorLog struct {
	logger *slog.Logger
	stats  *Stats

	mu         sync.Mutex
	last       time.Time
	suppressed int
}

func newErrorLog(l *slog.Logger, s *Stats) *errorLog { return &errorLog{logger: l, stats: s} }

// store records a failed store operation; the request goes on without the
// cache.
func (l *errorLog) store(op, key string, err error) {
	l.stats.storeErrors.Add(1)
	now := time.Now()
	l.mu.Lock()
	if now.Sub(l.last) < time.Second {
		l.suppressed++
		l.mu.Unlock()
		return
	}
	l.last = now
	n := l.suppressed
	l.suppressed = 0
	l.mu.Unlock()
	l.logger.Error("cache store failed, bypassing the cache", "op", op, "key", key, "error", err, "suppressed", n)
}
