package main

import (
	"runtime/debug"
	"runtime/metrics"
)

// defaultGCPercent is the collector's target mosaic sets when the
// operator sets neither GOGC nor GOMEMLIMIT. An edge server's live heap
// is small (the configuration, pooled encoders and buffers: a few MiB)
// while every response allocates, so at Go's default of 100 a cycle,
// which marks that whole live heap, comes every few MiB allocated and
// costs each small response thousands of instructions; at 400 cycles
// come four times less often for a heap goal of five times the live
// heap, still tens of MiB (the measurements: server README, "Garbage
// collection").
const defaultGCPercent = 400

// applyGCPolicy sets mosaic's collector target unless the environment
// (getenv) holds GOGC or GOMEMLIMIT: an operator who sets either has
// chosen the collector's policy, and the runtime has already applied it.
// It reports whether mosaic's default applied.
func applyGCPolicy(getenv func(string) string) bool {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(defaultGCPercent)
	return true
}

// gcSettings reads back the collector's target percentage and soft
// memory limit in force, whoever set them, for the start-up line: -1 for
// GOGC=off, and 0 for no limit.
func gcSettings() (gogc, memLimit int64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	gogc = int64(s[0].Value.Uint64()) // GOGC=off reads as -1
	if l := s[1].Value.Uint64(); l < 1<<63-1 {
		memLimit = int64(l)
	}
	return gogc, memLimit
}
