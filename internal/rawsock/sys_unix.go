//go:build unix && !linux

package rawsock

import "syscall"

// syscall6 makes a system call the ordinary way where raw calls are not
// known to be safe.
var syscall6 = syscall.Syscall6
