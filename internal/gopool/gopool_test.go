package gopool

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// waitIdle waits until p holds n idle goroutines.
func waitIdle(t *testing.T, p *Pool, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		p.mu.Lock()
		got := len(p.idle)
		p.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("idle goroutines: %d, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestRunsEveryJob(t *testing.T) {
	var p Pool
	var wg sync.WaitGroup
	var n atomic.Int64
	for range 1000 {
		wg.Add(1)
		p.Go(func() {
			defer wg.Done()
			n.Add(1)
		})
	}
	wg.Wait()
	if n.Load() != 1000 {
		t.Fatalf("ran %d jobs, want 1000", n.Load())
	}
}

// TestReusesGoroutine: a job given after another has ended runs on the
// same goroutine, which is the point of the pool.
func TestReusesGoroutine(t *testing.T) {
	var p Pool
	ids := make(chan string, 1)
	p.Go(func() { ids <- goroutineID() })
	first := <-ids
	waitIdle(t, &p, 1)
	p.Go(func() { ids <- goroutineID() })
	if second := <-ids; second != first {
		t.Fatalf("the second job ran on goroutine %s, the first on %s", second, first)
	}
}

// goroutineID is the running goroutine's number, from the first line of
// its stack trace ("goroutine 7 [running]:").
func goroutineID() string {
	var buf [64]byte
	line := string(buf[:runtime.Stack(buf[:], false)])
	id, _, _ := strings.Cut(strings.TrimPrefix(line, "goroutine "), " ")
	return id
}

func TestMaxIdle(t *testing.T) {
	p := Pool{MaxIdle: 3}
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		p.Go(func() {
			defer wg.Done()
			<-release
		})
	}
	before := runtime.NumGoroutine()
	close(release)
	wg.Wait()
	waitIdle(t, &p, 3)
	// The seven beyond MaxIdle end.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before-7 {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines: %d, want at most %d", runtime.NumGoroutine(), before-7)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestIdleTimeout(t *testing.T) {
	p := Pool{IdleTimeout: 10 * time.Millisecond}
	done := make(chan struct{})
	p.Go(func() { close(done) })
	<-done
	waitIdle(t, &p, 1)
	time.Sleep(20 * time.Millisecond)
	// The next use ends the expired goroutine and starts a new one for
	// its job.
	done = make(chan struct{})
	p.Go(func() { close(done) })
	<-done
	waitIdle(t, &p, 1)
	p.mu.Lock()
	fresh := time.Since(p.idle[0].since) < 10*time.Millisecond
	p.mu.Unlock()
	if !fresh {
		t.Fatal("the idle goroutine is the expired one")
	}
}
