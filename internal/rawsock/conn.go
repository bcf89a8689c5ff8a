//go:build unix

package rawsock

import (
	"io"
	"net"
	"syscall"
	"unsafe"
)

// Read reads the non-blocking socket fd once: EAGAIN says nothing has
// come, and an end of file is io.EOF.
func Read(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, _, e := syscall6(sysRead, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), 0, 0, 0)
		switch {
		case e == syscall.EINTR:
			continue
		case e != 0:
			return 0, e
		case n == 0:
			return 0, io.EOF
		}
		return int(n), nil
	}
}

// Write writes p to the non-blocking socket fd once, as much as its
// buffer takes: EAGAIN says it takes nothing now.
func Write(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, _, e := syscall6(sysWrite, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), writeFlags, 0, 0)
		switch {
		case e == syscall.EINTR:
			continue
		case e != 0:
			return 0, e
		}
		return int(n), nil
	}
}

// Writev writes bufs to the non-blocking socket fd once, as many of them
// as iov has room for (its capacity), as much as its buffer takes: EAGAIN
// says it takes nothing now.
func Writev(fd int, bufs [][]byte, iov []syscall.Iovec) (int, error) {
	iov = iov[:0]
	for _, b := range bufs {
		if len(iov) == cap(iov) {
			break
		}
		if len(b) > 0 {
			v := syscall.Iovec{Base: &b[0]}
			v.SetLen(len(b))
			iov = append(iov, v)
		}
	}
	if len(iov) == 0 {
		return 0, nil
	}
	for {
		n, e := writev(fd, iov)
		if e == syscall.EINTR {
			continue
		}
		// The vector must not keep what it pointed at alive.
		clear(iov)
		if e != 0 {
			return 0, e
		}
		return int(n), nil
	}
}

// Consume drops the first n bytes of bufs, as a writev of n bytes sent
// them, and the empty slices that follow. The slices dropped are cleared
// in the backing array, which must not keep what was sent alive.
func Consume(bufs [][]byte, n int) [][]byte {
	for len(bufs) > 0 && (n > 0 || len(bufs[0]) == 0) {
		if n < len(bufs[0]) {
			bufs[0] = bufs[0][n:]
			n = 0
			continue
		}
		n -= len(bufs[0])
		bufs[0] = nil
		bufs = bufs[1:]
	}
	return bufs
}

// Conn is a TCP or Unix-domain connection whose Read and Write make the
// system calls themselves and wait through the poller (the connection's
// deadlines apply) only when the socket is not ready. Like net.Conn, it
// allows one reader and one writer at a time.
type Conn struct {
	net.Conn
	rc syscall.RawConn

	// The operation in progress, for the functions handed to rc, made
	// once per connection rather than per call.
	rp            []byte
	rn            int
	rerr          error
	wp            []byte
	wn            int
	werr          error
	rfn, wfn, wrf func(fd uintptr) bool
}

// Wrap returns a *Conn over c when c is a *net.TCPConn or a
// *net.UnixConn, and c itself otherwise.
func Wrap(c net.Conn) net.Conn {
	switch c.(type) {
	case *net.TCPConn, *net.UnixConn:
	default:
		return c
	}
	rc, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		return c
	}
	r := &Conn{Conn: c, rc: rc}
	r.rfn, r.wfn, r.wrf = r.read, r.write, r.writeRead
	return r
}

func (c *Conn) read(fd uintptr) bool {
	c.rn, c.rerr = Read(int(fd), c.rp)
	return c.rerr != syscall.EAGAIN
}

func (c *Conn) write(fd uintptr) bool {
	for len(c.wp) > 0 {
		n, err := Write(int(fd), c.wp)
		c.wn += n
		c.wp = c.wp[n:]
		if err == syscall.EAGAIN {
			return false
		}
		if err != nil {
			c.werr = err
			return true
		}
	}
	return true
}

// writeRead is WriteRead's function: its first call writes, and has the
// poller wait for the answer, without reading, once all is written; the
// calls after that read.
func (c *Conn) writeRead(fd uintptr) bool {
	if len(c.wp) > 0 {
		// Stop on an error or a socket without room: WriteRead's caller
		// writes the rest the ordinary way.
		return !c.write(fd) || c.werr != nil
	}
	return c.read(fd)
}

// WriteRead writes w and then reads the answer into p, as Write and Read
// would, but without a read that finds nothing. A Read must try the
// socket before it waits, since the runtime forgets what its poller saw
// of the socket when a read begins: an answer that came before would
// never wake the wait. Here the write is made within the read, after
// that point, so the answer to it, whenever it comes, wakes the wait, and
// the first read finds it: one system call fewer per exchange (the read
// that would find nothing, made before the peer had answered).
//
// The write does not wait: wn less than len(w) with a nil error says the
// socket had no room for the rest, which the caller then writes (Write)
// before it reads (Read); nothing has been read. An error with wn less
// than len(w) is the write's, one with wn equal to len(w) the read's.
// w's bytes are sent before the answer is read: p must not be w.
// WriteRead is the connection's reader and its writer at once (it uses
// Write's state, under the poller's read lock only): no Write may run
// beside it.
func (c *Conn) WriteRead(w, p []byte) (wn, rn int, err error) {
	c.wp, c.wn, c.werr = w, 0, nil
	c.rp, c.rn, c.rerr = p, 0, nil
	err = c.rc.Read(c.wrf)
	wn = c.wn
	c.wp, c.rp = nil, nil
	if wn < len(w) {
		if err == nil {
			err = c.werr
		}
		if err != nil {
			return wn, 0, c.opError("write", err)
		}
		return wn, 0, nil
	}
	if err == nil {
		if c.rerr == io.EOF {
			return wn, 0, io.EOF
		}
		err = c.rerr
	}
	if err != nil {
		return wn, c.rn, c.opError("read", err)
	}
	return wn, c.rn, nil
}

// Read reads into p, waiting for data if there is none yet.
func (c *Conn) Read(p []byte) (int, error) {
	c.rp, c.rn, c.rerr = p, 0, nil
	err := c.rc.Read(c.rfn)
	c.rp = nil
	if err == nil {
		if c.rerr == io.EOF {
			return 0, io.EOF
		}
		err = c.rerr
	}
	if err != nil {
		return c.rn, c.opError("read", err)
	}
	return c.rn, nil
}

// Write writes all of p, waiting for room as long as the socket has none.
func (c *Conn) Write(p []byte) (int, error) {
	c.wp, c.wn, c.werr = p, 0, nil
	err := c.rc.Write(c.wfn)
	c.wp = nil
	if err == nil {
		err = c.werr
	}
	if err != nil {
		return c.wn, c.opError("write", err)
	}
	return c.wn, nil
}

// opError wraps err as net.Conn's methods do, so that callers testing for
// a timeout or a closed connection see what they expect.
func (c *Conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

// SyscallConn returns the connection's raw socket, as the wrapped
// connection's would.
func (c *Conn) SyscallConn() (syscall.RawConn, error) { return c.rc, nil }
