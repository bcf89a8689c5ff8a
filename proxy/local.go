package proxy

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
)

// sockOpts are the socket settings a connection to an upstream was
// opened with: the local address it is bound to (proxy_bind), whether the
// bind is transparent, and SO_KEEPALIVE (proxy_socket_keepalive). They
// are part of connID, so that a kept-alive connection serves only
// requests that would have opened it the same way.
type sockOpts struct {
	local       netip.AddrPort // zero: not bound
	transparent bool
	keepalive   bool
}

// ParseLocal reads a local address as proxy_bind takes it: an IP
// address, or an address and port ("192.0.2.1", "192.0.2.1:4000",
// "2001:db8::1", "[2001:db8::1]:4000"). Port 0, or none, lets the system
// choose one. Host names are not addresses.
func ParseLocal(s string) (netip.AddrPort, error) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), nil
	}
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	if err != nil || a.Zone() != "" {
		return netip.AddrPort{}, errors.New("invalid address \"" + s + "\"")
	}
	return netip.AddrPortFrom(a.Unmap(), 0), nil
}

// localFor returns the socket settings of a connection for r: the bind
// address evaluated for it, which a value that is empty or not an
// address leaves unbound (NGINX logs the latter and connects unbound).
func (h *Handler) localFor(r *http.Request) sockOpts {
	s := h.sock
	if h.bind == nil {
		return s
	}
	v := h.bind(r)
	if v == "" {
		return s
	}
	ap, err := ParseLocal(v)
	if err != nil {
		h.log.Error("invalid local address \"" + v + "\"")
		return s
	}
	s.local = ap
	return s
}

// dialer returns the dialer of a connection with settings s to network.
func (h *Handler) dialer(network string, s sockOpts) net.Dialer {
	d := net.Dialer{Timeout: h.connectTimeout}
	if network != "tcp" {
		return d
	}
	if s.keepalive {
		// SO_KEEPALIVE alone: the probes' timing stays the system's
		// (net.ipv4.tcp_keepalive_*), as NGINX leaves it.
		d.KeepAliveConfig = net.KeepAliveConfig{Enable: true, Idle: -1, Interval: -1, Count: -1}
	} else {
		// Go turns keepalive on for every TCP connection unless told not to.
		d.KeepAlive = -1
	}
	if s.local.IsValid() {
		d.LocalAddr = net.TCPAddrFromAddrPort(s.local)
		if s.transparent {
			d.Control = transparent
		}
	}
	return d
}

// transparent is the dialer's Control for a transparent bind: the socket
// may take a local address that is not the host's (IP_TRANSPARENT, which
// needs CAP_NET_ADMIN).
func transparent(network, _ string, c syscall.RawConn) error {
	var serr error
	if err := c.Control(func(fd uintptr) { serr = setTransparent(int(fd), network) }); err != nil {
		return err
	}
	return serr
}
