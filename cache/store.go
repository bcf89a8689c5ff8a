package cache

import (
	"context"
	"errors"
	"io"
	"time"
)

// ErrNotFound is returned by Store.Get and Store.Update for a key that holds
// no entry.
var ErrNotFound = errors.New("cache: entry not found")

// ErrCorrupt wraps the errors of a stored entry whose bytes fail their length
// or checksum test. The store drops such an entry; the handler never serves
// it.
var ErrCorrupt = errors.New("cache: corrupt entry")

// Store is where a cache zone keeps its entries: NGINX's keys_zone together
// with the files of proxy_cache_path. The memory, disk and Redis stores of
// this package implement it, and so may any Go type. Every method must be
// safe for concurrent use.
//
// Keys are opaque strings; variant keys of a Vary response begin with the
// key of their resource, which is what lets PurgePrefix reach them.
type Store interface {
	// Get returns the entry under key, or ErrNotFound. The caller closes the
	// Object when it has written the body.
	Get(ctx context.Context, key string) (Object, error)
	// Put starts a new entry under key. Nothing becomes visible to Get until
	// the Writer's Commit succeeds; readers of an entry being replaced keep
	// reading the old one.
	Put(ctx context.Context, key string) (Writer, error)
	// Update replaces the metadata of the entry under meta.Key and keeps its
	// body, as a revalidation that got 304 Not Modified needs.
	Update(ctx context.Context, meta *Meta) error
	// Delete removes the entry under key; a missing key is no error.
	Delete(ctx context.Context, key string) error
	// PurgePrefix removes every entry whose key begins with prefix and
	// reports how many it removed.
	PurgePrefix(ctx context.Context, prefix string) (int, error)
	// PurgeTag removes every entry whose Meta.Tags holds tag.
	PurgeTag(ctx context.Context, tag string) (int, error)
	// Generation returns the zone's generation counter. An entry whose
	// Meta.Generation is below it counts as absent; this is how everything
	// is purged at once without a scan.
	Generation(ctx context.Context) (uint64, error)
	// BumpGeneration increments the generation counter and returns the new
	// value.
	BumpGeneration(ctx context.Context) (uint64, error)
	// TryLock takes the fill lock of key for at most ttl (proxy_cache_lock_age)
	// without waiting. ok is false when someone else, possibly in another
	// process, holds it. release gives the lock back early.
	TryLock(ctx context.Context, key string, ttl time.Duration) (release func(), ok bool, err error)
	// Wait returns once the fill lock of key is released or has expired, at
	// once when nobody holds it, or with ctx's error.
	Wait(ctx context.Context, key string) error
	// Close releases the store's resources.
	Close() error
}

// Object is one stored entry as Get returns it.
type Object interface {
	// Meta is the entry's metadata; callers must not modify it.
	Meta() *Meta
	// WriteTo writes the body to w. An error that wraps ErrCorrupt means the
	// stored bytes were found broken on the way.
	WriteTo(w io.Writer) (int64, error)
	// Close releases what Get acquired (a file, a buffer).
	Close() error
}

// Writer receives the body of a new entry.
type Writer interface {
	io.Writer
	// Commit stores meta with the body written so far and makes the entry
	// visible atomically. meta.Key is the key given to Put.
	Commit(ctx context.Context, meta *Meta) error
	// Abort discards the entry; nothing of it is ever visible. Calling Abort
	// after Commit is a no-op.
	Abort()
}

// maxRetention bounds the part of an entry's retention that its
// freshness and stale windows make (and, separately, inactive): a year,
// the farthest Expires RFC 2616 (section 14.21) let an origin send.
// Longer lifetimes ("Expires: ... 9999", max-age=99999999999) mean
// "forever" to the origin; they are near the largest Duration, where
// adding a stale window or inactive wrapped to a negative TTL and Redis
// dropped the entry at once. Past the bound the entry is dropped and
// filled again on its next request.
const maxRetention = 365 * 24 * time.Hour

// maxInactive bounds inactive in retention only so that the sums cannot
// wrap: a configured inactive, unlike an origin's lifetime, is meant as
// given, however long.
const maxInactive = 100 * 365 * 24 * time.Hour

// retention is how long a store that cannot count reads (Redis) keeps an
// entry written now: while its freshness and stale windows last, plus
// inactive, so that an expired entry can still be revalidated or served
// stale. It is at most maxRetention+maxInactive, so that a store may add
// a grace period to it without overflow.
func (m *Meta) retention(now time.Time, inactive time.Duration) time.Duration {
	// Sub saturates for a FreshUntil centuries away; addSat keeps a
	// stale window of delta-seconds' maximum from wrapping on top of it.
	d := addSat(m.FreshUntil.Sub(now), max(m.StaleWhileRevalidate, m.StaleIfError))
	return min(max(d, 0), maxRetention) + min(inactive, maxInactive)
}
