//go:build unix

package http1

import (
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
