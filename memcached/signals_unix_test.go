//go:build unix

package memcached_test

import (
	"os"
	"syscall"
)

// sigStop and sigCont pause and resume a process.
var sigStop, sigCont os.Signal = syscall.SIGSTOP, syscall.SIGCONT
