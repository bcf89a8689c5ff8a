package limit

import (
	"context"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	"github.com/mosaic-edge/mosaic/internal/redisconn"
)

// DefaultRedisTimeout bounds a Redis operation of a zone: a request waits
// at most this long before its zone limits it locally.
const DefaultRedisTimeout = 50 * time.Millisecond

// redisZone is what the Redis stores of both kinds share: the connection,
// the prefix of their keys, and the fallback's bookkeeping.
type redisZone struct {
	rc     *redisconn.Conn
	prefix string
	o      ZoneOptions
	// lastLog limits the "limiting locally" lines to one a minute.
	lastLog atomic.Int64
}

func newRedisZone(kind string, o ZoneOptions) (*redisZone, error) {
	rc, err := redisconn.New(o.Redis, redisconn.Options{
		Name: kind + " zone \"" + o.Name + "\"", Timeout: o.RedisTimeout, Logger: o.Logger,
	})
	if err != nil {
		return nil, err
	}
	rc.Start()
	return &redisZone{rc: rc, prefix: "mosaic:" + kind + ":" + o.Name + ":", o: o}, nil
}

// maxRedisKey is the longest key a zone names in Redis as it is.
const maxRedisKey = 64

// redisKey is the name in Redis of key's bucket or leases. A longer key
// is named by its SHA-256, so that a client's key of up to 65535 bytes
// (limit_req's limit, as NGINX's) costs Redis no more than a short one:
// unlike a zone in memory, whose size bounds its keys, Redis would keep
// 64 KB a key for a minute. A hashed name ("\x00sha256:" and 64 hex
// digits, 72 bytes) is longer than any key named as it is, so the two
// never meet.
func (z *redisZone) redisKey(key string) string {
	if len(key) <= maxRedisKey {
		return z.prefix + key
	}
	sum := sha256.Sum256([]byte(key))
	return z.prefix + "\x00sha256:" + hex.EncodeToString(sum[:])
}

// fallback records that Redis did not answer: the zone limits locally.
func (z *redisZone) fallback(err error) {
	z.rc.Breaker().CountLocal()
	now := time.Now().Unix()
	if last := z.lastLog.Load(); now-last >= 60 && z.lastLog.CompareAndSwap(last, now) {
		z.o.Logger.Warn(z.rc.String()+": Redis does not answer, limiting locally", "error", err)
	}
}

// Breaker returns the circuit breaker of the zone's Redis connection.
func (z *redisZone) breaker() *redisconn.Breaker { return z.rc.Breaker() }

// reqScript is NGINX's leaky bucket for one key, kept in a hash ("e" the
// excess in thousandths of a request, "l" the time of the last charge in
// ms, Redis's clock, so that every instance reads one time). Mode 0 looks
// up, 1 looks up and charges, 2 charges without looking (a key that was
// looked up while the limits after it were). It returns {busy, excess}.
var reqScript = rueidis.NewLuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate, burst, mode = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local v = redis.call('HMGET', KEYS[1], 'e', 'l')
local excess = 0
if v[1] then
  local last = tonumber(v[2])
  local ms = now - last
  if ms < -60000 then ms = 1 elseif ms < 0 then ms = 0 end
  excess = tonumber(v[1]) - math.floor(rate * ms / 1000) + 1000
  if excess < 0 then excess = 0 end
  if mode ~= 2 and excess > burst then return {1, excess} end
  if ms == 0 then now = last end
end
if mode == 0 then return {0, excess} end
redis.call('HSET', KEYS[1], 'e', excess, 'l', now)
redis.call('PEXPIRE', KEYS[1], math.floor(excess * 1000 / rate) + 60000)
return {0, excess}
`)

// redisReq is a request zone in Redis, with a zone in memory that limits
// while Redis cannot answer.
type redisReq struct {
	*redisZone
	rate  int64
	local *memReq
}

func newRedisReq(o ZoneOptions, local *memReq) (*redisReq, error) {
	rz, err := newRedisZone("limit_req", o)
	if err != nil {
		return nil, err
	}
	return &redisReq{redisZone: rz, rate: int64(o.Rate), local: local}, nil
}

func (z *redisReq) close() error { z.rc.Close(); return nil }

// run runs the bucket script for key; ok is false when Redis did not
// answer.
func (z *redisReq) run(ctx context.Context, key string, burst int64, mode int) (busy bool, excess int64, ok bool) {
	c, err := z.rc.Client()
	if err != nil {
		z.fallback(err)
		return false, 0, false
	}
	ctx, cancel := z.rc.OpCtx(ctx)
	defer cancel()
	res, err := reqScript.Exec(ctx, c, []string{z.redisKey(key)}, []string{
		strconv.FormatInt(z.rate, 10), strconv.FormatInt(burst, 10), strconv.Itoa(mode),
	}).AsIntSlice()
	if z.rc.Observe(err) != nil || len(res) != 2 {
		z.fallback(err)
		return false, 0, false
	}
	return res[0] == 1, res[1], true
}

func (z *redisReq) lookup(ctx context.Context, key string, burst int64, account bool) (code, int64, heldReq) {
	mode := 0
	if account {
		mode = 1
	}
	busy, excess, ok := z.run(ctx, key, burst, mode)
	switch {
	case !ok:
		return z.local.lookup(ctx, key, burst, account)
	case busy:
		return codeBusy, excess, nil
	case account:
		return codeOK, excess, nil
	}
	return codeAgain, excess, &redisHeld{z: z, key: key}
}

// redisHeld is a key looked up in Redis and not charged yet. Redis keeps
// no hold: a state is never evicted there, only expired once drained.
type redisHeld struct {
	z   *redisReq
	key string
}

func (h *redisHeld) account() int64 {
	_, excess, ok := h.z.run(context.Background(), h.key, 0, 2)
	if !ok {
		// Charged locally instead, as the fallback would have: with no
		// burst to keep to, the lookup charges.
		_, e, _ := h.z.local.lookup(context.Background(), h.key, 1<<62, true)
		return e
	}
	return excess
}

func (h *redisHeld) unlock() {}

// connLease is how long a request in progress counts in a Redis zone
// without its process renewing it: the requests of a process that died
// stop counting after this. Tests shorten it.
var connLease = 15 * time.Second

// acquireScript counts a request of a key in a sorted set of leases,
// each scored by when it lapses (Redis's clock), unless max leases are
// live. It returns 1 when counted.
var acquireScript = rueidis.NewLuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`)

// renewLua extends the leases given (ARGV[2..]) of a key that are still
// there. A renewal batch calls it by renewSha (EVALSHA), not through
// rueidis's Lua.ExecMulti: that sends a SCRIPT LOAD before every
// pipeline, a second round trip within the batch's one operation
// timeout, so that a Redis over half the timeout away never renewed.
const renewLua = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ms = tonumber(ARGV[1])
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], 'XX', now + ms, ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], ms)
return 0
`

// renewSha is renewLua's SHA-1, the name EVALSHA knows it by.
var renewSha = func() string {
	h := sha1.Sum([]byte(renewLua))
	return hex.EncodeToString(h[:])
}()

// redisConn is a connection zone in Redis, with one in memory that
// counts while Redis cannot answer.
type redisConn struct {
	*redisZone
	local *memConn
	// leases are the ones this process holds, by Redis key, which a
	// background loop renews.
	mu     sync.Mutex
	leases map[string]map[string]struct{}
	stop   chan struct{}
	done   chan struct{}
}

func newRedisConn(o ZoneOptions, local *memConn) (*redisConn, error) {
	rz, err := newRedisZone("limit_conn", o)
	if err != nil {
		return nil, err
	}
	z := &redisConn{redisZone: rz, local: local, leases: map[string]map[string]struct{}{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go z.renewLoop()
	return z, nil
}

func (z *redisConn) close() error {
	close(z.stop)
	<-z.done
	z.rc.Close()
	return nil
}

func leaseID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (z *redisConn) acquire(ctx context.Context, key string, max int) (code, func()) {
	c, err := z.rc.Client()
	if err != nil {
		z.fallback(err)
		return z.local.acquire(ctx, key, max)
	}
	rkey, id := z.redisKey(key), leaseID()
	octx, cancel := z.rc.OpCtx(ctx)
	n, err := acquireScript.Exec(octx, c, []string{rkey}, []string{
		strconv.Itoa(max), id, strconv.FormatInt(int64(connLease/time.Millisecond), 10),
	}).AsInt64()
	cancel()
	if z.rc.Observe(err) != nil {
		z.fallback(err)
		return z.local.acquire(ctx, key, max)
	}
	if n == 0 {
		return codeBusy, nil
	}
	z.mu.Lock()
	if z.leases[rkey] == nil {
		z.leases[rkey] = map[string]struct{}{}
	}
	z.leases[rkey][id] = struct{}{}
	z.mu.Unlock()
	var once sync.Once
	return codeOK, func() { once.Do(func() { z.release(rkey, id) }) }
}

// release gives a lease back; one that Redis does not take back lapses.
func (z *redisConn) release(rkey, id string) {
	z.mu.Lock()
	delete(z.leases[rkey], id)
	if len(z.leases[rkey]) == 0 {
		delete(z.leases, rkey)
	}
	z.mu.Unlock()
	c, err := z.rc.Client()
	if err != nil {
		return
	}
	ctx, cancel := z.rc.OpCtx(context.Background())
	defer cancel()
	z.rc.Observe(c.Do(ctx, c.B().Zrem().Key(rkey).Member(id).Build()).Error())
}

// renewLoop extends this process's leases every third of their life.
func (z *redisConn) renewLoop() {
	defer close(z.done)
	t := time.NewTicker(connLease / 3)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-z.stop:
			return
		}
		z.renew()
	}
}

// renewBatch bounds the leases one renewal batch carries, so that a
// batch's size and the time Redis spends on it stay bounded. Tests
// shorten it.
var renewBatch = 512

// renew extends every lease this process holds. One key's renewal at a
// time cost a round trip a key: with a far Redis (tens of ms) and a few
// hundred keys, a pass outlasted the lease, and requests in progress
// stopped counting on the other instances. The renewals go instead in
// batches of up to renewBatch leases, each batch one pipeline of
// per-key scripts (a key with more leases than fit is split over
// batches), sent within one operation timeout: a pass costs a round
// trip or two a batch.
func (z *redisConn) renew() {
	z.mu.Lock()
	held := make(map[string][]string, len(z.leases))
	for k, ids := range z.leases {
		held[k] = slices.Collect(maps.Keys(ids))
	}
	z.mu.Unlock()
	ms := strconv.FormatInt(int64(connLease/time.Millisecond), 10)
	var batches [][]rueidis.LuaExec
	var batch []rueidis.LuaExec
	n := 0
	for k, ids := range held {
		for len(ids) > 0 {
			take := min(len(ids), renewBatch-n)
			batch = append(batch, rueidis.LuaExec{Keys: []string{k}, Args: append([]string{ms}, ids[:take]...)})
			ids, n = ids[take:], n+take
			if n == renewBatch {
				batches, batch, n = append(batches, batch), nil, 0
			}
		}
	}
	if len(batch) > 0 {
		batches = append(batches, batch)
	}
	for _, b := range batches {
		// Asked again each batch: once a batch found no answer and the
		// breaker opened, the rest of the pass does not wait on Redis.
		c, err := z.rc.Client()
		if err != nil {
			return
		}
		ctx, cancel := z.rc.OpCtx(context.Background())
		z.rc.ObserveMulti(renewMulti(ctx, c, b))
		cancel()
	}
}

// renewMulti runs renewLua once for each of b in one pipeline of
// EVALSHA, one round trip; the commands that Redis answers NOSCRIPT (its
// script cache was flushed, or it restarted) go again as EVAL, which
// caches the script for the next batches.
func renewMulti(ctx context.Context, c rueidis.Client, b []rueidis.LuaExec) []rueidis.RedisResult {
	cmds := make(rueidis.Commands, len(b))
	for i, e := range b {
		cmds[i] = c.B().Evalsha().Sha1(renewSha).Numkeys(1).Key(e.Keys...).Arg(e.Args...).Build()
	}
	res := c.DoMulti(ctx, cmds...)
	var again []int
	for i, r := range res {
		if err, ok := rueidis.IsRedisErr(r.Error()); ok && err.IsNoScript() {
			again = append(again, i)
		}
	}
	if len(again) == 0 {
		return res
	}
	cmds = cmds[:0]
	for _, i := range again {
		cmds = append(cmds, c.B().Eval().Script(renewLua).Numkeys(1).Key(b[i].Keys...).Arg(b[i].Args...).Build())
	}
	for j, r := range c.DoMulti(ctx, cmds...) {
		res[again[j]] = r
	}
	return res
}
