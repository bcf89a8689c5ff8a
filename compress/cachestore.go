package compress

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/maypok86/otter/v2"
)

// DefaultBodyCacheSize is compress_cache_size's default.
const DefaultBodyCacheSize = 64 << 20

// MaxCachedBody is the largest original body whose compressed form is
// kept: a larger one would push many small assets out of the store for a
// single entry, and is rarely requested often enough to pay back.
const MaxCachedBody = 8 << 20

// entryOverhead approximates what an entry costs beside its key and body
// (the node, the slice header, the policy's bookkeeping), so that many
// tiny bodies cannot exceed the bound by far.
const entryOverhead = 128

// BodyCache keeps compressed bodies of fixed objects (compress_cache): a
// response identified by a strong ETag, or by Last-Modified and
// Content-Length, is compressed once per coding, level and window and
// later clients get a copy. It is bounded in bytes; the entries least
// worth keeping go first. Safe for concurrent use.
type BodyCache struct {
	entries      *otter.Cache[string, *cachedBody]
	hits, misses atomic.Int64
}

// cachedBody is one compressed body and the length of the original, for
// the $*_ratio variables.
type cachedBody struct {
	data []byte
	in   int64
}

// BodyCacheStats counts what a BodyCache holds and how it was used.
type BodyCacheStats struct {
	Entries int    // bodies held
	Bytes   uint64 // their weight: bodies, keys and overhead
	Hits    int64  // responses served from the store
	Misses  int64  // responses compressed because the store had no body
}

// NewBodyCache returns a store that holds at most maxBytes of compressed
// bodies (keys and overhead included).
func NewBodyCache(maxBytes int64) (*BodyCache, error) {
	if maxBytes < 1 {
		return nil, fmt.Errorf("compress: body cache size %d: it must be positive", maxBytes)
	}
	entries, err := otter.New(&otter.Options[string, *cachedBody]{
		MaximumWeight: uint64(maxBytes),
		Weigher: func(k string, v *cachedBody) uint32 {
			return uint32(len(k) + cap(v.data) + entryOverhead)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("compress: body cache: %w", err)
	}
	return &BodyCache{entries: entries}, nil
}

// Stats returns the store's counters. Evictions run in the background, so
// Bytes may exceed the bound for a moment after a burst of stores.
func (c *BodyCache) Stats() BodyCacheStats {
	return BodyCacheStats{
		Entries: c.entries.EstimatedSize(),
		Bytes:   c.entries.WeightedSize(),
		Hits:    c.hits.Load(),
		Misses:  c.misses.Load(),
	}
}

// settle runs pending evictions now; tests use it to read a settled size.
func (c *BodyCache) settle() { c.entries.CleanUp() }

func (c *BodyCache) get(key string) (*cachedBody, bool) {
	b, ok := c.entries.GetIfPresent(key)
	if ok {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return b, ok
}

func (c *BodyCache) put(key string, b *cachedBody) { c.entries.Set(key, b) }

// bodyCacheKey names a compressed body: the object (the handler that
// served it, host, URI and its validator) and everything that changes the
// compressed bytes (coding, level, window). An object that changes gets a
// new validator, so its old bodies are never found again and age out of
// the store.
func bodyCacheKey(scope uint64, host, uri, validator string, e Encoding, level, window int) string {
	var b strings.Builder
	b.Grow(len(host) + len(uri) + len(validator) + 36)
	var n [20]byte
	b.Write(strconv.AppendUint(n[:0], scope, 10)) // no string made on each lookup
	b.WriteByte(0)
	b.WriteString(host)
	b.WriteByte(0)
	b.WriteString(uri)
	b.WriteByte(0)
	b.WriteString(validator)
	b.WriteByte(0)
	b.WriteString(e.String())
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(level))
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(window))
	return b.String()
}
