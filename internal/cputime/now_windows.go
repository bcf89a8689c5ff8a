package cputime

import (
	"fmt"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// getThreadTimes is kernel32's GetThreadTimes, which golang.org/x/sys/windows
// does not wrap.
var getThreadTimes = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetThreadTimes")

// now is the calling thread's kernel and user time. Windows counts it in
// 100 ns units but advances it by the scheduler's tick (about 15.6 ms),
// so only work of many ticks compares well.
func now() time.Duration {
	var created, exited, kernel, user windows.Filetime
	r, _, err := getThreadTimes.Call(uintptr(windows.CurrentThread()),
		uintptr(unsafe.Pointer(&created)), uintptr(unsafe.Pointer(&exited)),
		uintptr(unsafe.Pointer(&kernel)), uintptr(unsafe.Pointer(&user)))
	if r == 0 {
		panic(fmt.Sprintf("cputime: the thread's times: %v", err))
	}
	return hundreds(kernel) + hundreds(user)
}

func hundreds(f windows.Filetime) time.Duration {
	return time.Duration(uint64(f.HighDateTime)<<32|uint64(f.LowDateTime)) * 100
}

// Process is the user and system time the whole process has spent so far,
// every thread's.
func Process() (user, sys time.Duration, err error) {
	var created, exited, kernel, usr windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &created, &exited, &kernel, &usr); err != nil {
		return 0, 0, fmt.Errorf("cputime: GetProcessTimes: %w", err)
	}
	return hundreds(usr), hundreds(kernel), nil
}
