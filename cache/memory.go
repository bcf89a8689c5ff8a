package cache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"
)

// MemoryOptions configure NewMemoryStore.
type MemoryOptions struct {
	// MaxSize bounds the bytes held (bodies plus an estimate of the
	// metadata); the least valuable entries, by W-TinyLFU, go first. 0
	// means 256 MiB.
	MaxSize int64
	// Inactive drops an entry not read for this long, fresh or not
	// (proxy_cache_path inactive=). 0 means 10 minutes.
	Inactive time.Duration
	// ChunkSize is the size of the blocks a body is kept in. 0 means 16 KiB.
	ChunkSize int
}

// Defaults of the memory and disk stores.
const (
	DefaultMaxSize   = 256 << 20
	DefaultInactive  = 10 * time.Minute
	DefaultChunkSize = 16 << 10
)

// MemoryStore keeps entries in process memory, bounded by bytes. Bodies
// are held in fixed-size chunks, so that a large response neither needs
// one huge allocation nor copies while it grows.
type MemoryStore struct {
	entries   *otter.Cache[string, *memEntry]
	maxSize   int64
	inactive  time.Duration
	chunkSize int
	gen       atomic.Uint64
	locks     *lockTable
	// filling is the bytes held by writers not yet committed, which the
	// cache's weight does not count: bounded by maxSize too, so that many
	// concurrent fills of large responses (distinct keys a client makes
	// up, an origin's large bodies) cannot hold memory without limit.
	filling atomic.Int64

	mu   sync.Mutex
	tags map[string]map[string]*memEntry // tag -> key -> entry carrying it
}

// memEntry is immutable once stored, which is what lets a hit write it
// out without copying or locking.
type memEntry struct {
	meta   *Meta
	chunks [][]byte
}

func (e *memEntry) Meta() *Meta  { return e.meta }
func (e *memEntry) Close() error { return nil }

func (e *memEntry) WriteTo(w io.Writer) (int64, error) {
	if rf, ok := w.(io.ReaderFrom); ok && len(e.chunks) > 1 {
		// A writer that takes vectors (mosaic's own server) sends every
		// chunk in one writev, without copying them.
		bufs := net.Buffers(slices.Clone(e.chunks))
		return rf.ReadFrom(&bufs)
	}
	var n int64
	for _, c := range e.chunks {
		k, err := w.Write(c)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// weight estimates an entry's memory: body, header strings and a fixed
// overhead for the structures around them.
func (e *memEntry) weight() uint32 {
	n := e.meta.Size + int64(len(e.meta.Key)) + 256
	for k, vv := range e.meta.Header {
		n += int64(len(k)) + 16
		for _, v := range vv {
			n += int64(len(v)) + 16
		}
	}
	for _, name := range e.meta.Spell {
		n += int64(len(name)) + 16
	}
	return uint32(min(n, math.MaxUint32))
}

// NewMemoryStore returns an empty memory store.
func NewMemoryStore(opts MemoryOptions) (*MemoryStore, error) {
	s := &MemoryStore{
		maxSize: opts.MaxSize, inactive: opts.Inactive, chunkSize: opts.ChunkSize,
		locks: newLockTable(), tags: make(map[string]map[string]*memEntry),
	}
	if s.maxSize <= 0 {
		s.maxSize = DefaultMaxSize
	}
	if s.inactive <= 0 {
		s.inactive = DefaultInactive
	}
	if s.chunkSize <= 0 {
		s.chunkSize = DefaultChunkSize
	}
	var err error
	s.entries, err = otter.New(&otter.Options[string, *memEntry]{
		MaximumWeight: uint64(s.maxSize),
		Weigher:       func(_ string, e *memEntry) uint32 { return e.weight() },
		// As in NGINX, an entry lives until it has not been read for
		// Inactive, fresh or not: an expired one can still be revalidated
		// or served stale.
		ExpiryCalculator: otter.ExpiryAccessing[string, *memEntry](s.inactive),
		OnDeletion:       s.untag,
	})
	if err != nil {
		return nil, fmt.Errorf("memory store: %w", err)
	}
	return s, nil
}

func (s *MemoryStore) Get(_ context.Context, key string) (Object, error) {
	e, ok := s.entries.GetIfPresent(key)
	if !ok {
		return nil, ErrNotFound
	}
	return e, nil
}

func (s *MemoryStore) Put(_ context.Context, key string) (Writer, error) {
	return &memWriter{s: s, key: key}, nil
}

func (s *MemoryStore) Update(_ context.Context, meta *Meta) error {
	var found bool
	var stored *memEntry
	s.entries.ComputeIfPresent(meta.Key, func(old *memEntry) (*memEntry, otter.ComputeOp) {
		found = true
		m := *meta
		m.Size, m.BodyID = old.meta.Size, old.meta.BodyID
		stored = &memEntry{meta: &m, chunks: old.chunks}
		return stored, otter.WriteOp
	})
	if !found {
		return ErrNotFound
	}
	s.tag(meta.Key, stored)
	return nil
}

func (s *MemoryStore) Delete(_ context.Context, key string) error {
	s.entries.Invalidate(key)
	return nil
}

// PurgePrefix walks every key: the memory store has no ordered index.
func (s *MemoryStore) PurgePrefix(_ context.Context, prefix string) (int, error) {
	var keys []string
	for k := range s.entries.Keys() {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	n := 0
	for _, k := range keys {
		if _, ok := s.entries.Invalidate(k); ok {
			n++
		}
	}
	return n, nil
}

func (s *MemoryStore) PurgeTag(_ context.Context, tag string) (int, error) {
	s.mu.Lock()
	keys := make([]string, 0, len(s.tags[tag]))
	for k := range s.tags[tag] {
		keys = append(keys, k)
	}
	s.mu.Unlock()
	n := 0
	for _, k := range keys {
		if _, ok := s.entries.Invalidate(k); ok {
			n++
		}
	}
	return n, nil
}

func (s *MemoryStore) Generation(context.Context) (uint64, error) { return s.gen.Load(), nil }

func (s *MemoryStore) BumpGeneration(context.Context) (uint64, error) {
	g := s.gen.Add(1)
	// The old entries can no longer be served; let their memory go now
	// rather than when they are evicted.
	s.entries.InvalidateAll()
	return g, nil
}

func (s *MemoryStore) TryLock(_ context.Context, key string, ttl time.Duration) (func(), bool, error) {
	release, ok := s.locks.tryLock(key, ttl)
	return release, ok, nil
}

func (s *MemoryStore) Wait(ctx context.Context, key string) error { return s.locks.wait(ctx, key) }

func (s *MemoryStore) Close() error {
	s.entries.StopAllGoroutines()
	return nil
}

// Len is the number of entries held, for tests and metrics.
func (s *MemoryStore) Len() int { return s.entries.EstimatedSize() }

// tag indexes e under its tags.
func (s *MemoryStore) tag(key string, e *memEntry) {
	if len(e.meta.Tags) == 0 {
		return
	}
	s.mu.Lock()
	for _, t := range e.meta.Tags {
		m := s.tags[t]
		if m == nil {
			m = make(map[string]*memEntry)
			s.tags[t] = m
		}
		m[key] = e
	}
	s.mu.Unlock()
}

// untag drops a deleted entry from the tag index, unless the key already
// holds a newer entry (deletion events arrive after the replacement).
func (s *MemoryStore) untag(ev otter.DeletionEvent[string, *memEntry]) {
	if len(ev.Value.meta.Tags) == 0 {
		return
	}
	s.mu.Lock()
	for _, t := range ev.Value.meta.Tags {
		if m := s.tags[t]; m != nil && m[ev.Key] == ev.Value {
			delete(m, ev.Key)
			if len(m) == 0 {
				delete(s.tags, t)
			}
		}
	}
	s.mu.Unlock()
}

var (
	errTooLarge   = errors.New("response larger than the store")
	errFillsLarge = errors.New("responses being stored fill the store's size")
)

// memWriter collects a body in chunks.
type memWriter struct {
	s      *MemoryStore
	key    string
	chunks [][]byte
	size   int64 // also what the writer counts in s.filling
	done   bool
}

func (w *memWriter) Write(p []byte) (int, error) {
	if w.done {
		return 0, errors.New("memory store: write after commit or abort")
	}
	w.size += int64(len(p))
	filling := w.s.filling.Add(int64(len(p)))
	switch {
	case w.size > w.s.maxSize:
		w.Abort()
		return 0, errTooLarge
	case filling > w.s.maxSize:
		w.Abort()
		return 0, errFillsLarge
	}
	n := len(p)
	for len(p) > 0 {
		last := len(w.chunks) - 1
		if last < 0 || len(w.chunks[last]) == cap(w.chunks[last]) {
			w.chunks = append(w.chunks, make([]byte, 0, w.s.chunkSize))
			last++
		}
		c := w.chunks[last]
		k := copy(c[len(c):cap(c)], p)
		w.chunks[last] = c[:len(c)+k]
		p = p[k:]
	}
	return n, nil
}

func (w *memWriter) Commit(_ context.Context, meta *Meta) error {
	if w.done {
		return errors.New("memory store: commit after abort")
	}
	w.done = true
	w.s.filling.Add(-w.size) // from now on the cache's weight counts it
	// A short last chunk is copied to its size, so that small bodies do
	// not hold a whole chunk each.
	if last := len(w.chunks) - 1; last >= 0 && len(w.chunks[last]) < cap(w.chunks[last])/2 {
		short := make([]byte, len(w.chunks[last]))
		copy(short, w.chunks[last])
		w.chunks[last] = short
	}
	m := *meta
	m.Size = w.size
	e := &memEntry{meta: &m, chunks: w.chunks}
	w.s.entries.Set(w.key, e)
	w.s.tag(w.key, e)
	return nil
}

func (w *memWriter) Abort() {
	if !w.done {
		w.s.filling.Add(-w.size)
	}
	w.done = true
	w.chunks = nil
}
