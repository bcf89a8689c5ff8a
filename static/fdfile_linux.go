//go:build linux

package static

import (
	"errors"
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fdFile is a descriptor that beneath opened, read with plain system calls.
// It is a syscall.Conn, which is what net's sendfile path asks of a source:
// handed to net/http's ReaderFrom (inside an io.LimitedReader, as an
// *os.File would be), its bytes go to the socket with sendfile(2).
//
// It is used by one request at a time, or, in the open file cache, only
// through ReadAt, which leaves the shared offset alone.
type fdFile struct {
	fd int
	// local says that the file lies on a local file system (rawstat.Local),
	// whose reads from the page cache and close the file makes raw.
	local bool
	// waits is set once preadv2 has refused RWF_NOWAIT for this file
	// (an old kernel, a file system without it): reads then wait.
	waits atomic.Bool
}

var errFileClosed = errors.New("static: file already closed")

// Read reads at the file's position, through pread (an offset of -1).
func (f *fdFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := f.pread(p, -1)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, os.NewSyscallError("read", err)
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f *fdFile) ReadAt(p []byte, off int64) (int, error) {
	done := 0
	for done < len(p) {
		n, err := f.pread(p[done:], off+int64(done))
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return done, os.NewSyscallError("pread", err)
		case n == 0:
			return done, io.EOF
		}
		done += n
	}
	return done, nil
}

// pread reads at off, or at the file's position (moving it) where off is
// -1, from the page cache with a raw preadv2(RWF_NOWAIT), which answers
// EAGAIN instead of waiting for the disk, and only then with an ordinary
// pread or read, which tells the scheduler it may block. The raw call
// does not wake the runtime's sysmon thread, which an ordinary one does
// for a read that takes a microsecond; it holds the processor only for
// the copy of at most one buffer (copyBufSize) from memory. Files of
// other than local file systems always read the ordinary way.
func (f *fdFile) pread(p []byte, off int64) (int, error) {
	if len(p) > 0 && f.local && !f.waits.Load() {
		iov := unix.Iovec{Base: &p[0]}
		iov.SetLen(len(p))
		lo, hi := uintptr(off), uintptr(uint64(off)>>(unix.SizeofLong*8-1)>>1)
		n, _, errno := unix.RawSyscall6(unix.SYS_PREADV2, uintptr(f.fd), uintptr(unsafe.Pointer(&iov)), 1,
			lo, hi, unix.RWF_NOWAIT)
		switch errno {
		case 0:
			return int(n), nil
		case unix.EAGAIN: // not all in memory: wait for it below
		case unix.EOPNOTSUPP, unix.EINVAL, unix.ENOSYS:
			f.waits.Store(true)
		default:
			return 0, errno
		}
	}
	if off == -1 {
		return unix.Read(f.fd, p)
	}
	return unix.Pread(f.fd, p, off)
}

func (f *fdFile) Seek(offset int64, whence int) (int64, error) {
	off, err := unix.Seek(f.fd, offset, whence)
	if err != nil {
		return 0, os.NewSyscallError("lseek", err)
	}
	return off, nil
}

func (f *fdFile) Close() error {
	if f.fd < 0 {
		return errFileClosed
	}
	err := closeFD(f.fd, f.local)
	f.fd = -1
	if err != nil {
		return os.NewSyscallError("close", err)
	}
	return nil
}

// closeFD closes fd, raw where it is a file of a local file system: the
// close of a file opened for reading does not wait there, and an ordinary
// call would wake sysmon (see pread).
func closeFD(fd int, local bool) error {
	if !local {
		return unix.Close(fd)
	}
	_, _, errno := unix.RawSyscall(unix.SYS_CLOSE, uintptr(fd), 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// SyscallConn lends the descriptor to sendfile.
func (f *fdFile) SyscallConn() (syscall.RawConn, error) {
	return (*fdRawConn)(f), nil
}

// fdRawConn is the syscall.RawConn of a regular file, which is always
// ready: there is nothing to wait for between tries.
type fdRawConn fdFile

func (c *fdRawConn) Control(f func(fd uintptr)) error {
	f(uintptr(c.fd))
	return nil
}

func (c *fdRawConn) Read(f func(fd uintptr) bool) error {
	for !f(uintptr(c.fd)) {
	}
	return nil
}

func (c *fdRawConn) Write(f func(fd uintptr) bool) error {
	for !f(uintptr(c.fd)) {
	}
	return nil
}
