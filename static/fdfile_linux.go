//go:build linux

package static

import (
	"errors"
	"io"
	"os"
	"syscall"

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
}

var errFileClosed = errors.New("static: file already closed")

func (f *fdFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := unix.Read(f.fd, p)
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
		n, err := unix.Pread(f.fd, p[done:], off+int64(done))
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
	err := unix.Close(f.fd)
	f.fd = -1
	if err != nil {
		return os.NewSyscallError("close", err)
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
