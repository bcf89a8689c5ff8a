package cache

import (
	"context"
	"sync"
	"time"
)

// lockTable holds the fill locks of one process: the memory and disk
// stores use it as their lock, and the Redis store falls back to it while
// Redis is unreachable.
type lockTable struct {
	mu    sync.Mutex
	locks map[string]*heldLock
}

type heldLock struct {
	done    chan struct{} // closed on release or replacement
	expires time.Time
}

func newLockTable() *lockTable { return &lockTable{locks: make(map[string]*heldLock)} }

// tryLock takes key's lock for ttl unless a live holder has it. An
// expired lock is taken over, which is proxy_cache_lock_age's "one more
// request may be passed".
func (t *lockTable) tryLock(key string, ttl time.Duration) (func(), bool) {
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if l, ok := t.locks[key]; ok {
		if now.Before(l.expires) {
			return nil, false
		}
		close(l.done)
	}
	l := &heldLock{done: make(chan struct{}), expires: now.Add(ttl)}
	t.locks[key] = l
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			if t.locks[key] == l {
				delete(t.locks, key)
				close(l.done)
			}
			t.mu.Unlock()
		})
	}, true
}

// wait blocks until key's lock is released or expires, or ctx ends.
func (t *lockTable) wait(ctx context.Context, key string) error {
	t.mu.Lock()
	l, ok := t.locks[key]
	t.mu.Unlock()
	if !ok {
		return nil
	}
	left := time.Until(l.expires)
	if left <= 0 {
		return nil
	}
	timer := time.NewTimer(left)
	defer timer.Stop()
	select {
	case <-l.done:
		return nil
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
