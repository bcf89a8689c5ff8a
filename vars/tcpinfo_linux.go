package vars

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// tcpInfo asks the kernel for the connection's TCP_INFO, as NGINX does
// for $tcpinfo_*: the smoothed round-trip time and its variation (in
// microseconds), the congestion window (in segments) and the receive
// space (in bytes). ok is false for a socket that is not TCP.
func tcpInfo(rc syscall.RawConn) (v [4]uint32, ok bool) {
	err := rc.Control(func(fd uintptr) {
		ti, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
		if err != nil {
			return
		}
		v, ok = [4]uint32{ti.Rtt, ti.Rttvar, ti.Snd_cwnd, ti.Rcv_space}, true
	})
	return v, ok && err == nil
}
