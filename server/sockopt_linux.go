package server

import (
	"fmt"
	"math"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// control sets the parameters that must be set before the socket is
// bound: ipv6only (Go's tcp6 sockets are IPv6 only, NGINX's default) and
// reuseport.
func (o *SocketOpts) control(network, _ string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		if o.IPv6Only == "off" && network == "tcp6" {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 0)
		}
		if serr == nil && o.ReusePort {
			serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
		}
	})
	if err != nil {
		return err
	}
	return serr
}

// apply sets the parameters a listening socket takes at any time, as
// NGINX sets them at start and on every reload; the connections it
// accepts inherit the buffer sizes and the keep-alive probes. Those that
// o leaves unset keep the socket's values. old are the parameters it was
// opened or last applied with, so that one turned off goes back off.
func (o *SocketOpts) apply(ln net.Listener, old *SocketOpts) error {
	sc, ok := ln.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	if o == nil {
		o = &SocketOpts{}
	}
	if old == nil {
		old = &SocketOpts{}
	}
	var errs []error
	set := func(what string, level, opt, v int, fd int) {
		if err := unix.SetsockoptInt(fd, level, opt, v); err != nil {
			errs = append(errs, fmt.Errorf("setsockopt(%s, %d) failed: %w", what, v, err))
		}
	}
	err = rc.Control(func(u uintptr) {
		fd := int(u)
		if o.RcvBuf > 0 {
			set("SO_RCVBUF", unix.SOL_SOCKET, unix.SO_RCVBUF, o.RcvBuf, fd)
		}
		if o.SndBuf > 0 {
			set("SO_SNDBUF", unix.SOL_SOCKET, unix.SO_SNDBUF, o.SndBuf, fd)
		}
		switch {
		case o.KeepAlive == "on":
			set("SO_KEEPALIVE", unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1, fd)
			if o.KeepIdle > 0 {
				set("TCP_KEEPIDLE", unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, int(o.KeepIdle.Seconds()), fd)
			}
			if o.KeepIntvl > 0 {
				set("TCP_KEEPINTVL", unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, int(o.KeepIntvl.Seconds()), fd)
			}
			if o.KeepCnt > 0 {
				set("TCP_KEEPCNT", unix.IPPROTO_TCP, unix.TCP_KEEPCNT, o.KeepCnt, fd)
			}
		case o.KeepAlive == "off" || old.KeepAlive == "on":
			set("SO_KEEPALIVE", unix.SOL_SOCKET, unix.SO_KEEPALIVE, 0, fd)
		}
		if o.Deferred || old.Deferred {
			// A second of waiting for data, as NGINX asks for.
			set("TCP_DEFER_ACCEPT", unix.IPPROTO_TCP, unix.TCP_DEFER_ACCEPT, b2i(o.Deferred), fd)
		}
		if o.FastOpen > 0 || old.FastOpen > 0 {
			set("TCP_FASTOPEN", unix.IPPROTO_TCP, unix.TCP_FASTOPEN, o.FastOpen, fd)
		}
		if o.Backlog > 0 || old.Backlog > 0 {
			// listen() again on a listening socket sets its queue's
			// length; a backlog dropped goes back to the default, as
			// NGINX listens again with its own: Go's, net.core.somaxconn,
			// to which the kernel lowers any larger value.
			backlog := o.Backlog
			if backlog <= 0 {
				backlog = math.MaxInt32
			}
			if err := unix.Listen(fd, backlog); err != nil {
				errs = append(errs, fmt.Errorf("listen() with backlog %d failed: %w", backlog, err))
			}
		}
	})
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
