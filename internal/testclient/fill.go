//go:build unix

package testclient

import (
	"errors"
	"net"
	"syscall"
	"testing"
)

// Fill writes to c, a socket whose peer reads nothing, until it takes no
// more: a write that does not wait says EAGAIN. A write that timed out
// told a full socket before, with a deadline set just before it; on a
// loaded machine that deadline could pass before the write began, and
// the socket was left with room, so a test that wanted a full socket
// passed without one.
func Fill(t testing.TB, c net.Conn) {
	t.Helper()
	sc, ok := c.(syscall.Conn)
	if !ok {
		t.Fatalf("filling: %T is no socket", c)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		t.Fatalf("filling: %v", err)
	}
	buf := make([]byte, 64<<10)
	var werr error
	if err := rc.Write(func(fd uintptr) bool {
		for werr == nil {
			_, werr = syscall.Write(int(fd), buf)
		}
		return true // no wait for room: full is what is sought
	}); err != nil {
		werr = err
	}
	if !errors.Is(werr, syscall.EAGAIN) {
		t.Fatalf("filling: %v", werr)
	}
}
