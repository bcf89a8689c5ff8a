//go:build unix && !netbsd

package cputime

import "golang.org/x/sys/unix"

// threadClock is the clock of the calling thread's processor time.
const threadClock = unix.CLOCK_THREAD_CPUTIME_ID
