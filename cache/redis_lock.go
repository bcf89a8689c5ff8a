package cache

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/rueidis"
)

// subscribe listens for lock releases on a dedicated connection until it
// fails or the store closes.
func (s *RedisStore) subscribe(subscribed func()) error {
	c, err := s.cl()
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

// unlockScript deletes the lock only if it still holds our token, and
// announces the release. KEYS: lock key. ARGV: token, channel.
var unlockScript = rueidis.NewLuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], '')
  return 1
end
return 0`)

func (s *RedisStore) TryLock(ctx context.Context, key string, ttl time.Duration) (func(), bool, error) {
	c, err := s.cl()
	if err != nil {
		release, ok := s.local.tryLock(key, ttl)
		return release, ok, nil
	}
	token := newEntity()
	lctx, cancel := s.opCtx(ctx)
	err = c.Do(lctx, c.B().Set().Key(s.lockKey(key)).Value(token).Nx().Px(ttl).Build()).Error()
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
	var once sync.Once
	return func() {
		once.Do(func() {
			ctx, cancel := s.opCtx(context.Background())
			defer cancel()
			if err := unlockScript.Exec(ctx, c, []string{s.lockKey(key)}, []string{token, s.chanName(key)}).Error(); err != nil {
				s.log.Warn("cache redis store: unlock failed; the lock expires by itself", "error", err)
			}
		})
	}, true, nil
}

// Wait registers for the release message before it looks at the lock, so
// that a release between the two cannot be missed; the lock's own expiry
// bounds the wait should the message be lost.
func (s *RedisStore) Wait(ctx context.Context, key string) error {
	c, err := s.cl()
	if err != nil {
		return s.local.wait(ctx, key)
	}
	ch := make(chan struct{})
	s.mu.Lock()
	s.waiters[key] = append(s.waiters[key], ch)
	s.mu.Unlock()
	defer s.unregister(key, ch)

	pctx, cancel := s.opCtx(ctx)
	pttl, err := c.Do(pctx, c.B().Pttl().Key(s.lockKey(key)).Build()).AsInt64()
	cancel()
	if err != nil {
		return s.local.wait(ctx, key)
	}
	if pttl < 0 {
		return nil // -2: no lock; -1 cannot happen for our keys
	}
	t := time.NewTimer(time.Duration(pttl) * time.Millisecond)
	defer t.Stop()
	select {
	case <-ch:
		return nil
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
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

func (s *RedisStore) wakeAll() {
	s.mu.Lock()
	all := s.waiters
	s.waiters = make(map[string][]chan struct{})
	s.mu.Unlock()
	for _, list := range all {
		for _, ch := range list {
			close(ch)
		}
	}
}
