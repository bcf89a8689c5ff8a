package cache

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/rueidis"
)

// subscribe listens for lock releases on a dedicated connection until it
// fails or the store closes.
func (s *RedisStore) subscribe(subscribed func()) error {
	c, err := s.conn()
	if err != nil {
		return err
	}
	dc, release := c.Dedicate()
	defer release()
	channelPrefix := s.prefix + "u:"
	errs := dc.SetPubSubHooks(rueidis.PubSubHooks{
		OnMessage: func(m rueidis.PubSubMessage) {
			s.wake(strings.TrimPrefix(m.Channel, channelPrefix))
		},
		OnSubscription: func(sub rueidis.PubSubSubscription) {
			if sub.Kind == "psubscribe" {
				s.subOK.Store(true)
				subscribed()
				s.recheckWaiters()
			}
		},
	})
	ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
	err = dc.Do(ctx, dc.B().Psubscribe().Pattern(globEscape(channelPrefix)+"*").Build()).Error()
	cancel()
	if err != nil {
		return fmt.Errorf("psubscribe: %w", err)
	}
	select {
	case err := <-errs:
		return err
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
}

// Timing of the fill locks.
const (
	// redisLockLease is how long a fill lock outlives its holder: the
	// holder renews it every third of the lease while it fills (up to
	// proxy_cache_lock_age), so the lock of an instance that died lapses
	// within a lease instead of holding waiters for lock_age.
	redisLockLease = time.Second
	// redisLockRecheck is how often a waiter looks at the lock itself, in
	// case the release message was lost (it is not delivered while the
	// subscription is down, as after Redis restarted). It bounds how long
	// a waiter oversleeps a release or a lapsed lease.
	redisLockRecheck = 200 * time.Millisecond
)

// unlockScript deletes the lock only if it still holds our token, and
// announces the release. KEYS: lock key. ARGV: token, channel.
var unlockScript = rueidis.NewLuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], '')
  return 1
end
return 0`)

// renewScript extends the lease of a lock that still holds our token.
// KEYS: lock key. ARGV: token, lease in ms.
var renewScript = rueidis.NewLuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`)

// TryLock takes the lock for a lease of at most s.lease, renewed in
// the background until release or ttl (proxy_cache_lock_age), whichever
// comes first. The token names this store (its holder id) before a
// random part.
func (s *RedisStore) TryLock(ctx context.Context, key string, ttl time.Duration) (func(), bool, error) {
	c, err := s.cl()
	if err != nil {
		release, ok := s.local.tryLock(key, ttl)
		return release, ok, nil
	}
	token := s.holder + ":" + newEntity()
	deadline := time.Now().Add(ttl)
	lctx, cancel := s.opCtx(ctx)
	err = s.observe(c.Do(lctx, c.B().Set().Key(s.lockKey(key)).Value(token).Nx().Px(min(ttl, s.lease)).Build()).Error())
	cancel()
	if rueidis.IsRedisNil(err) {
		return nil, false, nil
	}
	if err != nil {
		// Coalesce within this process at least.
		s.log.Warn("cache redis store: lock failed, locking locally", "error", err)
		release, ok := s.local.tryLock(key, ttl)
		return release, ok, nil
	}
	stop := make(chan struct{})
	go s.renew(c, key, token, deadline, stop)
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			ctx, cancel := s.opCtx(context.Background())
			defer cancel()
			if err := s.observe(unlockScript.Exec(ctx, c, []string{s.lockKey(key)}, []string{token, s.chanName(key)}).Error()); err != nil {
				s.log.Warn("cache redis store: unlock failed; the lock expires by itself", "error", err)
			}
		})
	}, true, nil
}

// renew extends the lease of a held lock until stop is closed, the
// deadline (lock_age) passes, or the lock is found lost (lapsed, or Redis
// restarted empty). A failed renewal is retried at the next tick; the
// lease may lapse meanwhile, which lets a waiter take over.
func (s *RedisStore) renew(c rueidis.Client, key, token string, deadline time.Time, stop <-chan struct{}) {
	t := time.NewTicker(s.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-stop:
			return
		case <-s.ctx.Done():
			return
		}
		left := time.Until(deadline)
		if left <= 0 {
			return // lock_age reached: the lock lapses, one more request may pass
		}
		if !s.rc.Breaker().Allow() {
			continue
		}
		ms := strconv.FormatInt(max(int64(min(left, s.lease)/time.Millisecond), 1), 10)
		ctx, cancel := s.opCtx(s.ctx)
		ok, err := renewScript.Exec(ctx, c, []string{s.lockKey(key)}, []string{token, ms}).AsInt64()
		cancel()
		if s.observe(err) == nil && ok == 0 {
			return
		}
	}
}

// Wait registers for the release message before it looks at the lock, so
// that a release between the two cannot be missed. Since a message sent
// while the subscription is down is lost, it also looks at the lock again
// when the subscription is restored and every redisLockRecheck; a lock
// whose holder died is gone within its lease.
func (s *RedisStore) Wait(ctx context.Context, key string) error {
	if _, err := s.cl(); err != nil {
		return s.local.wait(ctx, key)
	}
	ch := make(chan struct{})
	s.mu.Lock()
	s.waiters[key] = append(s.waiters[key], ch)
	s.mu.Unlock()
	defer s.unregister(key, ch)

	recheck := time.NewTicker(redisLockRecheck)
	defer recheck.Stop()
	for {
		// Taken before the look, so that a resubscription after it is seen.
		s.mu.Lock()
		resubscribed := s.resubscribed
		s.mu.Unlock()
		held, err := s.lockHeld(ctx, key)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return s.local.wait(ctx, key)
		}
		if !held {
			return nil
		}
		select {
		case <-ch:
			return nil
		case <-resubscribed:
		case <-recheck.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// lockHeld reports whether key's lock exists in Redis.
func (s *RedisStore) lockHeld(ctx context.Context, key string) (bool, error) {
	c, err := s.cl()
	if err != nil {
		return false, err
	}
	pctx, cancel := s.opCtx(ctx)
	defer cancel()
	pttl, err := c.Do(pctx, c.B().Pttl().Key(s.lockKey(key)).Build()).AsInt64()
	if cerr := ctx.Err(); cerr != nil {
		// The waiter's own deadline (proxy_cache_lock_timeout) passed:
		// it gave up, which says nothing of Redis. Counted, the waiters
		// of one key, whose deadlines fall together, opened the breaker.
		return false, fmt.Errorf("redis store: PTTL: %w", cerr)
	}
	if s.observe(err) != nil {
		return false, fmt.Errorf("redis store: PTTL: %w", err)
	}
	return pttl != -2, nil // -2: no such key
}

func (s *RedisStore) unregister(key string, ch chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.waiters[key]
	for i, c := range list {
		if c == ch {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(s.waiters, key)
	} else {
		s.waiters[key] = list
	}
}

// wake releases the waiters of key.
func (s *RedisStore) wake(key string) {
	s.mu.Lock()
	list := s.waiters[key]
	delete(s.waiters, key)
	s.mu.Unlock()
	for _, ch := range list {
		close(ch)
	}
}

// recheckWaiters makes every waiter look at its lock again.
func (s *RedisStore) recheckWaiters() {
	s.mu.Lock()
	close(s.resubscribed)
	s.resubscribed = make(chan struct{})
	s.mu.Unlock()
}
