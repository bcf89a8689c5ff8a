package accesslog

import (
	"container/list"
	"io"
	"os"
	"sync"
	"time"
)

// FileCache keeps open the files of logs whose names have variables, as
// NGINX's open_log_file_cache: without it, such a log's file is opened
// and closed for every line. A file is kept once it has been used MinUses
// times within Inactive, closed after Inactive without a line, and looked
// up again by name every Valid, so that one a rotation moved away is
// reopened; at most Max stay open, the least recently used going first.
type FileCache struct {
	Max      int
	Inactive time.Duration
	MinUses  int
	Valid    time.Duration

	mu      sync.Mutex
	entries map[string]*list.Element // of *cachedFile, newest first
	order   list.List
	// closed: the configuration is retired; a line of a request still
	// running opens and closes its file, so that nothing stays open.
	closed bool
}

type cachedFile struct {
	path    string
	f       *os.File // nil until kept
	info    os.FileInfo
	uses    int
	last    time.Time // the last line
	checked time.Time // the last look at the name
	refs    int       // lines being written through f
	dropped bool      // out of the cache: close when refs falls to 0
}

// Open returns the destination of one line to the file at path, through
// the cache; open opens the file when it must be. Close the result after
// the line.
func (c *FileCache) Open(path string, open func(string) (*os.File, error)) (io.WriteCloser, error) {
	now := time.Now()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return open(path)
	}
	c.expire(now)
	e := c.entry(path)
	if e.f != nil && now.Sub(e.checked) >= c.Valid {
		// The name may point elsewhere now (a rotation renamed the file,
		// or removed it): keep the file only while it still is the same.
		e.checked = now
		if fi, err := os.Stat(path); err != nil || !os.SameFile(fi, e.info) {
			c.drop(e)
			e = c.entry(path)
		}
	}
	if now.Sub(e.last) > c.Inactive {
		e.uses = 0
	}
	e.uses++
	e.last = now
	if e.f != nil {
		e.refs++
		c.mu.Unlock()
		return &cachedLine{c: c, e: e}, nil
	}
	keep := e.uses >= c.MinUses
	c.mu.Unlock()
	f, err := open(path)
	if err != nil || !keep {
		return f, err
	}
	fi, err := f.Stat()
	if err != nil {
		return f, nil // written to and closed as an uncached file
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.dropped || e.f != nil {
		return f, nil // another line kept one meanwhile
	}
	e.f, e.info, e.checked = f, fi, now
	e.refs++
	return &cachedLine{c: c, e: e}, nil
}

// entry returns path's entry, made if need be, as the newest.
func (c *FileCache) entry(path string) *cachedFile {
	if c.entries == nil {
		c.entries = map[string]*list.Element{}
	}
	if el, ok := c.entries[path]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*cachedFile)
	}
	e := &cachedFile{path: path}
	c.entries[path] = c.order.PushFront(e)
	for c.order.Len() > c.Max {
		c.drop(c.order.Back().Value.(*cachedFile))
	}
	return e
}

// expire drops the entries unused for longer than Inactive (the oldest
// are at the back).
func (c *FileCache) expire(now time.Time) {
	for el := c.order.Back(); el != nil; el = c.order.Back() {
		e := el.Value.(*cachedFile)
		if now.Sub(e.last) <= c.Inactive {
			return
		}
		c.drop(e)
	}
}

// drop takes e out of the cache, closing its file unless a line is being
// written through it (the last one closes it then).
func (c *FileCache) drop(e *cachedFile) {
	if el, ok := c.entries[e.path]; ok && el.Value == e {
		delete(c.entries, e.path)
		c.order.Remove(el)
	}
	e.dropped = true
	if e.f != nil && e.refs == 0 {
		_ = e.f.Close()
		e.f = nil
	}
}

// Close closes every file kept: on the signal that asks for the logs to
// be reopened after a rotation (the cache goes on), and when the
// configuration is retired (Retire).
func (c *FileCache) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.order.Front(); el != nil; el = c.order.Front() {
		c.drop(el.Value.(*cachedFile))
	}
}

// cachedLine writes one line to a kept file.
type cachedLine struct {
	c *FileCache
	e *cachedFile
}

func (l *cachedLine) Write(p []byte) (int, error) { return l.e.f.Write(p) }

func (l *cachedLine) Close() error {
	l.c.mu.Lock()
	defer l.c.mu.Unlock()
	l.e.refs--
	if l.e.dropped && l.e.refs == 0 && l.e.f != nil {
		err := l.e.f.Close()
		l.e.f = nil
		return err
	}
	return nil
}

// Retire closes every file kept and keeps none from then on: the lines
// of requests that outlive their configuration open and close their
// files.
func (c *FileCache) Retire() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.Close()
}
