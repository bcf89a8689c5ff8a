package limit

import (
	"context"
	"sync"
)

// connStore counts the requests in progress per key of a zone.
type connStore interface {
	// acquire counts one more request of key unless max are in progress
	// (codeBusy) or the zone has no room for a new key (codeError);
	// release uncounts it.
	acquire(ctx context.Context, key string, max int) (c code, release func())
}

// memConn is a connection zone in memory. A key is forgotten when its
// last request ends; a full zone refuses new keys, as NGINX's does.
type memConn struct {
	capacity int64

	mu    sync.Mutex
	used  int64
	nodes map[string]int
}

func newMemConn(size int64) *memConn {
	return &memConn{capacity: zoneCapacity(size), nodes: map[string]int{}}
}

// connNodeCost is what a key of n bytes takes in NGINX's zone: the tree
// node's header (32 bytes), 4 bytes of state and the key, in a slab chunk.
func connNodeCost(n int) int64 { return slabChunk(32 + 4 + n) }

func (z *memConn) acquire(_ context.Context, key string, max int) (code, func()) {
	z.mu.Lock()
	defer z.mu.Unlock()
	n, ok := z.nodes[key]
	if !ok {
		cost := connNodeCost(len(key))
		if z.used+cost > z.capacity {
			return codeError, nil
		}
		z.used += cost
	} else if n >= max {
		return codeBusy, nil
	}
	z.nodes[key] = n + 1
	var once sync.Once
	return codeOK, func() { once.Do(func() { z.release(key) }) }
}

func (z *memConn) release(key string) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if n := z.nodes[key] - 1; n > 0 {
		z.nodes[key] = n
		return
	}
	delete(z.nodes, key)
	z.used -= connNodeCost(len(key))
}

// count returns the requests of key in progress.
func (z *memConn) count(key string) int {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.nodes[key]
}
