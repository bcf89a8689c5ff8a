package rawsock

import "syscall"

// syscall6 makes a system call that returns at once: the scheduler is not
// told.
var syscall6 = syscall.RawSyscall6
