package server

import (
	"runtime"
	"slices"
	"sync"
	"testing"
)

// TestThreadPoolQueueGrows holds an idle pool to a small footprint: the
// default pool's 65536 slots are not made until tasks wait in them (a
// buffer of pointers that size is scanned on every garbage collection).
func TestThreadPoolQueueGrows(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p := NewThreadPool("idle", 2, 65536)
	runtime.ReadMemStats(&after)
	defer p.Close()
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<10 {
		t.Fatalf("an idle pool allocated %d bytes", n)
	}
}

// TestThreadPoolOrder runs tasks in the order they came while the ring
// grows and wraps around: one worker, held busy while tasks queue, then
// let go one task at a time as more arrive.
func TestThreadPoolOrder(t *testing.T) {
	p := NewThreadPool("order", 1, 100)
	var mu sync.Mutex
	var got []int
	step := make(chan struct{})
	task := func(i int) func() {
		return func() {
			<-step
			mu.Lock()
			got = append(got, i)
			mu.Unlock()
		}
	}
	next := 0
	submit := func(n int) {
		for range n {
			if err := p.Submit(task(next)); err != nil {
				t.Fatal(err)
			}
			next++
		}
	}
	submit(20) // the ring grows from 16 to 32
	for range 10 {
		step <- struct{}{} // one task runs, its slot frees
	}
	submit(25) // past the ring's end: it wraps, then grows to 64
	for range next - 10 {
		step <- struct{}{}
	}
	p.Close()
	want := make([]int, next)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ran %v", got)
	}
}
