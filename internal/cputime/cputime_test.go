package cputime

import (
	"testing"
	"time"
)

// spin returns work that keeps the processor busy for d of the thread's
// own time, however long that takes on the wall clock.
func spin(d time.Duration) func() {
	return func() {
		for start := now(); now()-start < d; {
		}
	}
}

// TestOfCountsWorkNotWaiting: sleeping costs the thread no processor
// time, spinning costs the time spun.
func TestOfCountsWorkNotWaiting(t *testing.T) {
	if d := Of(func() { time.Sleep(50 * time.Millisecond) }); d > 10*time.Millisecond {
		t.Errorf("a 50 ms sleep: %v of processor time", d)
	}
	if d := Of(spin(20 * time.Millisecond)); d < 20*time.Millisecond {
		t.Errorf("20 ms of spinning: %v", d)
	}
}

// TestLeastKeepsEachOnesLeast: each function's own least, in order.
func TestLeastKeepsEachOnesLeast(t *testing.T) {
	got := Least(3, spin(20*time.Millisecond), spin(2*time.Millisecond))
	if len(got) != 2 || got[0] < 20*time.Millisecond || got[1] < 2*time.Millisecond || got[1] >= got[0] {
		t.Errorf("least of 20 ms and 2 ms of spinning: %v", got)
	}
}
