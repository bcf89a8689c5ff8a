package http1

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
)

// wouldBlock answers as errors.Is(err, syscall.EAGAIN) did: the bare
// errno by its comparison, and EAGAIN wrapped as the net and os packages
// wrap a read's errno by errors.Is.
func TestWouldBlock(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{syscall.EAGAIN, true},
		{os.NewSyscallError("read", syscall.EAGAIN), true},
		{&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.EAGAIN)}, true},
		{fmt.Errorf("peek: %w", syscall.EAGAIN), true},
		{syscall.EINTR, false},
		{os.NewSyscallError("read", syscall.ECONNRESET), false},
		{io.EOF, false},
		{errors.New("resource temporarily unavailable"), false},
	} {
		if got := wouldBlock(c.err); got != c.want {
			t.Errorf("wouldBlock(%#v) = %v, want %v", c.err, got, c.want)
		}
	}
}
