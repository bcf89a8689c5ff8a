package server

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/conf"
)

// SocketOpts are the socket parameters of a listen line (NGINX's
// listening options): one listen line of an address may set them.
type SocketOpts struct {
	// IPv6Only, for an IPv6 address: "on" (NGINX's default, and Go's for
	// tcp6) or "off", one socket for IPv6 and IPv4 clients.
	IPv6Only string
	// Backlog is the listen queue's length; 0 keeps the system's.
	Backlog int
	// RcvBuf and SndBuf size the socket buffers; 0 keeps the system's.
	RcvBuf, SndBuf int
	// KeepAlive: "" (NGINX's default: the system's, off on Linux), "on"
	// or "off"; with "on", the probes' idle time, interval (whole
	// seconds, 0 for the system's) and count (0 for the system's).
	KeepAlive           string
	KeepIdle, KeepIntvl time.Duration
	KeepCnt             int
	// Deferred accepts a connection only once its data has come.
	Deferred bool
	// FastOpen is the TCP Fast Open queue's length; 0 for none.
	FastOpen int
	// ReusePort sets SO_REUSEPORT.
	ReusePort bool
}

// parseSocketOpt reads p into o if it is a socket parameter of listen,
// with NGINX's errors for a bad value.
func parseSocketOpt(p string, o *SocketOpts) (ok bool, err error) {
	name, val, _ := strings.Cut(p, "=")
	switch {
	case p == "reuseport":
		o.ReusePort = true
	case p == "deferred":
		o.Deferred = true
	case name == "backlog" && strings.Contains(p, "="):
		n, err := strconv.Atoi(val)
		if err != nil || n <= 0 {
			return true, fmt.Errorf("invalid backlog %q", p)
		}
		o.Backlog = n
	case (name == "rcvbuf" || name == "sndbuf") && strings.Contains(p, "="):
		n, err := conf.ParseSize(val)
		if err != nil || n > 1<<31-1 {
			return true, fmt.Errorf("invalid %s %q", name, p)
		}
		if name == "rcvbuf" {
			o.RcvBuf = int(n)
		} else {
			o.SndBuf = int(n)
		}
	case strings.HasPrefix(p, "ipv6only=o"): // NGINX's test: "ipv6only=x" is an unknown parameter
		if val != "on" && val != "off" {
			return true, fmt.Errorf("invalid ipv6only flags %q", val)
		}
		o.IPv6Only = val
	case name == "fastopen" && strings.Contains(p, "="):
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 {
			return true, fmt.Errorf("invalid fastopen %q", p)
		}
		o.FastOpen = n
	case name == "so_keepalive" && strings.Contains(p, "="):
		if err := parseKeepAlive(val, o); err != nil {
			return true, fmt.Errorf("invalid so_keepalive value: %q", val)
		}
	default:
		return false, nil
	}
	return true, nil
}

// parseKeepAlive reads "on", "off" or "[idle]:[interval]:[count]" (the
// times in NGINX's units, at least one of the three given and not 0).
func parseKeepAlive(val string, o *SocketOpts) error {
	if val == "on" || val == "off" {
		o.KeepAlive = val
		return nil
	}
	parts := strings.SplitN(val, ":", 3)
	seconds := func(s string) (time.Duration, error) {
		if s == "" {
			return 0, nil
		}
		d, err := conf.ParseSeconds(s)
		return d.Truncate(time.Second), err
	}
	var err error
	if o.KeepIdle, err = seconds(parts[0]); err != nil {
		return err
	}
	if len(parts) > 1 {
		if o.KeepIntvl, err = seconds(parts[1]); err != nil {
			return err
		}
	}
	if len(parts) > 2 && parts[2] != "" {
		if o.KeepCnt, err = strconv.Atoi(parts[2]); err != nil || o.KeepCnt < 0 {
			return fmt.Errorf("invalid count")
		}
	}
	if o.KeepIdle == 0 && o.KeepIntvl == 0 && o.KeepCnt == 0 {
		return fmt.Errorf("nothing set")
	}
	o.KeepAlive = "on"
	return nil
}

// sameSockOpts reports whether a and b (nil for none) set the same.
func sameSockOpts(a, b *SocketOpts) bool {
	var za, zb SocketOpts
	if a != nil {
		za = *a
	}
	if b != nil {
		zb = *b
	}
	return za == zb
}

// listenSocket opens a listening socket with the parameters o (nil for
// none; a Unix socket takes none).
func listenSocket(network, addr string, o *SocketOpts) (net.Listener, error) {
	// KeepAlive -1: Go leaves the accepted connections' keep-alive probes
	// as they come from the listening socket (off unless so_keepalive
	// says otherwise), as NGINX does, instead of turning them on.
	lc := net.ListenConfig{KeepAlive: -1}
	if o == nil || network == "unix" {
		return lc.Listen(context.Background(), network, addr)
	}
	lc.Control = o.control
	ln, err := lc.Listen(context.Background(), network, addr)
	if err != nil {
		return nil, err
	}
	if err := o.apply(ln, nil); err != nil {
		_ = ln.Close()
		return nil, err
	}
	return ln, nil
}
