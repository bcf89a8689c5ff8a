package main

import (
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// waitPeerRead waits until the server's end of the loopback connection c
// has read everything c sent: first until the server's kernel has
// acknowledged it (c's output queue, SIOCOUTQ, is empty: the bytes are in
// the server's receive queue), then until that queue (rx_queue in
// /proc/net/tcp, of the socket whose local port is c's remote one and
// remote port c's local one) is empty. A server socket that is no longer
// listed was closed: nothing is left to read there. It replaces a 200 ms
// sleep, which a loaded machine could outlast.
func waitPeerRead(t *testing.T, c *net.TCPConn) {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	unacked := func() (n int) {
		var ierr error
		if err := rc.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), unix.SIOCOUTQ) }); err != nil {
			t.Fatal(err)
		}
		if ierr != nil {
			t.Fatalf("SIOCOUTQ: %v", ierr)
		}
		return n
	}
	// /proc/net/tcp writes ports as four hex digits, after the address.
	server := fmt.Sprintf(":%04X", c.RemoteAddr().(*net.TCPAddr).Port)
	client := fmt.Sprintf(":%04X", c.LocalAddr().(*net.TCPAddr).Port)
	unread := func() bool {
		table, err := os.ReadFile("/proc/net/tcp")
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(string(table)) {
			// sl local_address rem_address st tx_queue:rx_queue ...
			f := strings.Fields(line)
			if len(f) > 4 && strings.HasSuffix(f[1], server) && strings.HasSuffix(f[2], client) {
				return !strings.HasSuffix(f[4], ":00000000")
			}
		}
		return false
	}
	deadline := time.Now().Add(waitCeiling)
	for unacked() > 0 || unread() {
		if time.Now().After(deadline) {
			t.Fatalf("the server did not read what was sent in %v", waitCeiling)
		}
		time.Sleep(time.Millisecond)
	}
}
