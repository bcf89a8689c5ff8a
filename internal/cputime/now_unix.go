//go:build unix

package cputime

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

func now() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(threadClock, &ts); err != nil {
		// Linux has had the clock since 2.6.12: its absence is a
		// platform this package does not run on.
		panic(fmt.Sprintf("cputime: the thread's clock: %v", err))
	}
	return time.Duration(ts.Nano())
}

// Process is the user and system time the whole process has spent so far,
// every thread's.
func Process() (user, sys time.Duration, err error) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, fmt.Errorf("cputime: getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano()), nil
}
