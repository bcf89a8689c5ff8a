package server

import (
	"io/fs"
	"os"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/mosaic-edge/mosaic/internal/rawstat"
)

// rawDir is a try_files directory opened once more beside its os.Root,
// on a local file system, where a candidate of up to maxRawDepth
// components is looked up with a raw fstatat (rawstat.Lstatat): the
// ordinary call os.Root makes wakes the runtime's sysmon on an idle
// server, four system calls more a request than the stat itself (README,
// "try_files' stat without the scheduler"). The directories walked are
// looked in on every request and their blocks are cached in all
// likelihood; at worst the stat reads up to maxRawDepth of them from the
// disk holding its processor.
type rawDir struct {
	// mu is held for reading through a stat and for writing by close, so
	// that no stat is made on a descriptor number closed and reused.
	mu sync.RWMutex
	f  *os.File
	fd int
}

// openRawDir opens root's directory for raw stats, or returns nil where
// it is not on a local file system (or cannot be opened: os.Root serves).
func openRawDir(root *os.Root) *rawDir {
	f, err := root.Open(".")
	if err != nil {
		return nil
	}
	fd := int(f.Fd())
	if !rawstat.Local(fd) {
		_ = f.Close()
		return nil
	}
	return &rawDir{f: f, fd: fd}
}

// stat looks name up in d as os.Root.Stat would; ok is false where d
// cannot tell: d nil or closed, an error other than the name's absence, a
// symbolic link at the end (which os.Root follows inside the root), and
// any name found through a directory, since fstatat follows a link there
// out of the root where os.Root refuses. A name that fstatat does not
// find, os.Root does not either: whatever links it follows inside the
// root, the kernel follows alike. So a candidate that is not there, the
// usual one of a front controller's try_files, is told at any depth.
func (d *rawDir) stat(name string) (isDir, ok bool, err error) {
	if d == nil {
		return false, false, nil
	}
	var st unix.Stat_t
	d.mu.RLock()
	if d.fd < 0 {
		d.mu.RUnlock()
		return false, false, nil
	}
	for {
		err = rawstat.Lstatat(d.fd, name, &st)
		if err != unix.EINTR {
			break
		}
	}
	d.mu.RUnlock()
	switch {
	case err == unix.ENOENT, err == unix.ENOTDIR:
		return false, true, fs.ErrNotExist
	case err != nil, st.Mode&unix.S_IFMT == unix.S_IFLNK, strings.IndexByte(name, '/') >= 0:
		return false, false, nil
	}
	return st.Mode&unix.S_IFMT == unix.S_IFDIR, true, nil
}

// close closes d, once no stat uses it.
func (d *rawDir) close() {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fd >= 0 {
		_ = d.f.Close()
		d.fd = -1
	}
}
