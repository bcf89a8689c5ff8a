package server

import (
	"errors"
	"sync"
)

// ErrQueueFull is returned by ThreadPool.Submit when max_queue tasks are
// already waiting, as NGINX reports "thread pool queue overflow".
var ErrQueueFull = errors.New("thread pool queue overflow")

// ErrPoolClosed is returned by Submit after Close.
var ErrPoolClosed = errors.New("thread pool closed")

// ThreadPool is a "thread_pool": a fixed number of worker goroutines
// taking tasks from a bounded queue. It bounds how much CPU-heavy work
// (compression of large bodies) runs at once, independently of the number
// of requests in flight.
//
// The queue is a ring that grows with the tasks waiting, up to MaxQueue,
// rather than a buffer of MaxQueue slots made up front: every
// configuration has the default pool (65536 slots), and the garbage
// collector scans a buffer of pointers that size on every cycle, used or
// not: a tenth of the instructions of a small static response (server
// README, thread_pool).
type ThreadPool struct {
	Name     string
	Threads  int
	MaxQueue int

	used bool // a location of the configuration submits to it

	mu     sync.Mutex
	ready  sync.Cond // a task was queued, or the pool closed
	queue  []func()  // a ring: n tasks from head
	head   int
	n      int
	closed bool

	closeOnce sync.Once
	wg        sync.WaitGroup
}

// NewThreadPool starts a pool.
func NewThreadPool(name string, threads, maxQueue int) *ThreadPool {
	p := &ThreadPool{Name: name, Threads: threads, MaxQueue: maxQueue}
	p.ready.L = &p.mu
	p.wg.Add(threads)
	for range threads {
		go p.work()
	}
	return p
}

// Submit queues f, or fails at once when MaxQueue tasks are waiting for a
// worker (as NGINX counts them: a task waits until a thread takes it).
func (p *ThreadPool) Submit(f func()) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.closed:
		return ErrPoolClosed
	case p.n >= p.MaxQueue:
		return ErrQueueFull
	}
	if p.n == len(p.queue) {
		p.grow()
	}
	p.queue[(p.head+p.n)%len(p.queue)] = f
	p.n++
	p.ready.Signal()
	return nil
}

// grow doubles the ring (from 16, at most MaxQueue slots), its tasks in
// order from the start.
func (p *ThreadPool) grow() {
	q := make([]func(), min(max(2*len(p.queue), 16), p.MaxQueue))
	k := copy(q, p.queue[p.head:])
	copy(q[k:], p.queue[:p.head])
	p.queue, p.head = q, 0
}

// work runs tasks in the order they came until the pool is closed and its
// queue empty.
func (p *ThreadPool) work() {
	defer p.wg.Done()
	for {
		p.mu.Lock()
		for p.n == 0 && !p.closed {
			p.ready.Wait()
		}
		if p.n == 0 {
			p.mu.Unlock()
			return
		}
		f := p.queue[p.head]
		p.queue[p.head] = nil // the task's closure is not kept past its run
		p.head = (p.head + 1) % len(p.queue)
		p.n--
		p.mu.Unlock()
		f()
	}
}

// Close lets queued tasks finish and stops the workers.
func (p *ThreadPool) Close() {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		p.ready.Broadcast()
		p.mu.Unlock()
		p.wg.Wait()
	})
}
