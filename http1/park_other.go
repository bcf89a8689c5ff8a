//go:build !linux

package http1

// Without epoll a connection waits for its next request on a goroutine
// (see park_linux.go).

func (c *conn) park() bool { return false }

// wake has nothing to wake: no connection is ever parked.
func (c *conn) wake() {}
