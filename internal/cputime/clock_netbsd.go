package cputime

// threadClock is the clock of the calling thread's processor time:
// NetBSD's <sys/time.h> has it (0x20000000; the process's is
// 0x40000000), golang.org/x/sys/unix does not name it.
const threadClock = 0x20000000
