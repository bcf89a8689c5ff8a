//go:build unix

package testclient

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// Fill writes to c, a socket whose peer reads nothing, until it takes no
// more: a write that does not wait says EAGAIN. A write that timed out
// told a full socket before, with a deadline set just before it; on a
// loaded machine that deadline could pass before the write began, and
// the socket was left with room, so a test that wanted a full socket
// passed without one. It returns an error rather than failing the test,
// so that a handler's goroutine may call it.
func Fill(c net.Conn) error {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return fmt.Errorf("%T is no socket", c)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	buf := make([]byte, 64<<10)
	var werr error
	if err := rc.Write(func(fd uintptr) bool {
		for werr == nil {
			_, werr = syscall.Write(int(fd), buf)
		}
		return true // no wait for room: full is what is sought
	}); err != nil {
		return err
	}
	if !errors.Is(werr, syscall.EAGAIN) {
		return werr
	}
	return nil
}
