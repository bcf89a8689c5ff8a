//go:build unix

package proxy

import (
	"syscall"

	"github.com/mosaic-edge/mosaic/internal/rawsock"
)

// probeFD reads the idle socket fd once: nothing to read (EAGAIN) is the
// only answer of a connection still open and silent.
func (c *conn) probeFD(fd uintptr) {
	_, err := rawsock.Read(int(fd), c.probeBuf[:])
	c.silent = err == syscall.EAGAIN
}
