// Package gctune keeps the collector's extra memory bounded by a
// constant: a high GOGC while the live heap is small, where each cycle
// costs every response and the headroom is a few MiB, and Go's own 100 as
// the live heap grows, where a fixed percentage would hold a multiple of
// it (a 1 GiB memory cache at GOGC=400 lets the heap reach 5 GiB).
package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// minPercent is Go's default target: never collect more often than a Go
// program does by default.
const minPercent = 100

// Percent is the target that lets the heap grow max(live, floor) bytes
// past a live heap of live bytes, within [100, maxPercent]: maxPercent
// while live is small (floor*100/maxPercent or less), Go's 100 once
// live reaches floor, and in between the percentage whose headroom is
// floor.
func Percent(live, floor uint64, maxPercent int) int {
	if live == 0 {
		return maxPercent
	}
	return int(min(max(floor*minPercent/live, minPercent), uint64(maxPercent)))
}

// sentinel is the object whose finalizer marks the end of each cycle: it
// is unreachable but for its finalizer, so every cycle finds it garbage,
// queues the finalizer and resurrects it, and the finalizer re-arms
// itself. 16 bytes, so that the tiny allocator, whose blocks finalizers
// do not reliably track, leaves it alone.
type sentinel struct {
	floor      uint64
	maxPercent int
}

// Start sets the target to maxPercent and, after every collector cycle,
// to Percent of the live heap that cycle marked. The finalizer goroutine
// runs the update, once a cycle: one runtime/metrics read, and a
// SetGCPercent only when the percentage changes. It runs for the life of
// the process.
func Start(floor uint64, maxPercent int) {
	debug.SetGCPercent(maxPercent)
	runtime.SetFinalizer(&sentinel{floor: floor, maxPercent: maxPercent}, onCycle)
}

func onCycle(s *sentinel) {
	m := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/gogc:percent"}}
	metrics.Read(m)
	if p := Percent(m[0].Value.Uint64(), s.floor, s.maxPercent); uint64(p) != m[1].Value.Uint64() {
		debug.SetGCPercent(p)
	}
	runtime.SetFinalizer(s, onCycle)
}
