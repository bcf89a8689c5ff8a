//go:build linux

package proxy_test

import (
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/proxy"
)

// stalledListener is a loopback socket that listens with a backlog of
// zero and never accepts: once its queue holds a connection, Linux drops
// further SYNs, so a connect to it hangs without leaving the machine.
func stalledListener(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Skip(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Skip(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Skip(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	for i := 0; i < 8; i++ {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err != nil {
			return addr // the queue is full: connects now hang
		}
		t.Cleanup(func() { c.Close() })
	}
	t.Skip("listen queue never filled")
	return ""
}

func TestConnectTimeout(t *testing.T) {
	addr := stalledListener(t)
	logs := &logBuffer{}
	f := newFront(t, proxyTo(t, "http://"+addr, proxy.Options{ConnectTimeout: 150 * time.Millisecond, Logger: logs.logger()}))
	start := time.Now()
	status, _, _ := get(t, f.URL+"/")
	if status != 504 {
		t.Errorf("status %d, want 504", status)
	}
	if waited := time.Since(start); waited < 140*time.Millisecond || waited > 2*time.Second {
		t.Errorf("answered after %v, want about the 150ms connect timeout", waited)
	}
	if want := "upstream timed out while connecting to upstream"; !strings.Contains(logs.String(), want) {
		t.Errorf("log lacks %q:\n%s", want, logs)
	}
	if got := f.lastVar("upstream_connect_time"); got != "-" {
		t.Errorf("$upstream_connect_time %q", got)
	}
}
