package main

import (
	"runtime/metrics"

	"github.com/mosaic-edge/mosaic/internal/gctune"
)

// maxGCPercent and gcHeadroom are mosaic's collector policy when the
// operator sets neither GOGC nor GOMEMLIMIT. An edge server's live heap
// is usually small (the configuration, pooled encoders and buffers: a
// few MiB) while every response allocates, so at Go's default of 100 a
// cycle, which marks that whole live heap, comes every 4 MiB allocated
// and costs each small response thousands of instructions; 400 makes
// cycles four times rarer for a 16 MiB heap goal (the measurements:
// server README, "Garbage collection"). But a live heap can be large too
// (the memory cache store's bodies, big maps), and 400 would then hold
// five times it. So the target is 400 while the live heap is small and
// falls to 100 as it grows, for at most max(live, gcHeadroom) bytes past
// the live heap: 12 MiB is what 400 adds to Go's 4 MiB minimum heap, the
// headroom measured to pay for itself (about 11 MiB more peak RSS).
const (
	maxGCPercent = 400
	gcHeadroom   = 12 << 20
)

// applyGCPolicy starts mosaic's adaptive collector target unless the
// environment (getenv) holds GOGC or GOMEMLIMIT: an operator who sets
// either has chosen the collector's policy, and the runtime has already
// applied it. It reports whether mosaic's policy applies.
func applyGCPolicy(getenv func(string) string) bool {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return false
	}
	gctune.Start(gcHeadroom, maxGCPercent)
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
