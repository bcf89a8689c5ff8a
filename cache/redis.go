package cache

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	"github.com/mosaic-edge/mosaic/internal/redisconn"
)

// RedisOptions configure NewRedisStore.
type RedisOptions struct {
	// Prefix starts every key the store writes, so that several zones can
	// share one database; the zone name followed by ":" is a good choice.
	// "" means "mosaic:".
	Prefix string
	// Inactive is how long an entry is kept past its freshness and stale
	// windows, for revalidation and stale use. Redis expires it then,
	// whether read or not. 0 means 10 minutes.
	Inactive time.Duration
	// Timeout bounds each Redis operation; a slower Redis is bypassed. 0
	// means 250ms.
	Timeout time.Duration
	// ChunkSize is the size of the chunk keys a body is split into; a body
	// of up to one chunk is stored inline with the metadata. 0 means 64 KiB.
	// Instances sharing a zone must use the same: a reader checks an
	// entry's chunk count against its own size, and an entry chunked by
	// another size reads as corrupt (dropped and filled again).
	ChunkSize int
	// Logger receives connection errors; nil means slog.Default().
	Logger *slog.Logger
	// LocalSize bounds, in bytes, an in-process copy of the entries this
	// instance writes and reads, served only while Redis cannot answer
	// (see redis_near.go). 0 means no local tier: an outage sends every
	// request to the origin.
	LocalSize int64
}

// Defaults of the Redis store.
const (
	DefaultRedisTimeout   = 250 * time.Millisecond
	DefaultRedisChunkSize = 64 << 10
	// redisGrace is how long the chunks of a replaced or deleted entry
	// outlive it, so that readers already streaming them finish.
	redisGrace = 30 * time.Second
	// redisFillTTL bounds the life of chunks whose entry is never
	// committed (a writer that died).
	redisFillTTL = 10 * time.Minute
	// redisBatch is how many chunks one round trip fetches.
	redisBatch = 8
)

// RedisStore keeps entries in Redis or Valkey, shared by every mosaic
// instance that names the same database and prefix. An entry is one
// metadata key that points at chunk keys under a fresh entity id, written
// before the metadata is switched to them in one script, so a reader sees
// the old entry or the new, never a mixture. Expiry is left to Redis TTLs.
// The fill lock is SET NX PX with a token naming its holder and a short
// lease that the holder renews while it fills, released by a
// compare-and-delete that publishes the release; waiters are woken by
// that message, and also look at the lock again when the subscription is
// restored and every redisLockRecheck, since a message sent while the
// subscription is down is lost.
//
// Every operation is bounded by Timeout; when Redis is down or slow the
// handler serves from upstream and logs, and fill locks fall back to this
// process. After DefaultBreakerFailures operations in a row got no answer,
// a circuit breaker bypasses Redis without trying until a background
// probe gets one.
type RedisStore struct {
	rc        *redisconn.Conn
	prefix    string
	inactive  time.Duration
	timeout   time.Duration
	chunkSize int
	log       *slog.Logger

	// near is the local tier (nil without one).
	near *MemoryStore
	// lastGen is the generation Redis last reported, used while it
	// cannot be asked and the local tier answers.
	lastGen atomic.Uint64
	local   *lockTable // used while Redis cannot be reached
	// holder names this store in the fill locks it takes.
	holder string
	// lease is how long its fill locks outlive it: redisLockLease, which
	// only tests lengthen (SetLockLease), to tell a renewal from a
	// machine's pause.
	lease time.Duration
	// bumped is the highest generation this instance set, which its reads
	// never go below even before Redis's invalidation message arrives.
	bumped atomic.Uint64

	mu      sync.Mutex
	waiters map[string][]chan struct{}
	// resubscribed is closed, and replaced, whenever the subscription is
	// (re)established: waiters then look at their lock again.
	resubscribed chan struct{}
	subOK        atomic.Bool

	ctx context.Context // the connection's, ended by Close
}

// NewRedisStore connects to the Redis or Valkey at url
// (redis://[user:pass@]host:port/db, rediss:// for TLS, unix://path). A
// Redis that cannot be reached yet is not an error: the store bypasses
// itself and keeps trying to connect in the background.
func NewRedisStore(url string, opts RedisOptions) (*RedisStore, error) {
	s := &RedisStore{
		prefix: opts.Prefix, inactive: opts.Inactive,
		timeout: opts.Timeout, chunkSize: opts.ChunkSize, log: opts.Logger,
		local: newLockTable(), waiters: make(map[string][]chan struct{}),
		resubscribed: make(chan struct{}), holder: holderName(), lease: redisLockLease,
	}
	var err error
	if s.prefix == "" {
		s.prefix = "mosaic:"
	}
	if s.inactive <= 0 {
		s.inactive = DefaultInactive
	}
	if s.timeout <= 0 {
		s.timeout = DefaultRedisTimeout
	}
	if s.chunkSize <= 0 {
		s.chunkSize = DefaultRedisChunkSize
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if opts.LocalSize > 0 {
		s.near, err = NewMemoryStore(MemoryOptions{MaxSize: opts.LocalSize, Inactive: s.inactive, ChunkSize: s.chunkSize})
		if err != nil {
			return nil, fmt.Errorf("redis store: local tier: %w", err)
		}
	}
	s.rc, err = redisconn.New(url, redisconn.Options{Name: "cache redis store", Timeout: s.timeout, Logger: s.log, Hold: s.hold})
	if err != nil {
		return nil, fmt.Errorf("redis store: %w", err)
	}
	s.ctx = s.rc.Context()
	// Start waits briefly for the first connection and subscription, so
	// that a store created against a running Redis is in service at once.
	s.rc.Start()
	return s, nil
}

// holderName names a store in the locks it holds, for an operator reading
// them: the host, the process and a random part that tells apart two
// stores of one process.
func holderName() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), newEntity()[:8])
}

var errRedisBreakerOpen = fmt.Errorf("redis store: circuit breaker open: %w", ErrUnavailable)

// cl returns the client for an operation, or an error at once while the
// circuit breaker is open.
func (s *RedisStore) cl() (rueidis.Client, error) {
	c, err := s.rc.Client()
	if errors.Is(err, redisconn.ErrBreakerOpen) {
		return nil, errRedisBreakerOpen
	}
	return c, err
}

// conn returns the client whatever the breaker says, for the subscription.
func (s *RedisStore) conn() (rueidis.Client, error) { return s.rc.Raw() }

// observe reports the outcome of an operation to the circuit breaker and
// returns err.
func (s *RedisStore) observe(err error) error { return s.rc.Observe(err) }

// Breaker returns the store's circuit breaker, for the status endpoint.
func (s *RedisStore) Breaker() *Breaker { return s.rc.Breaker() }

// hold keeps the subscription to the lock-release channel while the
// connection is up (redisconn.Options.Hold).
func (s *RedisStore) hold(ctx context.Context, _ rueidis.Client, ready func()) error {
	err := s.subscribe(ready)
	if s.subOK.Swap(false) && ctx.Err() == nil {
		s.log.Warn("cache redis store: lock subscription lost, resubscribing", "error", err)
	}
	return err
}

// globEscape quotes the characters that are special in Redis patterns.
func globEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func (s *RedisStore) metaKey(key string) string  { return s.prefix + "m:" + key }
func (s *RedisStore) tagKey(tag string) string   { return s.prefix + "t:" + tag }
func (s *RedisStore) lockKey(key string) string  { return s.prefix + "l:" + key }
func (s *RedisStore) chanName(key string) string { return s.prefix + "u:" + key }
func (s *RedisStore) genKey() string             { return s.prefix + "gen" }
func (s *RedisStore) chunkKey(entity string, i int) string {
	return s.prefix + "b:" + entity + ":" + strconv.Itoa(i)
}

func (s *RedisStore) opCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}

// redisValue is what the metadata key holds: the entity whose chunks hold
// the body (empty when the body is inline), the chunk count, the encoded
// Meta and an inline body.
type redisValue struct {
	entity string
	chunks int
	meta   *Meta
	inline []byte
}

const redisValueVersion = 'R'

func (v *redisValue) marshal() []byte {
	mb := v.meta.appendBinary(nil)
	b := make([]byte, 0, 16+len(v.entity)+len(mb)+len(v.inline))
	b = append(b, redisValueVersion)
	b = appendString(b, v.entity)
	b = binary.AppendUvarint(b, uint64(v.chunks))
	b = binary.AppendUvarint(b, uint64(len(mb)))
	b = append(b, mb...)
	return append(b, v.inline...)
}

// parseValue decodes what marshal wrote. The chunk count is checked
// against the body size, since every reader of a value (Get, Delete, the
// purges, the commit that replaces it) sizes its commands by it: a count
// that no writer produces (1<<62 made them panic, a large one could
// exhaust memory) makes the entry corrupt.
func (s *RedisStore) parseValue(b []byte) (*redisValue, error) {
	if len(b) == 0 || b[0] != redisValueVersion {
		return nil, fmt.Errorf("redis value version: %w", ErrCorrupt)
	}
	r := &metaReader{b: b[1:]}
	entity, chunks := r.string(), r.uvarint()
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		return nil, fmt.Errorf("redis value: %w", ErrCorrupt)
	}
	v := &redisValue{entity: entity, meta: new(Meta)}
	if err := v.meta.UnmarshalBinary(r.b[:n]); err != nil {
		return nil, err
	}
	v.inline = r.b[n:]
	size := v.meta.Size
	if v.entity == "" {
		if chunks != 0 || int64(len(v.inline)) != size {
			return nil, fmt.Errorf("inline body is %d bytes in %d chunks, want %d bytes inline: %w", len(v.inline), chunks, size, ErrCorrupt)
		}
		return v, nil
	}
	// A writer sends every chunk full but the last, and stores a body in
	// chunks only when it is larger than one (redisWriter.Write), so the
	// count follows from the size.
	cs := int64(s.chunkSize)
	// A count beyond int (on a 32-bit platform) is no writer's either: as
	// an int it would wrap, and a reader would fetch too few chunks.
	if size <= cs || len(v.inline) != 0 || chunks != uint64((size+cs-1)/cs) || chunks > math.MaxInt {
		return nil, fmt.Errorf("body of %d bytes in %d chunks of %d, %d bytes inline: %w", size, chunks, cs, len(v.inline), ErrCorrupt)
	}
	v.chunks = int(chunks)
	return v, nil
}

func (s *RedisStore) Get(ctx context.Context, key string) (Object, error) {
	c, err := s.cl()
	if err != nil {
		return s.nearGet(key, err)
	}
	ctx, cancel := s.opCtx(ctx)
	defer cancel()
	b, err := c.Do(ctx, c.B().Get().Key(s.metaKey(key)).Build()).AsBytes()
	if rueidis.IsRedisNil(s.observe(err)) {
		s.nearDelete(key)
		return nil, ErrNotFound
	}
	if err != nil {
		return s.nearGet(key, fmt.Errorf("redis store: GET: %w", err))
	}
	v, err := s.parseValue(b)
	if err != nil {
		return nil, fmt.Errorf("redis store: %s: %w", key, err)
	}
	return s.nearFollow(&redisObject{s: s, v: v}), nil
}

// redisObject streams a body from its chunk keys, a batch per round trip.
type redisObject struct {
	s *RedisStore
	v *redisValue
}

func (o *redisObject) Meta() *Meta  { return o.v.meta }
func (o *redisObject) Close() error { return nil }

func (o *redisObject) WriteTo(w io.Writer) (int64, error) {
	if o.v.entity == "" {
		n, err := w.Write(o.v.inline)
		return int64(n), err
	}
	c, err := o.s.cl()
	if err != nil {
		return 0, err
	}
	var n int64
	cmds := make(rueidis.Commands, 0, redisBatch)
	for first := 0; first < o.v.chunks; first += redisBatch {
		cmds = cmds[:0]
		for i := first; i < min(first+redisBatch, o.v.chunks); i++ {
			cmds = append(cmds, c.B().Get().Key(o.s.chunkKey(o.v.entity, i)).Build())
		}
		ctx, cancel := o.s.opCtx(context.Background())
		res := c.DoMulti(ctx, cmds...)
		cancel()
		for _, r := range res {
			b, err := r.AsBytes()
			if o.s.observe(err) != nil {
				// A missing chunk (evicted by Redis) breaks the entry.
				return n, fmt.Errorf("redis store: chunk of %s: %w: %w", o.v.meta.Key, ErrCorrupt, err)
			}
			k, err := w.Write(b)
			n += int64(k)
			if err != nil {
				return n, err
			}
		}
	}
	if n != o.v.meta.Size {
		return n, fmt.Errorf("redis store: %s has %d body bytes, want %d: %w", o.v.meta.Key, n, o.v.meta.Size, ErrCorrupt)
	}
	return n, nil
}

func (s *RedisStore) Put(_ context.Context, key string) (Writer, error) {
	if _, err := s.cl(); err != nil {
		return nil, err
	}
	w := &redisWriter{s: s, key: key, buf: make([]byte, 0, min(s.chunkSize, 4096))}
	if s.near != nil {
		w.near, _ = s.near.Put(context.Background(), key)
	}
	return w, nil
}

// redisWriter sends full chunks as they fill; the last one, or an inline
// body, goes with the commit.
type redisWriter struct {
	s      *RedisStore
	key    string
	entity string
	chunks int
	buf    []byte
	size   int64
	done   bool
	// near receives a copy for the local tier (nil without one, or once
	// the copy failed).
	near Writer
}

func newEntity() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (w *redisWriter) Write(p []byte) (int, error) {
	if w.done {
		return 0, errors.New("redis store: write after commit or abort")
	}
	n := len(p)
	w.size += int64(n)
	if w.near != nil {
		if _, err := w.near.Write(p); err != nil {
			w.near = nil // larger than the tier: Redis alone keeps it
		}
	}
	for len(p) > 0 {
		room := w.s.chunkSize - len(w.buf)
		k := min(room, len(p))
		w.buf = append(w.buf, p[:k]...)
		p = p[k:]
		if len(w.buf) == w.s.chunkSize && len(p) > 0 {
			if err := w.flushChunk(); err != nil {
				w.Abort()
				return 0, err
			}
		}
	}
	return n, nil
}

// flushChunk stores the buffered chunk under the entity, with a TTL that
// removes it should the entry never be committed.
func (w *redisWriter) flushChunk() error {
	c, err := w.s.cl()
	if err != nil {
		return err
	}
	if w.entity == "" {
		w.entity = newEntity()
	}
	ctx, cancel := w.s.opCtx(context.Background())
	defer cancel()
	k := w.s.chunkKey(w.entity, w.chunks)
	if err := w.s.observe(c.Do(ctx, c.B().Set().Key(k).Value(rueidis.BinaryString(w.buf)).Px(redisFillTTL).Build()).Error()); err != nil {
		return fmt.Errorf("redis store: SET chunk: %w", err)
	}
	w.chunks++
	w.buf = w.buf[:0]
	return nil
}

// commitScript switches the metadata key to the new value and indexes the
// tags, returning the value it replaced. KEYS: meta key, tag sets. ARGV:
// value, TTL in ms, cache key.
var commitScript = rueidis.NewLuaScript(`
local old = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local ttl = tonumber(ARGV[2])
for i = 2, #KEYS do
  redis.call('SADD', KEYS[i], ARGV[3])
  if redis.call('PTTL', KEYS[i]) < ttl then redis.call('PEXPIRE', KEYS[i], ttl) end
end
return old`)

func (w *redisWriter) Commit(ctx context.Context, meta *Meta) error {
	if w.done {
		return errors.New("redis store: commit after abort")
	}
	w.done = true
	m := *meta
	m.Key, m.Size = w.key, w.size
	if w.near != nil {
		// The copy is kept even when Redis fails now: it is only served
		// while Redis cannot answer, and dropped when Redis says the key
		// is absent.
		_ = w.near.Commit(ctx, &m)
	}
	c, err := w.s.cl()
	if err != nil {
		return err
	}
	v := &redisValue{meta: &m}
	if w.entity == "" {
		v.inline = w.buf
	} else {
		if len(w.buf) > 0 {
			if err := w.flushChunk(); err != nil {
				w.cleanup()
				return err
			}
		}
		v.entity, v.chunks = w.entity, w.chunks
	}
	return w.s.commit(ctx, c, w.key, v, nil)
}

// commit writes v as the entry of key, after giving its chunks their final
// TTL. With expect set, the switch happens only if the key still holds
// those bytes (an Update racing a new fill loses).
func (s *RedisStore) commit(ctx context.Context, c rueidis.Client, key string, v *redisValue, expect []byte) error {
	ttl := v.meta.retention(time.Now(), s.inactive)
	ctx, cancel := s.opCtx(ctx)
	defer cancel()
	if v.entity != "" {
		// retention is bounded well below the largest Duration, so the
		// grace does not wrap it: a negative PEXPIRE deletes the key.
		chunkTTL := int64((ttl + redisGrace) / time.Millisecond)
		cmds := make(rueidis.Commands, 0, v.chunks)
		for i := range v.chunks {
			cmds = append(cmds, c.B().Pexpire().Key(s.chunkKey(v.entity, i)).Milliseconds(chunkTTL).Build())
		}
		for _, r := range c.DoMulti(ctx, cmds...) {
			if err := s.observe(r.Error()); err != nil {
				return fmt.Errorf("redis store: PEXPIRE chunk: %w", err)
			}
		}
	}
	keys := make([]string, 0, 1+len(v.meta.Tags))
	keys = append(keys, s.metaKey(key))
	for _, t := range v.meta.Tags {
		keys = append(keys, s.tagKey(t))
	}
	value := rueidis.BinaryString(v.marshal())
	ttlMS := strconv.FormatInt(max(int64(ttl/time.Millisecond), 1), 10)
	if expect != nil {
		ok, err := updateScript.Exec(ctx, c, keys, []string{value, ttlMS, key, rueidis.BinaryString(expect)}).AsInt64()
		if s.observe(err) != nil {
			return fmt.Errorf("redis store: updating %s: %w", key, err)
		}
		if ok == 0 {
			return ErrNotFound // replaced meanwhile; the newer entry stands
		}
		return nil
	}
	old, err := commitScript.Exec(ctx, c, keys, []string{value, ttlMS, key}).AsBytes()
	if s.observe(err) != nil && !rueidis.IsRedisNil(err) {
		return fmt.Errorf("redis store: switching %s: %w", key, err)
	}
	if old != nil {
		if ov, err := s.parseValue(old); err == nil && ov.entity != "" && ov.entity != v.entity {
			s.expireChunks(ctx, c, ov)
		}
	}
	return nil
}

// expireChunks gives the chunks of a replaced entry the grace period.
func (s *RedisStore) expireChunks(ctx context.Context, c rueidis.Client, v *redisValue) {
	cmds := make(rueidis.Commands, 0, v.chunks)
	for i := range v.chunks {
		cmds = append(cmds, c.B().Pexpire().Key(s.chunkKey(v.entity, i)).Milliseconds(int64(redisGrace/time.Millisecond)).Build())
	}
	c.DoMulti(ctx, cmds...)
}

// cleanup deletes the chunks of an entry that will not be committed.
func (w *redisWriter) cleanup() {
	c, err := w.s.cl()
	if err != nil || w.entity == "" || w.chunks == 0 {
		return
	}
	keys := make([]string, w.chunks)
	for i := range keys {
		keys[i] = w.s.chunkKey(w.entity, i)
	}
	ctx, cancel := w.s.opCtx(context.Background())
	defer cancel()
	c.Do(ctx, c.B().Del().Key(keys...).Build())
}

func (w *redisWriter) Abort() {
	if w.done {
		return
	}
	w.done = true
	if w.near != nil {
		w.near.Abort()
	}
	w.cleanup()
}

// updateScript replaces the metadata only if the key still holds the
// bytes the update was computed from, and indexes the tags. KEYS: meta
// key, tag sets. ARGV: value, TTL in ms, cache key, expected value.
var updateScript = rueidis.NewLuaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[4] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local ttl = tonumber(ARGV[2])
for i = 2, #KEYS do
  redis.call('SADD', KEYS[i], ARGV[3])
  if redis.call('PTTL', KEYS[i]) < ttl then redis.call('PEXPIRE', KEYS[i], ttl) end
end
return 1`)

func (s *RedisStore) Update(ctx context.Context, meta *Meta) error {
	if s.near != nil {
		_ = s.near.Update(ctx, meta)
	}
	c, err := s.cl()
	if err != nil {
		return err
	}
	gctx, cancel := s.opCtx(ctx)
	old, err := c.Do(gctx, c.B().Get().Key(s.metaKey(meta.Key)).Build()).AsBytes()
	cancel()
	if rueidis.IsRedisNil(s.observe(err)) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("redis store: GET: %w", err)
	}
	ov, err := s.parseValue(old)
	if err != nil {
		return err
	}
	m := *meta
	m.Size, m.BodyID = ov.meta.Size, ov.meta.BodyID
	nv := &redisValue{entity: ov.entity, chunks: ov.chunks, meta: &m, inline: ov.inline}
	return s.commit(ctx, c, meta.Key, nv, old)
}

// remove deletes the metadata keys and lets their chunks expire after the
// grace period; it returns how many entries existed.
func (s *RedisStore) remove(ctx context.Context, c rueidis.Client, keys []string) (int, error) {
	if len(keys) == 0 {
		return 0, nil
	}
	cmds := make(rueidis.Commands, 0, len(keys))
	for _, k := range keys {
		cmds = append(cmds, c.B().Getdel().Key(k).Build())
	}
	n := 0
	for _, r := range c.DoMulti(ctx, cmds...) {
		b, err := r.AsBytes()
		if rueidis.IsRedisNil(s.observe(err)) {
			continue
		}
		if err != nil {
			return n, fmt.Errorf("redis store: GETDEL: %w", err)
		}
		n++
		if v, err := s.parseValue(b); err == nil && v.entity != "" {
			s.expireChunks(ctx, c, v)
		}
	}
	return n, nil
}

func (s *RedisStore) Delete(ctx context.Context, key string) error {
	s.nearDelete(key)
	c, err := s.cl()
	if err != nil {
		return err
	}
	ctx, cancel := s.opCtx(ctx)
	defer cancel()
	_, err = s.remove(ctx, c, []string{s.metaKey(key)})
	return err
}

// PurgePrefix scans the metadata keys with SCAN MATCH; it is bounded by
// the size of the database, not by Timeout.
func (s *RedisStore) PurgePrefix(ctx context.Context, prefix string) (int, error) {
	if s.near != nil {
		_, _ = s.near.PurgePrefix(ctx, prefix)
	}
	c, err := s.cl()
	if err != nil {
		return 0, err
	}
	pattern := globEscape(s.metaKey(prefix)) + "*"
	total := 0
	var cursor uint64
	for {
		sctx, cancel := s.opCtx(ctx)
		e, err := c.Do(sctx, c.B().Scan().Cursor(cursor).Match(pattern).Count(1000).Build()).AsScanEntry()
		if err == nil {
			var n int
			n, err = s.remove(sctx, c, e.Elements)
			total += n
		}
		cancel()
		if err != nil {
			return total, fmt.Errorf("redis store: purging prefix: %w", err)
		}
		if cursor = e.Cursor; cursor == 0 {
			return total, nil
		}
	}
}

func (s *RedisStore) PurgeTag(ctx context.Context, tag string) (int, error) {
	if s.near != nil {
		_, _ = s.near.PurgeTag(ctx, tag)
	}
	c, err := s.cl()
	if err != nil {
		return 0, err
	}
	ctx, cancel := s.opCtx(ctx)
	defer cancel()
	members, err := c.Do(ctx, c.B().Smembers().Key(s.tagKey(tag)).Build()).AsStrSlice()
	if err != nil {
		return 0, fmt.Errorf("redis store: SMEMBERS: %w", err)
	}
	keys := make([]string, len(members))
	for i, m := range members {
		keys[i] = s.metaKey(m)
	}
	n, err := s.remove(ctx, c, keys)
	if err != nil {
		return n, err
	}
	if err := c.Do(ctx, c.B().Del().Key(s.tagKey(tag)).Build()).Error(); err != nil {
		return n, fmt.Errorf("redis store: DEL tag: %w", err)
	}
	return n, nil
}

// Generation reads the counter through rueidis' client-side cache: Redis
// pushes an invalidation when any instance bumps it, so a hit normally
// costs no round trip for it.
func (s *RedisStore) Generation(ctx context.Context) (uint64, error) {
	c, err := s.cl()
	if err != nil {
		return s.nearGeneration(err)
	}
	ctx, cancel := s.opCtx(ctx)
	defer cancel()
	res := c.DoCache(ctx, c.B().Get().Key(s.genKey()).Cache(), time.Minute)
	g, err := res.AsUint64()
	if !res.IsCacheHit() {
		// Only a round trip says whether Redis answers: the cached value
		// is there while Redis is paused too.
		s.observe(err)
	}
	if err != nil && !rueidis.IsRedisNil(err) {
		return s.nearGeneration(fmt.Errorf("redis store: reading generation: %w", err))
	}
	g = max(g, s.bumped.Load())
	if s.near != nil && g > s.lastGen.Load() {
		s.lastGen.Store(g)
	}
	return g, nil
}

// nearGeneration answers Generation while Redis cannot: with the last
// value it gave when a local tier can serve the lookup, else with cause.
func (s *RedisStore) nearGeneration(cause error) (uint64, error) {
	if s.near == nil {
		return 0, cause
	}
	return max(s.lastGen.Load(), s.bumped.Load()), nil
}

// nearDelete drops key from the local tier.
func (s *RedisStore) nearDelete(key string) {
	if s.near != nil {
		_ = s.near.Delete(context.Background(), key)
	}
}

func (s *RedisStore) BumpGeneration(ctx context.Context) (uint64, error) {
	c, err := s.cl()
	if err != nil {
		return 0, err
	}
	ctx, cancel := s.opCtx(ctx)
	defer cancel()
	g, err := c.Do(ctx, c.B().Incr().Key(s.genKey()).Build()).AsInt64()
	if s.observe(err) != nil {
		return 0, fmt.Errorf("redis store: INCR generation: %w", err)
	}
	for {
		cur := s.bumped.Load()
		if uint64(g) <= cur || s.bumped.CompareAndSwap(cur, uint64(g)) {
			break
		}
	}
	return uint64(g), nil
}

// Close stops the subscription, the lease renewals and the breaker's
// probe, and closes the connections. Fill locks still held are not
// released: like those of an instance that died, they lapse with their
// lease.
func (s *RedisStore) Close() error {
	s.rc.Close()
	if s.near != nil {
		return s.near.Close()
	}
	return nil
}
