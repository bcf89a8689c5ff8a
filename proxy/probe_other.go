//go:build !unix

package proxy

// probeFD cannot read the idle socket without waiting here (Windows' Go
// sockets have no non-blocking read outside the runtime's poller): the
// connection counts as silent, and an origin's close shows when it is
// reused, as with a connection that is not a socket.
func (c *conn) probeFD(uintptr) { c.silent = true }
