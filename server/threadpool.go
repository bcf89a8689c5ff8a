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
// The queue is a ring that grows with the tasks waiting, up to what
// MaxQueue allows, and is let go when it empties, rather than a buffer of
// MaxQueue slots made up front: every configuration has the default pool
// (65536 slots), and the garbage collector scans a buffer of pointers
// that size on every cycle, used or not: a tenth of the instructions of a
// small static response (server README, thread_pool).
type ThreadPool struct {
	Name     string
	Threads  int
	MaxQueue int

	used bool // a location of the configuration submits to it

	mu    sync.Mutex
	ready sync.Cond // a task was queued, or the pool closed
	queue []func()  // a ring: n tasks from head
	head  int
	n     int
	// idle counts the workers not running a task. A queued task that an
	// idle worker will take does not count against MaxQueue: NGINX's
	// threads take one off its count of waiting tasks as they go idle.
	idle    int
	started bool // the workers run (from the first task on)
	closed  bool

	closeOnce sync.Once
	wg        sync.WaitGroup
}

// minRing is the ring's first size, and the size above which an emptied
// ring is let go.
const minRing = 16

// NewThreadPool makes a pool. Its workers start with its first task, so
// that a pool no location uses holds no goroutines: the pool default,
// which every configuration has here, where NGINX makes it only when
// something names it.
func NewThreadPool(name string, threads, maxQueue int) *ThreadPool {
	p := &ThreadPool{Name: name, Threads: threads, MaxQueue: maxQueue}
	p.ready.L = &p.mu
	return p
}

// Submit queues f, or fails at once when MaxQueue tasks wait beyond those
// the idle workers are about to take (NGINX's "thread pool queue
// overflow").
func (p *ThreadPool) Submit(f func()) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrPoolClosed
	}
	if !p.started {
		p.started, p.idle = true, p.Threads
		p.wg.Add(p.Threads)
		for range p.Threads {
			go p.work()
		}
	}
	// n-idle, not n >= MaxQueue+idle: a max_queue near the int's limit
	// must not overflow.
	if p.n-p.idle >= p.MaxQueue {
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

// grow doubles the ring (from minRing slots, at most the tasks Submit can
// accept), its tasks in order from the start.
func (p *ThreadPool) grow() {
	size := max(2*len(p.queue), minRing)
	if most := p.MaxQueue + p.Threads; most > 0 && most < size { // most < 0: past the int's limit
		size = most
	}
	q := make([]func(), size)
	k := copy(q, p.queue[p.head:])
	copy(q[k:], p.queue[:p.head])
	p.queue, p.head = q, 0
}

// work runs tasks in the order they came until the pool is closed and its
// queue empty.
func (p *ThreadPool) work() {
	defer p.wg.Done()
	p.mu.Lock()
	for {
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
		p.idle--
		if p.n == 0 && len(p.queue) > minRing {
			p.queue, p.head = nil, 0 // a burst's ring is not kept
		}
		p.mu.Unlock()
		f()
		p.mu.Lock()
		p.idle++
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
