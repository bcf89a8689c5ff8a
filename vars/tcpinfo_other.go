//go:build !linux

package vars

import "syscall"

// tcpInfo reports nothing where mosaic does not read TCP_INFO: NGINX
// has no $tcpinfo_* values there either.
func tcpInfo(syscall.RawConn) (v [4]uint32, ok bool) { return v, false }
