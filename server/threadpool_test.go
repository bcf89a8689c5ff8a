package server

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// runOne runs a task on p and waits for it.
func runOne(t *testing.T, p *ThreadPool) {
	t.Helper()
	done := make(chan struct{})
	if err := p.Submit(func() { close(done) }); err != nil {
		t.Fatal(err)
	}
	<-done
}

// submitBlocked submits n tasks that wait for block to close, each of
// which p must accept, counted in wg.
func submitBlocked(t *testing.T, p *ThreadPool, n int, block <-chan struct{}, wg *sync.WaitGroup) {
	t.Helper()
	for i := range n {
		wg.Add(1)
		if err := p.Submit(func() { <-block; wg.Done() }); err != nil {
			t.Fatalf("task %d: %v", i+1, err)
		}
	}
}

// acceptsThenRefuses checks that p accepts n tasks that block and
// refuses the next, then lets them finish.
func acceptsThenRefuses(t *testing.T, p *ThreadPool, n int) {
	t.Helper()
	block := make(chan struct{})
	var wg sync.WaitGroup
	submitBlocked(t, p, n, block, &wg)
	if err := p.Submit(func() {}); err != ErrQueueFull {
		t.Fatalf("task %d: %v, want ErrQueueFull", n+1, err)
	}
	close(block)
	wg.Wait()
}

// TestThreadPoolIdle holds an idle pool to a small footprint: the default
// pool's 65536 slots are not made until tasks wait in them (a buffer of
// pointers that size is scanned on every garbage collection), and its
// workers not started until the first task.
func TestThreadPoolIdle(t *testing.T) {
	goroutines := runtime.NumGoroutine()
	p := NewThreadPool("idle", 32, 65536)
	if p.queue != nil || p.started {
		t.Fatalf("an idle pool has a queue of %d slots, started %v", len(p.queue), p.started)
	}
	if n := runtime.NumGoroutine() - goroutines; n >= 32 {
		t.Fatalf("an idle pool started %d goroutines", n)
	}
	runOne(t, p)
	p.Close()
	NewThreadPool("never", 4, 8).Close() // closes at once
}

// TestThreadPoolIdleWorkersTake counts max_queue as NGINX does: tasks
// that idle workers are about to take do not wait, so an idle pool of 4
// threads with max_queue=1 takes 5 tasks at once and refuses the sixth.
func TestThreadPoolIdleWorkersTake(t *testing.T) {
	p := NewThreadPool("four", 4, 1)
	defer p.Close()
	runOne(t, p)
	for idle := 0; idle < 4; {
		time.Sleep(time.Millisecond)
		p.mu.Lock()
		idle = p.idle
		p.mu.Unlock()
	}
	acceptsThenRefuses(t, p, 5)
}

// TestThreadPoolNoQueue: max_queue=0 (NGINX takes it) runs a task only
// on an idle thread.
func TestThreadPoolNoQueue(t *testing.T) {
	cfg := mustLoad(t, "thread_pool none threads=2 max_queue=0;")
	p, _ := cfg.ThreadPool("none")
	acceptsThenRefuses(t, p, 2) // both threads busy, the third refused
}

// TestThreadPoolHugeQueue: a max_queue near the int's limit (NGINX takes
// any) accepts tasks; its sum with the idle workers must not overflow.
func TestThreadPoolHugeQueue(t *testing.T) {
	cfg := mustLoad(t, "thread_pool big threads=4 max_queue=9223372036854775807;")
	p, _ := cfg.ThreadPool("big")
	runOne(t, p)
}

// TestThreadPoolRingLetGo: a burst's ring is not kept once it empties.
func TestThreadPoolRingLetGo(t *testing.T) {
	p := NewThreadPool("burst", 1, 100)
	defer p.Close()
	block := make(chan struct{})
	var wg sync.WaitGroup
	submitBlocked(t, p, 60, block, &wg)
	p.mu.Lock()
	size := len(p.queue)
	p.mu.Unlock()
	if size < 59 {
		t.Fatalf("a ring of %d slots for 59 waiting tasks", size)
	}
	close(block)
	wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.queue != nil {
		t.Fatalf("the emptied ring keeps %d slots", len(p.queue))
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
