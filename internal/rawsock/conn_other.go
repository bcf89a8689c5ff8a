//go:build !unix

package rawsock

import "net"

// Wrap returns c itself: there are no raw sockets here.
func Wrap(c net.Conn) net.Conn { return c }
