//go:build unix

package testport

import (
	"errors"
	"os"
	"syscall"
)

func closeSocket(fd int) error { return syscall.Close(fd) }

// lockNow takes f's exclusive lock without waiting; busy when another
// process holds it.
func lockNow(f *os.File) (busy bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}
