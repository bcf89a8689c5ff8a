// Package shared keeps what several configurations use at once (a cache
// zone's store, a limit zone's counters): opened once per signature,
// handed to every configuration that declares it alike, and closed when
// the last of them is retired. A reload thus keeps what such a zone
// holds, as NGINX keeps its shared memory zones, and never opens a
// directory or a Redis connection twice.
package shared

import (
	"io"
	"sync"
)

// Registry holds values by signature, counting who holds them.
type Registry[T io.Closer] struct {
	mu sync.Mutex
	m  map[string]*entry[T]
}

type entry[T io.Closer] struct {
	v    T
	refs int
}

// Acquire returns the value under sig, made with open when nobody holds
// one. Each successful Acquire is matched by a Release.
func (r *Registry[T]) Acquire(sig string, open func() (T, error)) (T, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.m[sig]; ok {
		e.refs++
		return e.v, nil
	}
	v, err := open()
	if err != nil {
		return v, err
	}
	if r.m == nil {
		r.m = make(map[string]*entry[T])
	}
	r.m[sig] = &entry[T]{v: v, refs: 1}
	return v, nil
}

// Release gives back one hold on sig and closes the value when it was the
// last.
func (r *Registry[T]) Release(sig string) error {
	r.mu.Lock()
	e, ok := r.m[sig]
	if !ok {
		r.mu.Unlock()
		return nil
	}
	e.refs--
	last := e.refs == 0
	if last {
		delete(r.m, sig)
	}
	r.mu.Unlock()
	if !last {
		return nil
	}
	return e.v.Close()
}
