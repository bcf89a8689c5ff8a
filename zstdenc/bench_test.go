package zstdenc

import (
	"fmt"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/mosaic-edge/mosaic/internal/cputime"
)

func reactDOM(b *testing.B) []byte {
	body := corpus(b)["react-dom.development.js"]
	if body == nil {
		b.Skip("react-dom.development.js missing from the corpus")
	}
	return body
}

// BenchmarkEncode compresses react-dom whole, reporting the size.
func BenchmarkEncode(b *testing.B) {
	body := reactDOM(b)
	enc, err := NewEncoder(Options{})
	if err != nil {
		b.Fatal(err)
	}
	var out []byte
	b.SetBytes(int64(len(body)))
	cpu := cpuTime()
	for b.Loop() {
		out = enc.Encode(out[:0], body)
	}
	reportCPU(b, cpu, len(body))
	b.ReportMetric(float64(len(out)), "bytes")
}

// BenchmarkKlauspostBest is the reference: klauspost/compress at its best
// level (what compress serves zstd levels 10-22 with), serially.
func BenchmarkKlauspostBest(b *testing.B) {
	body := reactDOM(b)
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		b.Fatal(err)
	}
	var out []byte
	b.SetBytes(int64(len(body)))
	cpu := cpuTime()
	for b.Loop() {
		out = enc.EncodeAll(body, out[:0])
	}
	reportCPU(b, cpu, len(body))
	b.ReportMetric(float64(len(out)), "bytes")
}

// cpuTime is the process's CPU time so far: on a machine shared with other
// work, a benchmark's CPU time per operation moves far less than its wall
// time.
func cpuTime() time.Duration {
	user, sys, _ := cputime.Process()
	return user + sys
}

// reportCPU reports the CPU time per operation since start, and per byte
// of an n-byte input.
func reportCPU(b *testing.B, start time.Duration, n int) {
	d := cpuTime() - start
	b.ReportMetric(float64(d.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(d.Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/B")
}

// BenchmarkSegment compresses the second half of react-dom as the last
// piece of a frame, given none, half, or all of the first half as its
// prefix: what entering a prefix costs.
func BenchmarkSegment(b *testing.B) {
	body := reactDOM(b)
	half := len(body) / 2
	for _, prefix := range []int{0, half / 2, half} {
		b.Run(fmt.Sprintf("prefix=%d", prefix), func(b *testing.B) {
			benchSegment(b, body[half:], Segment{Last: true, Prefix: body[half-prefix : half], ContentSize: int64(len(body))})
		})
	}
}

// benchSegment compresses in as segment s on one encoder, reporting the
// CPU time and the piece's size.
func benchSegment(b *testing.B, in []byte, s Segment) {
	enc, err := NewEncoder(Options{})
	if err != nil {
		b.Fatal(err)
	}
	var out []byte
	cpu := cpuTime()
	for b.Loop() {
		out = enc.EncodeSegment(out[:0], in, s)
	}
	reportCPU(b, cpu, len(in))
	b.ReportMetric(float64(len(out)), "bytes")
}

// BenchmarkSegmentCut compresses react-dom's two pieces as compress cuts
// it in 512k segments at levels 10-22: the first 589,824 bytes starting
// the frame, and the rest primed with the 294,912 bytes before it (half
// the longest segment). On two CPUs the response waits for the slower.
func BenchmarkSegmentCut(b *testing.B) {
	body := reactDOM(b)
	const first, prefix = 589_824, 294_912
	for _, c := range []struct {
		name string
		in   []byte
		s    Segment
	}{
		{"first", body[:first], Segment{First: true, ContentSize: int64(len(body))}},
		{"second", body[first:], Segment{Last: true, Prefix: body[first-prefix : first], ContentSize: int64(len(body))}},
	} {
		b.Run(c.name, func(b *testing.B) { benchSegment(b, c.in, c.s) })
	}
}
