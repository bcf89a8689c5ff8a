//go:build unix

package memcached

import (
	"net"
	"syscall"

	"github.com/mosaic-edge/mosaic/internal/rawsock"
)

// idleAlive reports whether an idle connection is still open and silent:
// the server has not closed it (restarted, its idle_timeout) and sent
// nothing unasked, which the next get would read as its answer. NGINX's
// keepalive pool learns of both from its event loop and closes the
// connection; here one read that cannot wait, per reuse, tells.
func idleAlive(conn net.Conn) bool {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return true // not a socket: its use will tell
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var buf [1]byte
	silent := false
	// Control, not Read: a Read would wait for the socket to be readable.
	if rc.Control(func(fd uintptr) {
		_, err := rawsock.Read(int(fd), buf[:])
		silent = err == syscall.EAGAIN
	}) != nil {
		return false
	}
	return silent
}
