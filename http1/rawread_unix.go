//go:build unix

package http1

import (
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/mosaic-edge/mosaic/internal/rawsock"
)

// rawConn returns the raw socket of a plain connection, which fill waits
// on without a buffer; nil for any other (TLS, a pipe).
func rawConn(nc net.Conn) syscall.RawConn {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// peekSocket returns the first byte waiting on nc's socket without taking
// it (MSG_PEEK, as NGINX looks at a TLS port's first byte), waiting for
// one within the read deadline.
func peekSocket(nc net.Conn) (byte, error) {
	rc := rawConn(nc)
	if rc == nil {
		return 0, errors.ErrUnsupported
	}
	var b [1]byte
	var n int
	var err error
	if rerr := rc.Read(func(fd uintptr) bool {
		n, _, err = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK)
		return err != syscall.EAGAIN && err != syscall.EINTR
	}); rerr != nil {
		return 0, rerr
	}
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, io.EOF
	}
	return b[0], nil
}

// bytesWaiting reports whether bytes wait unread on the socket under nc
// (socketUnder), without waiting or taking them (MSG_PEEK|MSG_DONTWAIT):
// an end of file or an error is none. What a wrapper holds in a buffer
// of its own is out of the kernel's and resets nothing.
func bytesWaiting(nc net.Conn) bool {
	rc := rawConn(socketUnder(nc))
	if rc == nil {
		return false
	}
	var b [1]byte
	n := 0
	_ = rc.Read(func(fd uintptr) bool {
		n, _, _ = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return true // one look, no wait
	})
	return n > 0
}

// readFD reads the non-blocking socket fd once, as net.Conn's Read would
// before it waits, but without telling the scheduler (see rawsock):
// EAGAIN says there is nothing yet, and an end of file is io.EOF.
func readFD(fd int, p []byte) (int, error) { return rawsock.Read(fd, p) }

// rawIO is what writeRaw keeps per connection: its function for
// raw.Write, made once, and the vector of its writev calls.
type rawIO struct {
	rawWrite func(fd uintptr) bool
	rawIov   [8]syscall.Iovec
}

func (c *conn) initRawWrite() { c.rawWrite = c.writevFD }

// writeRaw writes c.bufs with raw writev calls, waiting through the
// poller (and under the write deadline) only while the socket's buffer is
// full.
func (c *conn) writeRaw() error {
	c.rawErr = nil
	if err := c.raw.Write(c.rawWrite); err != nil {
		return err
	}
	return c.rawErr
}

// writevFD is writeRaw's function for raw.Write.
func (c *conn) writevFD(fd uintptr) bool {
	for len(c.bufs) > 0 {
		n, err := rawsock.Writev(int(fd), c.bufs, c.rawIov[:0])
		c.bufs = rawsock.Consume(c.bufs, n)
		if err == syscall.EAGAIN {
			return false
		}
		if err != nil {
			c.rawErr = err
			return true
		}
	}
	return true
}

// writeOnce writes p to nc's socket with one system call, without waiting
// for room: EAGAIN says the socket takes nothing now, io.ErrShortWrite
// that it took only a part (tls.Conn takes a write without an error for
// a whole record sent). It writes to the socket under the connections
// over it (socketUnder: the PROXY protocol reader).
func writeOnce(nc net.Conn, p []byte) (int, error) {
	rc := rawConn(socketUnder(nc))
	if rc == nil {
		return 0, errors.ErrUnsupported
	}
	var n int
	var err error
	if rerr := rc.Write(func(fd uintptr) bool {
		n, err = rawsock.Write(int(fd), p)
		return true
	}); rerr != nil {
		return 0, rerr
	}
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	return n, err
}
