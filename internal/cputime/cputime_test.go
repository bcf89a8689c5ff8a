package cputime

import (
	"runtime"
	"sync"
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

// TestOfKeepsItsThread: work that sleeps between steps resumes on
// whichever thread the scheduler picks unless Of holds it on its own; the
// two readings must come from one thread's clock, which cannot count more
// than the wall time between them, nor go back. Threads that spun for
// different times beforehand make a reading on another thread show.
func TestOfKeepsItsThread(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Held so that the time spun stays on one thread, which
			// goes back to the pool once released.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			spin(time.Duration(i+1) * 30 * time.Millisecond)()
		}()
	}
	wg.Wait()
	for range 20 {
		start := time.Now()
		d := Of(func() {
			for range 10 {
				time.Sleep(time.Millisecond)
			}
		})
		if wall := time.Since(start); d < 0 || d > wall {
			t.Fatalf("%v of processor time in %v of wall time", d, wall)
		}
	}
}
