package compress

import (
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/brotli"
)

// This file lends the external tests (package compress_test) the few
// internals they check the public behaviour against.

// OneShotMax is the largest Content-Length compressed in one go.
const OneShotMax = oneShotMax

// EncoderFootprint is the working memory a brotli Writer holds.
func EncoderFootprint(w *brotli.Writer) int64 { return encoderFootprint(w) }

// Settle runs pending evictions now, so that sizes can be read settled.
func (c *BodyCache) Settle() { c.settle() }

// HoldCPUSlots takes n of the slots one-shot bursts run in, as n bursts
// compressing would, until the returned function gives them back.
func HoldCPUSlots(n int) (release func()) {
	for range n {
		bursts.acquire()
	}
	return func() {
		for range n {
			bursts.release()
		}
	}
}

// Compressing is how many goroutines count as compressing (parallel.go).
func Compressing() int64 { return compressing.Load() }

// CutLength is the length of the segments a body of length bytes is cut
// into for a configured segment size.
func CutLength(segment int, length int64) int { return cutLength(segment, length) }

// CutLengths is the length of the first segment and of the others that a
// body of length bytes is cut into for coding at level (brotli: with a
// window of 2^lgwin bytes).
func CutLengths(e Encoding, level, segment, lgwin int, length int64) (first, rest int) {
	first, rest, _ = segmentLengths(e, level, segment, lgwin, length)
	return first, rest
}

// CPUTime is the process's user and system time so far.
func CPUTime(b testing.TB) time.Duration { return cpuTime(b) }
