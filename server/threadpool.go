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
type ThreadPool struct {
	Name     string
	Threads  int
	MaxQueue int

	used      bool // a location of the configuration submits to it
	tasks     chan func()
	closeOnce sync.Once
	mu        sync.RWMutex
	closed    bool
	wg        sync.WaitGroup
}

// NewThreadPool starts a pool.
func NewThreadPool(name string, threads, maxQueue int) *ThreadPool {
	p := &ThreadPool{Name: name, Threads: threads, MaxQueue: maxQueue, tasks: make(chan func(), maxQueue)}
	p.wg.Add(threads)
	for range threads {
		go func() {
			defer p.wg.Done()
			for f := range p.tasks {
				f()
			}
		}()
	}
	return p
}

// Submit queues f, or fails at once when the queue is full.
func (p *ThreadPool) Submit(f func()) error {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.closed {
		return ErrPoolClosed
	}
	select {
	case p.tasks <- f:
		return nil
	default:
		return ErrQueueFull
	}
}

// Close lets queued tasks finish and stops the workers.
func (p *ThreadPool) Close() {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		close(p.tasks)
		p.mu.Unlock()
		p.wg.Wait()
	})
}
