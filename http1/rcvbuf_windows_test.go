package http1

import "syscall"

// setRcvBuf sets the receive buffer of socket fd.
func setRcvBuf(fd uintptr, n int) {
	_ = syscall.SetsockoptInt(syscall.Handle(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, n)
}
