//go:build !unix

package http1

import (
	"errors"
	"net"
	"syscall"
)

// rawConn returns nil: fill reads through the connection, and the read
// buffer is released only between requests.
func rawConn(net.Conn) syscall.RawConn { return nil }

// peekSocket cannot look into a socket here: the TLS port takes every
// client for a TLS one.
func peekSocket(net.Conn) (byte, error) { return 0, errors.ErrUnsupported }

// bytesWaiting cannot look into a socket here: only the bytes a read
// took tell that the client sent more.
func bytesWaiting(net.Conn) bool { return false }

// readFD is never called without a raw connection.
func readFD(int, []byte) (int, error) { return 0, errors.ErrUnsupported }

// rawIO holds nothing where there are no raw sockets.
type rawIO struct{}

func (c *conn) initRawWrite() {}

// writeRaw is never called without a raw connection.
func (c *conn) writeRaw() error { return errors.ErrUnsupported }

// writeOnce cannot write without waiting here: it writes nothing.
func writeOnce(net.Conn, []byte) (int, error) { return 0, errors.ErrUnsupported }
