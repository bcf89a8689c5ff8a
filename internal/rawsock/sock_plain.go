//go:build unix && (!linux || 386 || s390x)

package rawsock

import (
	"syscall"
	"unsafe"
)

// Plain read, write and writev where sock_linux.go's calls are not
// there (MSG_NOSIGNAL is Linux's; Linux on 386 and s390x has
// socketcall).
const (
	sysRead    = syscall.SYS_READ
	sysWrite   = syscall.SYS_WRITE
	writeFlags = 0
)

func writev(fd int, iov []syscall.Iovec) (uintptr, syscall.Errno) {
	n, _, e := syscall6(syscall.SYS_WRITEV, uintptr(fd), uintptr(unsafe.Pointer(&iov[0])), uintptr(len(iov)), 0, 0, 0)
	return n, e
}
