package main

import (
	"fmt"
	"io"
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
// the server's receive queue), then until that queue (peerUnread) is
// empty. It replaces a 200 ms sleep, which a loaded machine could
// outlast.
func waitPeerRead(t *testing.T, c *net.TCPConn) {
	t.Helper()
	deadline := time.Now().Add(waitCeiling)
	for unacked(t, c) > 0 || peerUnread(t, c) {
		if time.Now().After(deadline) {
			t.Fatalf("the server did not read what was sent in %v", waitCeiling)
		}
		time.Sleep(time.Millisecond)
	}
}

// unacked is how many bytes sent on c its peer's kernel has not
// acknowledged (SIOCOUTQ).
func unacked(t *testing.T, c *net.TCPConn) (n int) {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var ierr error
	if err := rc.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), unix.SIOCOUTQ) }); err != nil {
		t.Fatal(err)
	}
	if ierr != nil {
		t.Fatalf("SIOCOUTQ: %v", ierr)
	}
	return n
}

// peerUnread says whether the server's socket of c holds received bytes
// its process has not read: rx_queue of the socket whose local port is
// c's remote one and remote port c's local one, in /proc/net/tcp or, for
// a server listening on both families ([::], as Go's ":port"), where c's
// IPv4 connection is an IPv4-mapped one, /proc/net/tcp6. A server socket
// listed in neither was closed: nothing is left to read there.
func peerUnread(t *testing.T, c *net.TCPConn) bool {
	t.Helper()
	// The tables write ports as four hex digits, after the address.
	server := fmt.Sprintf(":%04X", c.RemoteAddr().(*net.TCPAddr).Port)
	client := fmt.Sprintf(":%04X", c.LocalAddr().(*net.TCPAddr).Port)
	for _, path := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		table, err := os.ReadFile(path)
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
	}
	return false
}

// TestPeerUnreadSeesTheServerSocket: the helper finds the server's socket
// of a connection, whichever family it listens on, and tells bytes left
// unread from bytes read; a socket it failed to find would read as
// "read" at once, and sendThenWait would not wait.
func TestPeerUnreadSeesTheServerSocket(t *testing.T) {
	t.Parallel()
	for _, listen := range []struct{ network, addr string }{{"tcp4", "127.0.0.1:0"}, {"tcp", "[::]:0"}} {
		ln, err := net.Listen(listen.network, listen.addr)
		if err != nil {
			t.Fatalf("%s: %v", listen.addr, err)
		}
		defer ln.Close()
		dc, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", ln.Addr().(*net.TCPAddr).Port))
		if err != nil {
			t.Fatal(err)
		}
		defer dc.Close()
		c := dc.(*net.TCPConn)
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := c.Write([]byte("abc")); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(waitCeiling); unacked(t, c) > 0; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: sent bytes not acknowledged in %v", listen.addr, waitCeiling)
			}
		}
		if !peerUnread(t, c) {
			t.Errorf("%s: 3 bytes the server has not read were not seen", listen.addr)
		}
		if _, err := io.ReadFull(s, make([]byte, 3)); err != nil {
			t.Fatal(err)
		}
		if peerUnread(t, c) {
			t.Errorf("%s: bytes the server read are still seen unread", listen.addr)
		}
	}
}
