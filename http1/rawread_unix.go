//go:build unix

package http1

import (
	"io"
	"net"
	"syscall"
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
// before it waits: EAGAIN says there is nothing yet, and an end of file
// is io.EOF.
func readFD(fd int, p []byte) (int, error) {
	for {
		n, err := syscall.Read(fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}
