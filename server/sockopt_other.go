//go:build !linux

package server

import (
	"errors"
	"net"
	"syscall"
)

var errSockOpts = errors.New("listen socket parameters are supported on Linux only")

func (o *SocketOpts) control(network, _ string, c syscall.RawConn) error {
	if o.IPv6Only == "off" || o.ReusePort {
		return errSockOpts
	}
	return nil
}

func (o *SocketOpts) apply(ln net.Listener, old *SocketOpts) error {
	if o != nil && *o != (SocketOpts{}) {
		return errSockOpts
	}
	return nil
}
