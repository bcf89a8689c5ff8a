package static

import (
	"errors"
	"io/fs"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// OpenFileCache keeps the open descriptors and stat results of the files
// that FileServers serve, as NGINX's open_file_cache does, so that a hit
// costs no open, fstat or close. One cache may be shared by any number of
// FileServers (Options.OpenFileCache); entries are told apart by root
// directory and path. It is safe for concurrent use.
//
// A cached descriptor is shared by the requests that read it at the same
// time, so its file position is never used: bodies are read at offsets
// (pread). Entries older than the FileServer's OpenFileCacheValid are
// revalidated (see open), entries unused for inactive are dropped, and the
// least recently used goes when max are held.
type OpenFileCache struct {
	max      int
	inactive time.Duration
	now      func() time.Time // time.Now; tests move a clock of their own

	mu      sync.Mutex
	entries map[cacheKey]*cacheEntry
	// newest and oldest end the list of entries in the order of their last
	// use; inactive ones are found at the old end.
	newest, oldest *cacheEntry
	closed         bool
	// sweeper drops idle entries when no lookups come to do it, so that a
	// file removed since its last request does not keep its descriptor,
	// and its disk space, for as long as the server stays idle. It is
	// armed while the cache holds entries.
	sweeper *time.Timer
	armed   bool
}

// NewOpenFileCache returns a cache of at most max entries (max=N; below 1
// counts as 1) that drops entries unused for inactive (inactive=time;
// zero or less means NGINX's default, 60 seconds).
func NewOpenFileCache(max int, inactive time.Duration) *OpenFileCache {
	if max < 1 {
		max = 1
	}
	if inactive <= 0 {
		inactive = 60 * time.Second
	}
	return &OpenFileCache{max: max, inactive: inactive, now: time.Now, entries: map[cacheKey]*cacheEntry{}}
}

// Len returns the number of entries held.
func (c *OpenFileCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Close drops every entry and closes their descriptors once the requests
// reading them are done. A closed cache caches nothing: FileServers that
// use it open every file themselves.
func (c *OpenFileCache) Close() error {
	c.mu.Lock()
	var gone []*sharedFD
	for c.oldest != nil {
		gone = c.unlink(c.oldest, gone)
	}
	c.closed = true
	if c.sweeper != nil {
		c.sweeper.Stop()
	}
	c.mu.Unlock()
	for _, s := range gone {
		s.release()
	}
	return nil
}

type cacheKey struct {
	root rootID
	rel  string
}

type cacheEntry struct {
	key  cacheKey
	info fileInfo
	// err is a cached failure to open (open_file_cache_errors).
	err error
	// fd is nil when no descriptor is kept: for a directory, another kind
	// of file, or a file not yet used min_uses times.
	fd *sharedFD
	// trace, when traced, lets the entry be confirmed by name (see
	// identifier) instead of opening the path again.
	trace  pathTrace
	traced bool
	// untraceable marks, in a cache checked on every use, a path found
	// not to be checkable by name (info is what it named then): it is
	// opened for every request, and not traced again while it names the
	// same file.
	untraceable bool
	uses        int
	validated   time.Time // when the path was last opened or confirmed
	accessed    time.Time

	newer, older *cacheEntry
}

// sharedFD is a cached descriptor with its references: one held by the
// cache entry while the entry has it, and one by each request reading it.
// The last one to let go closes it, so that a descriptor dropped from the
// cache is never closed under a request still sending from it.
type sharedFD struct {
	d    descriptor
	refs atomic.Int32
	// formatted holds the validators of the file the descriptor was opened
	// on, formatted at their first use (see validators).
	formatted atomic.Pointer[validators]
}

func (s *sharedFD) release() {
	if s.refs.Add(-1) == 0 {
		s.d.Close()
	}
}

// cachePolicy is what a FileServer asks of the cache: NGINX's
// open_file_cache_valid, _min_uses and _errors, which belong to the
// location while max and inactive belong to the cache.
type cachePolicy struct {
	valid   time.Duration // < 0: revalidate on every use
	minUses int
	errors  bool
	// maxKept, when above 0, is the largest file whose descriptor is kept.
	// A kept descriptor cannot go to sendfile (see file.send): a larger
	// file would be opened again through /proc for each request, which
	// costs more than opening it by name.
	maxKept int64
}

// open opens rel below h's root, or, with wantFD false, only reports what
// it is; from the cache when it holds a fresh entry, else from the file
// system, caching the result.
//
// An entry past its valid time whose path was traced is checked with a
// stat of each component and kept if the path still resolves the same way
// to the same, unchanged file, as NGINX keeps a descriptor whose inode it
// finds again; any other entry is replaced by opening the path again.
func (c *OpenFileCache) open(h *FileServer, rel string, wantFD bool) (file, error) {
	key := cacheKey{root: h.rootID, rel: rel}
	now := c.now()
	uses := 1
	var check *cacheEntry // an entry to confirm against the path
	var kept file         // what check would give, held while it is checked
	var marked *fileInfo  // what an untraceable entry says the path named
	idr, canIdentify := h.op.(identifier)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return h.openDirect(rel, wantFD)
	}
	gone := c.expire(now, nil)
	if e := c.entries[key]; e != nil && now.Sub(e.accessed) > c.inactive {
		// Idle too long: gone, though expire had not reached it yet.
		gone = c.unlink(e, gone)
	} else if e != nil {
		e.uses++
		uses = e.uses
		e.accessed = now
		c.touch(e)
		fresh := now.Sub(e.validated) < h.policy.valid
		if e.untraceable {
			marked = &e.info
		}
		if fresh || canIdentify && e.traced {
			if f, ok, err := e.use(wantFD); ok && fresh {
				c.mu.Unlock()
				releaseAll(gone)
				return f, err
			} else if ok {
				check, kept = e, f
			}
		}
	}
	c.mu.Unlock()
	releaseAll(gone)

	if check != nil {
		if info, err := idr.identify(rel, &check.trace); err == nil && info == check.info {
			if h.policy.valid >= 0 {
				c.mu.Lock()
				check.validated = now
				c.mu.Unlock()
			}
			return kept, nil
		}
		kept.close()
	}

	// The path is opened without the lock held: a slow disk delays only
	// the requests for this file.
	f, err := h.openDirect(rel, wantFD)
	if f.d != nil && f.info.kind != kindRegular {
		// Only the stat result of a directory, FIFO or device is of use.
		f.d.Close()
		f.d = nil
	}
	cacheErr := err != nil && h.policy.errors && h.pathError(err)
	keepable := f.d != nil && (h.policy.maxKept <= 0 || f.info.size <= h.policy.maxKept)
	keep := keepable && uses >= h.policy.minUses
	var trace pathTrace
	tried, traced := false, false
	if err == nil && canIdentify && (keepable || f.d == nil) && (marked == nil || *marked != f.info) {
		tried = true
		trace, traced = idr.trace(rel, f.info)
	}

	c.mu.Lock()
	gone = nil
	switch {
	case c.closed:
	case err != nil && (!cacheErr || h.policy.valid < 0):
		// The entry no longer describes the path, or, checked on every
		// use, it would be of no use: a cached error is never fresh.
		if e := c.entries[key]; e != nil {
			gone = c.unlink(e, gone)
		}
	case tried && !traced && h.policy.valid < 0:
		gone = c.insert(&cacheEntry{key: key, info: f.info, untraceable: true,
			uses: uses, validated: now, accessed: now}, gone)
	case err == nil && !tried && h.policy.valid < 0:
		// A file too large to keep, or a path already marked untraceable:
		// an entry that still describes it stays; one of what the path
		// named before goes, with the descriptor it kept.
		if e := c.entries[key]; e != nil && (e.fd != nil || e.info != f.info) {
			gone = c.unlink(e, gone)
		}
	default:
		e := &cacheEntry{key: key, info: f.info, err: err, trace: trace, traced: traced,
			uses: uses, validated: now, accessed: now}
		if keep {
			e.fd = &sharedFD{d: f.d}
			e.fd.refs.Store(2) // the entry's and this request's
			f.shared = e.fd
		}
		gone = c.insert(e, gone)
	}
	c.mu.Unlock()
	releaseAll(gone)
	return f, err
}

// use answers from a fresh entry, if it can: not when the caller needs a
// descriptor for a regular file and none is kept.
func (e *cacheEntry) use(wantFD bool) (f file, ok bool, err error) {
	switch {
	case e.err != nil:
		return file{}, true, e.err
	case !wantFD || e.info.kind != kindRegular:
		return file{info: e.info}, true, nil
	case e.fd != nil:
		e.fd.refs.Add(1)
		return file{info: e.info, d: e.fd.d, shared: e.fd}, true, nil
	}
	return file{}, false, nil
}

// insert adds e, in place of the entry for the same path if there is one,
// making room first when the cache is full. It appends the descriptors
// given up to gone.
func (c *OpenFileCache) insert(e *cacheEntry, gone []*sharedFD) []*sharedFD {
	if old := c.entries[e.key]; old != nil {
		gone = c.unlink(old, gone)
	} else if len(c.entries) >= c.max {
		gone = c.unlink(c.oldest, gone)
	}
	c.entries[e.key] = e
	e.older = c.newest
	if c.newest != nil {
		c.newest.newer = e
	}
	c.newest = e
	if c.oldest == nil {
		c.oldest = e
	}
	if !c.armed {
		c.armed = true
		if c.sweeper == nil {
			c.sweeper = time.AfterFunc(c.inactive, c.sweep)
		} else {
			c.sweeper.Reset(c.inactive)
		}
	}
	return gone
}

// sweep drops the entries idle for longer than inactive, and comes back
// when the oldest left would be.
func (c *OpenFileCache) sweep() {
	c.mu.Lock()
	now := c.now()
	var gone []*sharedFD
	for c.oldest != nil && now.Sub(c.oldest.accessed) > c.inactive {
		gone = c.unlink(c.oldest, gone)
	}
	c.armed = c.oldest != nil && !c.closed
	if c.armed {
		c.sweeper.Reset(c.inactive - now.Sub(c.oldest.accessed) + time.Millisecond)
	}
	c.mu.Unlock()
	releaseAll(gone)
}

// expire drops entries unused for longer than inactive, at most two a
// call, as NGINX does: a cache in use sheds its idle entries as it goes.
func (c *OpenFileCache) expire(now time.Time, gone []*sharedFD) []*sharedFD {
	for range 2 {
		e := c.oldest
		if e == nil || now.Sub(e.accessed) <= c.inactive {
			break
		}
		gone = c.unlink(e, gone)
	}
	return gone
}

// touch moves e to the new end of the list.
func (c *OpenFileCache) touch(e *cacheEntry) {
	if c.newest == e {
		return
	}
	c.detach(e)
	e.older = c.newest
	c.newest.newer = e
	c.newest = e
}

// unlink removes e from the cache and appends its descriptor, if it kept
// one, to gone: the caller releases them once the lock is let go.
func (c *OpenFileCache) unlink(e *cacheEntry, gone []*sharedFD) []*sharedFD {
	c.detach(e)
	delete(c.entries, e.key)
	if e.fd != nil {
		gone = append(gone, e.fd)
		e.fd = nil
	}
	return gone
}

func (c *OpenFileCache) detach(e *cacheEntry) {
	if e.newer != nil {
		e.newer.older = e.older
	} else {
		c.newest = e.older
	}
	if e.older != nil {
		e.older.newer = e.newer
	} else {
		c.oldest = e.newer
	}
	e.newer, e.older = nil, nil
}

func releaseAll(gone []*sharedFD) {
	for _, s := range gone {
		s.release()
	}
}

// pathError tells the failures that describe the path (missing, refused,
// a link loop or a link out of the root), which open_file_cache_errors
// caches, from passing trouble such as running out of descriptors, which
// it must not.
func (h *FileServer) pathError(err error) bool {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return errors.Is(err, fs.ErrNotExist) || errors.Is(err, h.escapes)
	}
	switch errno {
	case syscall.ENOENT, syscall.ENOTDIR, syscall.ENAMETOOLONG, syscall.EACCES, syscall.EPERM,
		syscall.ELOOP, syscall.EXDEV:
		return true
	}
	return false
}
