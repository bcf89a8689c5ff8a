package cputime

// threadClock is the clock of the calling thread's processor time:
// NetBSD's <time.h> has it (0x20000000), golang.org/x/sys/unix does not
// name it.
const threadClock = 0x20000000
