//go:build linux && !386 && !s390x

package rawsock_test

import (
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/rawsock"
)

// TestWriteClosedPeerNoSIGPIPE: a write to a socket whose peer has
// closed fails with EPIPE and raises no SIGPIPE, which a program that
// listens for SIGPIPE (signal.Notify) would otherwise be sent for every
// client that went away, as if a pipe of its own had broken.
func TestWriteClosedPeerNoSIGPIPE(t *testing.T) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGPIPE)
	defer signal.Stop(sigs)
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fds[0])
	syscall.SetNonblock(fds[0], true)
	syscall.Close(fds[1])
	if _, err := rawsock.Write(fds[0], []byte("x")); err != syscall.EPIPE {
		t.Fatalf("a write to a closed peer: %v, want EPIPE", err)
	}
	iov := make([]syscall.Iovec, 0, 1)
	if _, err := rawsock.Writev(fds[0], [][]byte{[]byte("y")}, iov); err != syscall.EPIPE {
		t.Fatalf("a writev to a closed peer: %v, want EPIPE", err)
	}
	select {
	case s := <-sigs:
		if s == syscall.SIGPIPE {
			t.Error("a write to a closed peer raised SIGPIPE")
		}
	case <-time.After(200 * time.Millisecond):
	}
}
