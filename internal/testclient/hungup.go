//go:build unix

package testclient

import (
	"net"
	"testing"

	"golang.org/x/sys/unix"
)

// HungUp reports whether the other end of c, a Unix-domain socket, has
// closed, whatever c has left to read (poll says POLLHUP then): how a
// test sees a server close a connection whose client stopped reading.
// POLLHUP is reported whatever the events asked for, on Linux (the
// peer's close shuts the socket down both ways) as on the BSDs
// (soisdisconnected), so POLLIN does where POLLRDHUP is Linux's alone.
func HungUp(t testing.TB, c *net.UnixConn) bool {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var hup bool
	_ = rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if n, err := unix.Poll(fds, 0); err == nil && n > 0 {
			hup = fds[0].Revents&unix.POLLHUP != 0
		}
	})
	return hup
}
