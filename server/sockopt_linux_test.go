package server

import (
	"net"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// sockInt reads an integer socket option of c's socket.
func sockInt(t *testing.T, c syscall.Conn, level, opt int) int {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var gerr error
	if err := rc.Control(func(fd uintptr) { v, gerr = unix.GetsockoptInt(int(fd), level, opt) }); err != nil {
		t.Fatal(err)
	}
	if gerr != nil {
		t.Fatal(gerr)
	}
	return v
}

// accepted opens a listener with o, connects to it and returns both ends'
// server side: the listener and the accepted connection.
func accepted(t *testing.T, network, addr, dial string, o *SocketOpts) (*net.TCPListener, *net.TCPConn) {
	t.Helper()
	ln, err := listenSocket(network, addr, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	c, err := net.DialTimeout("tcp", net.JoinHostPort(dial, port), 2*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", dial, err)
	}
	t.Cleanup(func() { c.Close() })
	if o != nil && o.Deferred {
		// TCP_DEFER_ACCEPT holds the connection back until data comes.
		c.Write([]byte("x"))
	}
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return ln.(*net.TCPListener), s.(*net.TCPConn)
}

// The listen line's socket parameters reach the socket, and through it
// the connections it accepts; without them, an accepted connection has no
// keep-alive probes, as NGINX's (Go would turn them on).
func TestListenSocketParameters(t *testing.T) {
	_, plain := accepted(t, "tcp4", "127.0.0.1:0", "127.0.0.1", nil)
	if v := sockInt(t, plain, unix.SOL_SOCKET, unix.SO_KEEPALIVE); v != 0 {
		t.Errorf("no so_keepalive: SO_KEEPALIVE %d, want 0", v)
	}

	o := &SocketOpts{KeepAlive: "on", KeepIdle: 30 * time.Minute, KeepIntvl: 10 * time.Second, KeepCnt: 5,
		RcvBuf: 64 << 10, SndBuf: 128 << 10, Backlog: 7, Deferred: true, FastOpen: 3}
	ln, c := accepted(t, "tcp4", "127.0.0.1:0", "127.0.0.1", o)
	for _, tc := range []struct {
		what       string
		level, opt int
		want       int
	}{
		{"SO_KEEPALIVE", unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1},
		{"TCP_KEEPIDLE", unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, 1800},
		{"TCP_KEEPINTVL", unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, 10},
		{"TCP_KEEPCNT", unix.IPPROTO_TCP, unix.TCP_KEEPCNT, 5},
		{"SO_RCVBUF", unix.SOL_SOCKET, unix.SO_RCVBUF, 2 * 64 << 10}, // Linux doubles it
		{"SO_SNDBUF", unix.SOL_SOCKET, unix.SO_SNDBUF, 2 * 128 << 10},
	} {
		if v := sockInt(t, c, tc.level, tc.opt); v != tc.want {
			t.Errorf("accepted connection: %s %d, want %d", tc.what, v, tc.want)
		}
	}
	if v := sockInt(t, ln, unix.IPPROTO_TCP, unix.TCP_DEFER_ACCEPT); v == 0 {
		t.Error("deferred: TCP_DEFER_ACCEPT not set on the listening socket")
	}
	if v := sockInt(t, ln, unix.IPPROTO_TCP, unix.TCP_FASTOPEN); v != 3 {
		t.Errorf("fastopen=3: TCP_FASTOPEN %d", v)
	}
	rc, _ := ln.SyscallConn()
	var info *unix.TCPInfo
	rc.Control(func(fd uintptr) { info, _ = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO) })
	if info == nil || info.Sacked != 7 { // a listening socket's queue length
		t.Errorf("backlog=7: TCP_INFO %+v", info)
	}

	// A reload that drops so_keepalive and deferred turns them off on the
	// kept socket: its next connections have no probes.
	if err := (&SocketOpts{}).apply(ln, o); err != nil {
		t.Fatal(err)
	}
	if v := sockInt(t, ln, unix.SOL_SOCKET, unix.SO_KEEPALIVE); v != 0 {
		t.Errorf("after the reload: SO_KEEPALIVE %d", v)
	}
	if v := sockInt(t, ln, unix.IPPROTO_TCP, unix.TCP_DEFER_ACCEPT); v != 0 {
		t.Errorf("after the reload: TCP_DEFER_ACCEPT %d", v)
	}
	// backlog dropped too: the queue is the default's again, as NGINX
	// listens again with its default when the backlog changes.
	rc.Control(func(fd uintptr) { info, _ = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO) })
	if info == nil || info.Sacked == 7 {
		t.Errorf("after the reload without backlog: TCP_INFO %+v", info)
	}
}

// ipv6only=off makes an IPv6 wildcard socket take IPv4 clients too; by
// default (on, as NGINX's) it does not.
func TestListenIPv6OnlyOff(t *testing.T) {
	if ln, err := net.Listen("tcp6", "[::1]:0"); err != nil {
		t.Skip("no IPv6 here:", err)
	} else {
		ln.Close()
	}
	_, c := accepted(t, "tcp6", "[::]:0", "127.0.0.1", &SocketOpts{IPv6Only: "off"})
	if got := c.RemoteAddr().(*net.TCPAddr).IP; !got.Equal(net.IPv4(127, 0, 0, 1)) {
		t.Errorf("client %v", got)
	}
	ln, err := listenSocket("tcp6", "[::]:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	if c, err := net.DialTimeout("tcp4", "127.0.0.1:"+port, time.Second); err == nil {
		c.Close()
		t.Error("an IPv4 client reached an IPv6-only socket")
	}
}
