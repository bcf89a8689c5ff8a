//go:build linux

package static

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/mosaic-edge/mosaic/internal/nolinks"
	"github.com/mosaic-edge/mosaic/internal/rawstat"
)

// beneath opens paths below the root with openat2(2) and RESOLVE_BENEATH:
// the kernel resolves the whole path, symbolic links included, in one
// system call and refuses with EXDEV any step that would leave the
// directory, whether by "..", by a relative link that climbs too far or by
// an absolute link. os.Root keeps the same promise by opening every
// component itself, an openat and a close per directory level.
type beneath struct {
	// mu keeps close from releasing the directory while an open resolves
	// a path against it: a descriptor number closed under a request could
	// be reused for any other file by then.
	mu  sync.RWMutex
	dir *dirFD
	// root serves the rare open that openat2 gives up on (EAGAIN after a
	// concurrent rename kept it from proving that ".." stayed inside).
	root *os.Root
	// resolve is how paths below the directory resolve: resolveBeneath,
	// with RESOLVE_NO_SYMLINKS when links are refused; links says so, and
	// with nolinks.IfNotOwner each path is looked at before it is opened.
	resolve uint64
	links   nolinks.Mode
	// dev is the root's device. local says that its file system answers a
	// stat from the disk's own state: not NFS, SMB or FUSE, whose stat
	// may answer from a cache of attributes that an open would refresh.
	// Nor do its opens, stats and closes of a cached file wait for a
	// server, so they are made raw (see rawOpenat2).
	dev   uint64
	local bool
	// cached says that opens are tried first raw with RESOLVE_CACHED:
	// local, and a kernel that knows the flag (Linux 5.12).
	cached bool
}

// dirFD is the directory's descriptor for close and for the cleanup that
// closes it when an opener is dropped without close (a location with
// variables in its root forgets roots past its bound while requests may
// still use them): whichever comes first closes it, once.
type dirFD struct{ fd atomic.Int64 } // -1 once closed

func (d *dirFD) get() int { return int(d.fd.Load()) }

func (d *dirFD) close() error {
	if fd := d.fd.Swap(-1); fd >= 0 {
		return unix.Close(int(fd))
	}
	return nil
}

// resolveBeneath keeps every open inside the directory; magic links
// (/proc/self/fd/N) could otherwise hand out any open file. plainBeneath
// also refuses any link and any mount crossing on the way.
const (
	resolveBeneath = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS
	plainBeneath   = resolveBeneath | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_XDEV
)

// resolveCached is openat2's RESOLVE_CACHED (Linux 5.12), which x/sys/unix
// does not name: resolve the path from the kernel's caches alone, or fail
// with EAGAIN.
const resolveCached = 0x20

// newOpener returns the openat2 opener for the directory name, or the
// os.Root one where the kernel (before Linux 5.6) or a seccomp filter
// refuses openat2.
func newOpener(name string, root *os.Root, links nolinks.Mode) (opener, rootID, error) {
	dirfd, err := unix.Open(name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, rootID{}, fmt.Errorf("static: open root: %w", &fs.PathError{Op: "open", Path: name, Err: err})
	}
	var st unix.Stat_t
	if err := unix.Fstat(dirfd, &st); err != nil {
		unix.Close(dirfd)
		return nil, rootID{}, fmt.Errorf("static: stat root: %w", &fs.PathError{Op: "fstat", Path: name, Err: err})
	}
	id := rootID{dev: st.Dev, ino: st.Ino, links: links}
	probe, err := unix.Openat2(dirfd, ".", &unix.OpenHow{
		Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: resolveBeneath})
	if err != nil {
		// ENOSYS before Linux 5.6, EPERM from seccomp filters that
		// predate the call: os.Root does the same job, more slowly.
		unix.Close(dirfd)
		return rootOpener{root, links}, id, nil
	}
	unix.Close(probe)
	b := &beneath{dir: new(dirFD), root: root, resolve: resolveBeneath, links: links, dev: uint64(st.Dev), local: rawstat.Local(dirfd)}
	if b.local {
		// An older kernel refuses the flag with EINVAL.
		probe, err = unix.Openat2(dirfd, ".", &unix.OpenHow{
			Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: resolveBeneath | resolveCached})
		if err == nil {
			unix.Close(probe)
			b.cached = true
		}
	}
	if links == nolinks.Refuse {
		b.resolve |= unix.RESOLVE_NO_SYMLINKS
	}
	b.dir.fd.Store(int64(dirfd))
	runtime.AddCleanup(b, func(d *dirFD) { _ = d.close() }, b.dir)
	return b, id, nil
}

// openat2 opens rel below the directory with flags, resolved as resolve
// says, and reports whether the file is on the root's own file system:
// known where the raw cached call opened it, which crosses no mount.
func (b *beneath) openat2(rel string, flags, resolve uint64) (int, bool, error) {
	how := unix.OpenHow{Flags: flags | unix.O_CLOEXEC, Resolve: resolve}
	b.mu.RLock()
	defer b.mu.RUnlock()
	dirfd := b.dir.get()
	if dirfd < 0 {
		return -1, false, &fs.PathError{Op: "openat2", Path: rel, Err: fs.ErrClosed}
	}
	if b.cached {
		// RESOLVE_NO_XDEV: a mount below the root may be NFS or FUSE,
		// whose open waits for a server; the ordinary call crosses it.
		cached := how
		cached.Resolve |= resolveCached | unix.RESOLVE_NO_XDEV
		fd, err := openat2Cached(dirfd, rootPath(rel), &cached)
		switch err {
		case nil:
			return fd, true, nil
		case unix.EAGAIN, unix.EINTR: // the lookup needs I/O: ask the ordinary way
		case unix.EXDEV: // a mount crossed, or an escape: the ordinary call tells
		default:
			return -1, false, &fs.PathError{Op: "openat2", Path: rel, Err: err}
		}
	}
	// EAGAIN: a rename elsewhere kept the kernel from proving that a ".."
	// stayed inside; it may be asked again.
	for tries := 0; ; tries++ {
		fd, err := openat2(dirfd, rootPath(rel), &how)
		if err == nil {
			return fd, false, nil
		}
		if err != unix.EINTR && (err != unix.EAGAIN || tries == 3) {
			return -1, false, &fs.PathError{Op: "openat2", Path: rel, Err: err}
		}
	}
}

// openat2Cached is rawOpenat2, replaced by tests to refuse.
var openat2Cached = rawOpenat2

// rawOpenat2 is openat2(2) for how with RESOLVE_CACHED, made raw: an
// ordinary call enters the scheduler's system-call state, which wakes the
// runtime's sysmon thread when it sleeps (between responses), and sysmon
// then polls every 20 µs for ~3.5 ms, preempting the response on a busy
// processor (compress README, "What wakes sysmon"). RESOLVE_CACHED makes
// the kernel answer EAGAIN rather than wait for the disk to resolve the
// path, and the root's file system is local, whose open of a resolved
// regular file does not wait for a server either. A path too long for
// the stack is left to the ordinary call (EAGAIN).
func rawOpenat2(dirfd int, path string, how *unix.OpenHow) (int, error) {
	var buf rawstat.PathBuf
	p, ok := buf.CString(path)
	if !ok {
		return -1, unix.EAGAIN
	}
	fd, _, errno := unix.RawSyscall6(unix.SYS_OPENAT2, uintptr(dirfd), uintptr(unsafe.Pointer(p)),
		uintptr(unsafe.Pointer(how)), unsafe.Sizeof(*how), 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// openat2 is unix.Openat2 with the path's NUL-terminated copy on the
// stack when it is short, as request paths are, instead of on the heap.
func openat2(dirfd int, path string, how *unix.OpenHow) (int, error) {
	var buf rawstat.PathBuf
	p, ok := buf.CString(path)
	if !ok {
		return unix.Openat2(dirfd, path, how) // long, or refused with EINVAL
	}
	fd, _, errno := unix.Syscall6(unix.SYS_OPENAT2, uintptr(dirfd), uintptr(unsafe.Pointer(p)),
		uintptr(unsafe.Pointer(how)), unsafe.Sizeof(*how), 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// open opens rel for reading. O_NONBLOCK keeps a FIFO from blocking the
// open until a writer appears (it is then refused as not a regular file);
// regular files ignore it. The descriptor is not made an *os.File: the
// poller would be offered it (a failing epoll_ctl) and os.NewFile asks
// fcntl for its flags, a system call each per request.
func (b *beneath) open(rel string) (descriptor, fileInfo, error) {
	if err := b.ownersAgree(rel); err != nil {
		return nil, fileInfo{}, err
	}
	fd, onRoot, err := b.openat2(rel, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, b.resolve)
	if errors.Is(err, unix.EAGAIN) {
		return rootOpener{b.root, b.links}.open(rel)
	}
	if err != nil {
		return nil, fileInfo{}, b.linkError(rel, err)
	}
	info, err := b.fstat(fd, rel, onRoot)
	if err != nil {
		closeFD(fd, onRoot)
		return nil, fileInfo{}, err
	}
	return &fdFile{fd: fd, local: b.onRoot(info)}, info, nil
}

// stat reports what rel is. O_PATH opens without asking for read
// permission, as stat(2) would.
func (b *beneath) stat(rel string) (fileInfo, error) {
	if err := b.ownersAgree(rel); err != nil {
		return fileInfo{}, err
	}
	fd, onRoot, err := b.openat2(rel, unix.O_PATH, b.resolve)
	if errors.Is(err, unix.EAGAIN) {
		return rootOpener{b.root, b.links}.stat(rel)
	}
	if err != nil {
		return fileInfo{}, b.linkError(rel, err)
	}
	defer closeFD(fd, onRoot)
	return b.fstat(fd, rel, onRoot)
}

// linkError tells, when links are refused and openat2 met one (ELOOP
// for any component), whether it stood for a directory of the path
// (ENOTDIR, as NGINX's opens find it) or for the file itself (ELOOP).
func (b *beneath) linkError(rel string, err error) error {
	if b.links != nolinks.Refuse || !errors.Is(err, unix.ELOOP) {
		return err
	}
	if found := nolinks.Below(b.root, rel, nolinks.Refuse); found != nil {
		return found
	}
	return err
}

// ownersAgree refuses, under nolinks.IfNotOwner, a path with a link whose
// owner does not own what it leads to; openat2 cannot tell. As in NGINX,
// the path may change between the look and the open.
func (b *beneath) ownersAgree(rel string) error {
	if b.links != nolinks.IfNotOwner {
		return nil
	}
	return nolinks.Below(b.root, rel, nolinks.IfNotOwner)
}

func (b *beneath) close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dir.get() < 0 {
		return fs.ErrClosed
	}
	err := b.dir.close()
	if err != nil {
		err = &fs.PathError{Op: "close", Path: ".", Err: err}
	}
	return errors.Join(err, b.root.Close())
}

// fstat stats the descriptor fd of rel, raw (rawstat.Fstat) where raw
// says that it is on the root's local file system.
func (b *beneath) fstat(fd int, rel string, raw bool) (fileInfo, error) {
	stat := unix.Fstat
	if raw && b.local {
		stat = rawstat.Fstat
	}
	var st unix.Stat_t
	for {
		err := stat(fd, &st)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fileInfo{}, &fs.PathError{Op: "fstat", Path: rel, Err: err}
		}
		return statInfo(&st), nil
	}
}

// errPathChanged is identify's answer for a path that no longer resolves
// through the directories it was traced through.
var errPathChanged = errors.New("static: path resolves another way")

// trace finds how rel resolves (see identifier). The directory is opened
// by the kernel beneath the root, through no link and onto no other
// device, so that what is recorded is the directory an open resolves and
// not one a concurrent rename put in its name; the file must be that
// directory's entry itself, not a link to it.
func (b *beneath) trace(rel string, info fileInfo) (pathTrace, bool) {
	var t pathTrace
	if !b.local || rel == "" || strings.Count(rel, "/") >= maxTraced {
		return t, false
	}
	if i := strings.IndexByte(rel, '/'); i >= 0 {
		if i == 0 || i == len(rel)-1 {
			return t, false
		}
		dfd, _, err := b.openat2(rel[:i], unix.O_PATH|unix.O_DIRECTORY, plainBeneath)
		if err != nil {
			return t, false
		}
		defer unix.Close(dfd)
		var dir, st unix.Stat_t
		if unix.Fstat(dfd, &dir) != nil || unix.Fstatat(dfd, rel[i+1:], &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return t, false
		}
		t.dir.dev, t.dir.ino, t.hasDir = uint64(dir.Dev), dir.Ino, true
		return t, uint64(st.Dev) == b.dev && statInfo(&st) == info
	}
	st, err := b.lstat(rel)
	return t, err == nil && uint64(st.Dev) == b.dev && statInfo(&st) == info
}

// identify lstats the directory of t, if any, and then rel itself: a
// directory replaced by a link or by another directory, or moved away,
// ends the check; the file is returned as it is now, for the caller to
// compare. fstatat cannot be kept beneath the root as openat2 can, which
// is why a path is only checked this way when no component is a link.
//
// The second lstat follows whatever the directory's name means by then.
// If a rename puts a link there in between, the file it finds can still
// only pass the caller's comparison if it is the same inode with the same
// ctime, not renamed, linked or unlinked since it was traced: it was then
// still the entry of the directory the first lstat found inside the root.
// The answer is what an open at that moment would have given.
func (b *beneath) identify(rel string, t *pathTrace) (fileInfo, error) {
	if t.hasDir {
		i := strings.IndexByte(rel, '/')
		if i < 0 {
			return fileInfo{}, errPathChanged
		}
		st, err := b.lstat(rel[:i])
		if err != nil {
			return fileInfo{}, err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR || uint64(st.Dev) != t.dir.dev || st.Ino != t.dir.ino {
			return fileInfo{}, errPathChanged
		}
	}
	st, err := b.lstat(rel)
	if err != nil {
		return fileInfo{}, err
	}
	return statInfo(&st), nil
}

// lstat stats rel below the directory without following a link in its
// last component.
func (b *beneath) lstat(rel string) (unix.Stat_t, error) {
	var st unix.Stat_t
	b.mu.RLock()
	defer b.mu.RUnlock()
	dirfd := b.dir.get()
	if dirfd < 0 {
		return st, &fs.PathError{Op: "fstatat", Path: rel, Err: fs.ErrClosed}
	}
	for {
		err := rawstat.Lstatat(dirfd, rel, &st)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return st, &fs.PathError{Op: "fstatat", Path: rel, Err: err}
		}
		return st, nil
	}
}

func statInfo(st *unix.Stat_t) fileInfo {
	kind := kindOther
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		kind = kindRegular
	case unix.S_IFDIR:
		kind = kindDir
	}
	return fileInfo{kind: kind, size: int64(st.Size), mtime: int64(st.Mtim.Sec), id: fileID{
		dev: uint64(st.Dev), ino: uint64(st.Ino), mode: uint32(st.Mode),
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}}
}

// onRoot says whether a file opened below the root lies on the root's
// own file system, which is local (rawstat.Local): one across a mount
// below the root may be NFS or FUSE, whose reads and close stay ordinary.
func (b *beneath) onRoot(info fileInfo) bool {
	return b.local && info.id.dev == b.dev
}

// reopen opens d again through /proc/self/fd: the same file, with a file
// position of its own, which sendfile may move. It returns nil where that
// cannot be done (d is an *os.File of the os.Root opener, or /proc is not
// mounted); the caller then reads d at offsets.
func reopen(d descriptor) descriptor {
	f, ok := d.(*fdFile)
	if !ok {
		return nil
	}
	for {
		fd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(f.fd), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil
		}
		return &fdFile{fd: fd, local: f.local}
	}
}
