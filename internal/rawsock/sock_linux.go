//go:build linux && !386 && !s390x

package rawsock

import (
	"syscall"
	"unsafe"
)

// Reads and writes are recvfrom and sendto without an address, which on
// a connected socket do what read and write do, straight in the socket
// layer: read and write pass first through the file layer's checks (the
// file position's lock, the permission and fsnotify hooks), about 5% of
// a call that finds nothing on the VM of fastcgi/README.md's
// twenty-second pass. MSG_NOSIGNAL makes a write to a connection the
// peer has closed fail with EPIPE without the kernel raising SIGPIPE,
// which Go's runtime would catch and ignore for a socket, or hand to a
// program that asked for it with signal.Notify, as if a pipe of its own
// had broken. (Go's Linux on 386 and s390x reaches these through
// socketcall: their kernels had no direct recvfrom, sendto or sendmsg
// before 4.3, and Go runs on kernels from 3.2. They keep sock_plain.go.)
const (
	sysRead    = syscall.SYS_RECVFROM
	sysWrite   = syscall.SYS_SENDTO
	writeFlags = syscall.MSG_NOSIGNAL
)

// writev is sendmsg with MSG_NOSIGNAL, as a write is sendto: writev has
// no flags. The header stays on the stack: syscall6 is RawSyscall6,
// which does not grow the stack between its address's conversion and
// the call.
func writev(fd int, iov []syscall.Iovec) (uintptr, syscall.Errno) {
	m := syscall.Msghdr{Iov: &iov[0]}
	setLen(&m.Iovlen, len(iov))
	n, _, e := syscall6(syscall.SYS_SENDMSG, uintptr(fd), uintptr(unsafe.Pointer(&m)), writeFlags, 0, 0, 0)
	return n, e
}

// setLen sets a length whose width is the architecture's.
func setLen[T uint32 | uint64](p *T, n int) { *p = T(n) }
