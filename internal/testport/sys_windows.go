package testport

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

func closeSocket(fd syscall.Handle) error { return syscall.Closesocket(fd) }

// lockNow takes f's exclusive lock without waiting; busy when another
// process holds it.
func lockNow(f *os.File) (busy bool, err error) {
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY,
		0, 1, 0, new(windows.Overlapped))
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return true, nil
	}
	return false, err
}
