// Package cputime measures the processor time a piece of work takes on
// its own thread. Tests that compare the cost of two inputs (is this walk
// linear?) use it rather than the wall clock: on a loaded machine a run
// of a few milliseconds is preempted more often than one of a few hundred
// microseconds, and the wall clock charges it the time other processes
// ran, which no number of repeats reliably takes out. Process gives the
// whole process's user and system time, for benchmarks that report a
// server's CPU per request. On Windows both come from the system's
// thread and process times, counted in ticks of the scheduler's clock
// (about 15.6 ms), so only long runs are worth comparing there.
package cputime

import (
	"runtime"
	"time"
)

// Of runs f on a thread of its own for the call and returns the processor
// time that thread spent in it: preemption and other goroutines' work do
// not count, the garbage collector's assists that f's allocations cause do.
func Of(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := now()
	f()
	return now() - start
}

// Least runs each of fs repeats times, in turn (so that a phase of the
// machine's load falls on all of them alike), and returns each one's
// least processor time: what it costs when nothing else evicts its data.
func Least(repeats int, fs ...func()) []time.Duration {
	least := make([]time.Duration, len(fs))
	for r := range repeats {
		for i, f := range fs {
			if d := Of(f); r == 0 || d < least[i] {
				least[i] = d
			}
		}
	}
	return least
}
