package cache

import (
	"bufio"
	"container/list"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DiskOptions configure NewDiskStore; the fields are proxy_cache_path's
// parameters.
type DiskOptions struct {
	// MaxSize bounds the bytes of all entry files (max_size=); the least
	// recently used go first. 0 means no bound.
	MaxSize int64
	// Inactive drops an entry not read for this long (inactive=). 0 means
	// 10 minutes.
	Inactive time.Duration
	// Levels is the directory hierarchy (levels=1:2 is []int{1, 2}): each
	// level names a subdirectory by that many hex digits taken from the end
	// of the key's MD5, as NGINX does. nil puts every file in dir.
	Levels []int
	// Logger receives what the loader and the sweeper drop; nil means
	// slog.Default().
	Logger *slog.Logger
}

// DiskStore keeps entries in files under a directory and finds them again
// after a restart. A file is written under dir/tmp and renamed into place
// only when complete, so a crash never leaves a half entry where a reader
// looks; a file whose length or checksums are wrong is deleted, not
// served. The index of entries (NGINX's keys_zone) is in memory, rebuilt
// from the files' headers by NewDiskStore.
type DiskStore struct {
	dir, tmp string
	maxSize  int64
	inactive time.Duration
	levels   []int
	log      *slog.Logger
	locks    *lockTable

	mu    sync.Mutex
	items map[string]*diskItem
	lru   *list.List // front: most recently used
	total int64
	tags  map[string]map[string]struct{}
	gen   uint64

	stop chan struct{}
	done chan struct{}
}

// diskItem is the in-memory index record of one entry file.
type diskItem struct {
	key     string
	path    string
	hdr     diskHeader
	meta    *Meta // decoded once, at load or commit
	lastUse time.Time
	elem    *list.Element
}

// smallBody is the largest body that a hit reads and checks whole before
// anything is sent; larger ones are checked as they stream.
const smallBody = 64 << 10

var diskBufPool = sync.Pool{New: func() any { b := make([]byte, smallBody); return &b }}

// NewDiskStore opens (creating when needed) the store in dir, loads the
// index from the entry files found there, deleting broken ones and
// leftover temporary files, and starts the sweeper of inactive entries.
func NewDiskStore(dir string, opts DiskOptions) (*DiskStore, error) {
	for _, l := range opts.Levels {
		if l < 1 || l > 2 {
			return nil, fmt.Errorf("disk store: levels must be 1 or 2 digits, got %d", l)
		}
	}
	if len(opts.Levels) > 3 {
		return nil, errors.New("disk store: at most 3 levels")
	}
	s := &DiskStore{
		dir: dir, tmp: filepath.Join(dir, "tmp"),
		maxSize: opts.MaxSize, inactive: opts.Inactive, levels: opts.Levels, log: opts.Logger,
		locks: newLockTable(), items: make(map[string]*diskItem), lru: list.New(),
		tags: make(map[string]map[string]struct{}),
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	if s.inactive <= 0 {
		s.inactive = DefaultInactive
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if err := os.MkdirAll(s.tmp, 0o755); err != nil {
		return nil, fmt.Errorf("disk store: %w", err)
	}
	if err := s.load(); err != nil {
		return nil, fmt.Errorf("disk store: loading %s: %w", dir, err)
	}
	go s.sweep()
	return s, nil
}

// path is where key's file lives: the MD5 of the key in hex, below the
// level directories.
func (s *DiskStore) path(key string) string {
	sum := md5.Sum([]byte(key))
	name := hex.EncodeToString(sum[:])
	parts := make([]string, 0, len(s.levels)+2)
	parts = append(parts, s.dir)
	end := len(name)
	for _, l := range s.levels {
		parts = append(parts, name[end-l:end])
		end -= l
	}
	return filepath.Join(append(parts, name)...)
}

const generationFile = "generation"

// load rebuilds the index from the directory.
func (s *DiskStore) load() error {
	if b, err := os.ReadFile(filepath.Join(s.dir, generationFile)); err == nil {
		if g, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil {
			s.gen = g
		}
	}
	// Whatever is in tmp was being written when the process stopped.
	if ents, err := os.ReadDir(s.tmp); err == nil {
		for _, e := range ents {
			_ = os.Remove(filepath.Join(s.tmp, e.Name()))
		}
	}
	return filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == s.tmp {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Dir(p) == s.dir && d.Name() == generationFile {
			return nil
		}
		it, err := s.readItem(p)
		if err != nil {
			s.log.Warn("cache disk store: dropping unreadable entry file", "path", p, "error", err)
			_ = os.Remove(p)
			return nil
		}
		if old, ok := s.items[it.key]; ok {
			s.removeLocked(old)
		}
		s.addLocked(it)
		return nil
	})
}

// readItem reads the header and metadata of an entry file.
func (s *DiskStore) readItem(p string) (*diskItem, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var hb [diskHeaderSize]byte
	if _, err := f.ReadAt(hb[:], 0); err != nil {
		return nil, fmt.Errorf("reading header: %w: %w", ErrCorrupt, err)
	}
	hdr, err := parseDiskHeader(hb[:])
	if err != nil {
		return nil, err
	}
	if fi.Size() != hdr.fileSize() {
		return nil, fmt.Errorf("file is %d bytes, header says %d: %w", fi.Size(), hdr.fileSize(), ErrCorrupt)
	}
	mb := make([]byte, hdr.metaLen)
	if _, err := f.ReadAt(mb, diskHeaderSize+hdr.bodyLen); err != nil {
		return nil, fmt.Errorf("reading metadata: %w: %w", ErrCorrupt, err)
	}
	if crc32.Checksum(mb, castagnoli) != hdr.metaCRC {
		return nil, fmt.Errorf("metadata: %w: %w", errChecksum, ErrCorrupt)
	}
	m := new(Meta)
	if err := m.UnmarshalBinary(mb); err != nil {
		return nil, err
	}
	if s.path(m.Key) != p {
		return nil, fmt.Errorf("file name does not match its key: %w", ErrCorrupt)
	}
	m.Size = hdr.bodyLen
	return &diskItem{key: m.Key, path: p, hdr: hdr, meta: m, lastUse: fi.ModTime()}, nil
}

func (s *DiskStore) addLocked(it *diskItem) {
	s.items[it.key] = it
	it.elem = s.lru.PushFront(it)
	s.total += it.hdr.fileSize()
	for _, t := range it.meta.Tags {
		m := s.tags[t]
		if m == nil {
			m = make(map[string]struct{})
			s.tags[t] = m
		}
		m[it.key] = struct{}{}
	}
}

// removeLocked drops it from the index; the caller deals with the file.
func (s *DiskStore) removeLocked(it *diskItem) {
	if s.items[it.key] != it {
		return
	}
	delete(s.items, it.key)
	s.lru.Remove(it.elem)
	s.total -= it.hdr.fileSize()
	for _, t := range it.meta.Tags {
		if m := s.tags[t]; m != nil {
			delete(m, it.key)
			if len(m) == 0 {
				delete(s.tags, t)
			}
		}
	}
}

// drop removes an entry and its file.
func (s *DiskStore) drop(it *diskItem) {
	s.mu.Lock()
	if s.items[it.key] == it {
		s.removeLocked(it)
		_ = os.Remove(it.path)
	}
	s.mu.Unlock()
}

func (s *DiskStore) Get(_ context.Context, key string) (Object, error) {
	now := time.Now()
	s.mu.Lock()
	it, ok := s.items[key]
	if ok {
		it.lastUse = now
		s.lru.MoveToFront(it.elem)
	}
	s.mu.Unlock()
	if !ok {
		return nil, ErrNotFound
	}
	obj, err := s.open(it)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// Replaced or evicted between the index and the open.
			return nil, ErrNotFound
		}
		s.drop(it)
		return nil, fmt.Errorf("disk store: %s: %w", it.path, err)
	}
	return obj, nil
}

// open checks that the file on disk is the one the index describes and
// returns it as an Object; a small body is read and checked whole.
func (s *DiskStore) open(it *diskItem) (Object, error) {
	f, err := os.Open(it.path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	want := it.hdr.fileSize()
	if fi.Size() != want {
		f.Close()
		return nil, fmt.Errorf("file is %d bytes, want %d: %w", fi.Size(), want, ErrCorrupt)
	}
	bp := diskBufPool.Get().(*[]byte)
	n := diskHeaderSize
	if it.hdr.bodyLen <= smallBody-diskHeaderSize {
		n += int(it.hdr.bodyLen)
	}
	buf := (*bp)[:n]
	if _, err := f.ReadAt(buf, 0); err != nil {
		diskBufPool.Put(bp)
		f.Close()
		return nil, fmt.Errorf("reading: %w: %w", ErrCorrupt, err)
	}
	if hdr, err := parseDiskHeader(buf); err != nil || hdr != it.hdr {
		diskBufPool.Put(bp)
		f.Close()
		return nil, fmt.Errorf("file header differs from the index: %w", ErrCorrupt)
	}
	if n > diskHeaderSize {
		f.Close()
		body := buf[diskHeaderSize:]
		if crc32.Checksum(body, castagnoli) != it.hdr.bodyCRC {
			diskBufPool.Put(bp)
			return nil, fmt.Errorf("body: %w: %w", errChecksum, ErrCorrupt)
		}
		return &diskSmall{meta: it.meta, buf: bp, body: body}, nil
	}
	if it.hdr.bodyLen == 0 {
		f.Close()
		diskBufPool.Put(bp)
		return &diskSmall{meta: it.meta}, nil
	}
	return &diskFile{s: s, it: it, f: f, buf: bp}, nil
}

// diskSmall is a checked body held in a pooled buffer.
type diskSmall struct {
	meta *Meta
	buf  *[]byte
	body []byte
}

func (o *diskSmall) Meta() *Meta { return o.meta }

func (o *diskSmall) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(o.body)
	return int64(n), err
}

func (o *diskSmall) Close() error {
	if o.buf != nil {
		diskBufPool.Put(o.buf)
		o.buf, o.body = nil, nil
	}
	return nil
}

// diskFile streams a large body, checking its CRC on the way. The last
// piece is held back until the whole body has checked out, so a corrupt
// entry never reaches a client complete: the reader drops the entry and
// gets ErrCorrupt.
type diskFile struct {
	s   *DiskStore
	it  *diskItem
	f   *os.File
	buf *[]byte
}

func (o *diskFile) Meta() *Meta { return o.it.meta }

func (o *diskFile) WriteTo(w io.Writer) (int64, error) {
	buf := *o.buf
	var sum uint32
	var n int64
	off := int64(diskHeaderSize)
	end := off + o.it.hdr.bodyLen
	for off < end {
		chunk := buf[:min(int64(len(buf)), end-off)]
		k, err := o.f.ReadAt(chunk, off)
		if k < len(chunk) {
			o.s.drop(o.it)
			return n, fmt.Errorf("disk store: reading %s: %w: %w", o.it.path, ErrCorrupt, err)
		}
		sum = crc32.Update(sum, castagnoli, chunk)
		off += int64(k)
		if off == end && sum != o.it.hdr.bodyCRC {
			o.s.drop(o.it)
			return n, fmt.Errorf("disk store: %s: %w: %w", o.it.path, errChecksum, ErrCorrupt)
		}
		m, err := w.Write(chunk)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func (o *diskFile) Close() error {
	if o.buf != nil {
		diskBufPool.Put(o.buf)
		o.buf = nil
	}
	return o.f.Close()
}

func (s *DiskStore) Put(_ context.Context, key string) (Writer, error) {
	f, err := os.CreateTemp(s.tmp, "fill-*")
	if err != nil {
		return nil, fmt.Errorf("disk store: %w", err)
	}
	w := &diskWriter{s: s, key: key, f: f}
	w.bw = bufio.NewWriterSize(f, 32<<10)
	// Room for the header, written last.
	var zero [diskHeaderSize]byte
	if _, err := w.bw.Write(zero[:]); err != nil {
		w.Abort()
		return nil, fmt.Errorf("disk store: %w", err)
	}
	return w, nil
}

// diskWriter writes a new entry to a temporary file.
type diskWriter struct {
	s    *DiskStore
	key  string
	f    *os.File
	bw   *bufio.Writer
	crc  uint32
	size int64
	done bool
}

func (w *diskWriter) Write(p []byte) (int, error) {
	if w.done {
		return 0, errors.New("disk store: write after commit or abort")
	}
	if w.s.maxSize > 0 && w.size+int64(len(p)) > w.s.maxSize {
		w.Abort()
		return 0, errTooLarge
	}
	n, err := w.bw.Write(p)
	w.crc = crc32.Update(w.crc, castagnoli, p[:n])
	w.size += int64(n)
	if err != nil {
		w.Abort()
		return n, fmt.Errorf("disk store: %w", err)
	}
	return n, nil
}

func (w *diskWriter) Commit(_ context.Context, meta *Meta) error {
	if w.done {
		return errors.New("disk store: commit after abort")
	}
	m := *meta
	m.Key, m.Size = w.key, w.size
	mb, err := m.MarshalBinary()
	if err != nil {
		w.Abort()
		return err
	}
	hdr := diskHeader{metaLen: uint32(len(mb)), bodyLen: w.size, metaCRC: crc32.Checksum(mb, castagnoli), bodyCRC: w.crc}
	var hb [diskHeaderSize]byte
	hdr.marshal(&hb)
	if _, err = w.bw.Write(mb); err == nil {
		if err = w.bw.Flush(); err == nil {
			_, err = w.f.WriteAt(hb[:], 0)
		}
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.done = true
	if err != nil {
		_ = os.Remove(w.f.Name())
		return fmt.Errorf("disk store: writing %s: %w", w.f.Name(), err)
	}
	return w.s.install(w.f.Name(), &diskItem{key: w.key, path: w.s.path(w.key), hdr: hdr, meta: &m, lastUse: time.Now()})
}

func (w *diskWriter) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.f.Close()
	_ = os.Remove(w.f.Name())
}

// install renames a complete temporary file into place and indexes it,
// then evicts the least recently used entries over max_size. Renames and
// removals happen under the index lock, so the index and the directory
// never disagree about which file a key has.
func (s *DiskStore) install(tmp string, it *diskItem) error {
	if err := os.MkdirAll(filepath.Dir(it.path), 0o755); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("disk store: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.Rename(tmp, it.path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("disk store: %w", err)
	}
	if old, ok := s.items[it.key]; ok {
		s.removeLocked(old) // its file was just replaced
	}
	s.addLocked(it)
	for s.maxSize > 0 && s.total > s.maxSize && s.lru.Len() > 1 {
		victim := s.lru.Back().Value.(*diskItem)
		s.removeLocked(victim)
		_ = os.Remove(victim.path)
	}
	return nil
}

// Update rewrites the entry with new metadata, copying its body.
func (s *DiskStore) Update(ctx context.Context, meta *Meta) error {
	obj, err := s.Get(ctx, meta.Key)
	if err != nil {
		return err
	}
	defer obj.Close()
	w, err := s.Put(ctx, meta.Key)
	if err != nil {
		return err
	}
	if _, err := obj.WriteTo(w); err != nil {
		w.Abort()
		return fmt.Errorf("disk store: copying body: %w", err)
	}
	m := *meta
	m.BodyID = obj.Meta().BodyID // the body is the same
	return w.Commit(ctx, &m)
}

func (s *DiskStore) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if it, ok := s.items[key]; ok {
		s.removeLocked(it)
		if err := os.Remove(it.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("disk store: %w", err)
		}
	}
	return nil
}

func (s *DiskStore) PurgePrefix(_ context.Context, prefix string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, it := range s.items {
		if strings.HasPrefix(k, prefix) {
			s.removeLocked(it)
			_ = os.Remove(it.path)
			n++
		}
	}
	return n, nil
}

func (s *DiskStore) PurgeTag(_ context.Context, tag string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k := range s.tags[tag] {
		if it, ok := s.items[k]; ok {
			s.removeLocked(it)
			_ = os.Remove(it.path)
			n++
		}
	}
	return n, nil
}

func (s *DiskStore) Generation(context.Context) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen, nil
}

// BumpGeneration persists the new counter (temporary file and rename), so
// that a purge-all holds across a restart. The files of older generations
// are removed by the sweeper.
func (s *DiskStore) BumpGeneration(context.Context) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.gen + 1
	tmp, err := os.CreateTemp(s.tmp, "generation-*")
	if err != nil {
		return 0, fmt.Errorf("disk store: %w", err)
	}
	_, err = tmp.WriteString(strconv.FormatUint(g, 10))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(s.dir, generationFile))
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return 0, fmt.Errorf("disk store: saving generation: %w", err)
	}
	s.gen = g
	return g, nil
}

func (s *DiskStore) TryLock(_ context.Context, key string, ttl time.Duration) (func(), bool, error) {
	release, ok := s.locks.tryLock(key, ttl)
	return release, ok, nil
}

func (s *DiskStore) Wait(ctx context.Context, key string) error { return s.locks.wait(ctx, key) }

// Close stops the sweeper. The files stay for the next NewDiskStore.
func (s *DiskStore) Close() error {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
	return nil
}

// Len is the number of entries indexed.
func (s *DiskStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.items)
}

// sweep removes, periodically, the entries not used for inactive and
// those of an older generation (NGINX's cache manager).
func (s *DiskStore) sweep() {
	defer close(s.done)
	t := time.NewTicker(min(s.inactive/2, 10*time.Second))
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			s.sweepOnce(now)
		}
	}
}

func (s *DiskStore) sweepOnce(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for e := s.lru.Back(); e != nil; {
		it := e.Value.(*diskItem)
		e = e.Prev()
		if now.Sub(it.lastUse) > s.inactive || it.meta.Generation < s.gen {
			s.removeLocked(it)
			_ = os.Remove(it.path)
		}
	}
}
