package compress

import (
	"fmt"
	"math/bits"
	"os"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/cputime"
)

// BenchmarkSegmentPieces is each segment's own work, one at a time on one
// goroutine: react-dom (its length declared) cut as a parallel response
// with 512k segments cuts it (segmentLengths), every piece primed with the
// history handOut gives it and compressed by the encoder the compressor
// makes (takeEncoder), nothing of the response around it. Counted with
// cachegrind, it says whether the segments in flight together cost the
// same, which is what cutLengths and primeCost aim at:
//
//	go test -c -o /tmp/c.test ./compress && cd compress
//	GODEBUG=cpu.rdtscp=off GOMAXPROCS=1 GOGC=off valgrind --tool=cachegrind --cache-sim=no \
//	    /tmp/c.test -test.run '^$' -test.bench 'SegmentPieces/gzip-6/piece=1$' -test.benchtime 3x   # and 1x
//
// (without the GODEBUG, the runtime's clock uses RDTSCP, which valgrind
// cannot run: about half the runs die of SIGILL, even at GOMAXPROCS 1).
//
// On a loaded machine its CPU time per piece (cpu-ms/op, the process's,
// so run it with GOMAXPROCS=1 GOGC=off) moves less than its wall time and
// counts the cache misses that instructions leave out.
func BenchmarkSegmentPieces(b *testing.B) {
	body, err := os.ReadFile("../../shared/corpus/react-dom.development.js")
	if err != nil {
		b.Skip("no ../../shared/corpus")
	}
	const size = 512 << 10
	length := int64(len(body))
	for _, c := range []struct {
		coding Encoding
		level  int
	}{{Gzip, 6}, {Zstd, 19}, {Brotli, 9}, {Brotli, 11}} {
		key := compressorKey{coding: c.coding, level: c.level, segment: size}
		switch c.coding {
		case Brotli:
			key.window = brotliWindowBits(bits.Len(DefaultBrotliWindow)-1, length)
		case Zstd:
			key.window = zstdWindowLog(length)
		}
		first, rest, _ := segmentLengths(c.coding, c.level, size, key.window, length)
		h := history(c.coding, c.level, size)
		comp := &compressor{key: key}
		for i, start := 0, 0; start < len(body); i++ {
			end := min(len(body), start+rest)
			if i == 0 {
				end = first
			}
			prefix := body[max(0, start-h):start]
			b.Run(fmt.Sprintf("%s-%d/piece=%d", c.coding, c.level, i), func(b *testing.B) {
				enc, err := comp.takeEncoder()
				if err != nil {
					b.Fatal(err)
				}
				seg := &segment{
					buf:  append(append([]byte(nil), prefix...), body[start:end]...),
					dict: len(prefix), first: i == 0, last: end == len(body),
					bodyLen: len(body), offset: start,
				}
				b.SetBytes(int64(end - start))
				cpu := cpuTime(b)
				for b.Loop() {
					seg.out = seg.out[:0]
					if err := enc.encode(seg); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64((cpuTime(b)-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
				b.ReportMetric(float64(end-start), "in-bytes")
				b.ReportMetric(float64(len(prefix)), "prefix-bytes")
				b.ReportMetric(float64(len(seg.out)), "out-bytes")
			})
			start = end
		}
	}
}

// cpuTime is the process's user and system time so far, every
// goroutine's.
func cpuTime(b testing.TB) time.Duration {
	user, sys, err := cputime.Process()
	if err != nil {
		b.Fatal(err)
	}
	return user + sys
}
