package compress_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zstd"

	"github.com/mosaic-edge/mosaic/compress"
)

// largeBody is the file LARGE_BODY names (compress/bench/scaling.sh sets
// it), else react-dom.development.js (1,080,227 bytes) from the shared
// corpus when it is there, else a generated body of the same size.
func largeBody(t testing.TB) []byte {
	if name := os.Getenv("LARGE_BODY"); name != "" {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	if data, err := os.ReadFile("../../shared/corpus/react-dom.development.js"); err == nil {
		return data
	}
	return words(1_080_227)
}

// BenchmarkParallel is the latency of one large response, serial and cut
// into segments on a pool of GOMAXPROCS workers, at gzip 6, zstd 19 and
// brotli 4 and 9.
//
//	go test ./compress -run '^$' -bench Parallel -benchtime 10x -cpu 2
func BenchmarkParallel(b *testing.B) {
	body := largeBody(b)
	pool := newTestPool(b, runtime.GOMAXPROCS(0), 64)
	for _, c := range []struct {
		coding string
		level  int
	}{{"gzip", 6}, {"zstd", 19}, {"br", 4}, {"br", 9}} {
		for _, segment := range []int{0, 256 << 10, 512 << 10} {
			name := fmt.Sprintf("%s-%d/serial", c.coding, c.level)
			if segment > 0 {
				name = fmt.Sprintf("%s-%d/segment=%dk", c.coding, c.level, segment>>10)
			}
			b.Run(name, func(b *testing.B) {
				benchLargeResponse(b, body, c.coding, c.level, pool, segment, compress.DefaultTasks)
			})
		}
	}
}

// BenchmarkParallelScaling is how one large response's latency falls with
// the CPUs given to it: the body cut for GOMAXPROCS segments (of 64 KiB at
// least, so react-dom is 15 on 16 CPUs; the first the longer at brotli 10
// and 11), all of them in flight at once on a pool of GOMAXPROCS workers,
// at gzip 6, zstd 19 and brotli 6, 9, 10 and 11. It reports the segments
// and the first's length as cut with brotli's default window. The CPUs
// are the process's (taskset), one count per run: a sub-benchmark's first
// run under -cpu takes the parent's GOMAXPROCS, and with b.Loop that run
// is the one measured. The serial rows are the same at every count; run
// them once:
//
//	go test -c -o /tmp/compress.test ./compress && cd compress
//	taskset -c 0 /tmp/compress.test -test.run '^$' -test.bench 'ParallelScaling/.*/serial' -test.benchtime 5x
//	for n in 2 4 8 16; do
//	    taskset -c 0-$((n-1)) /tmp/compress.test -test.run '^$' -test.bench 'ParallelScaling/.*/segments' -test.benchtime 5x
//	done
func BenchmarkParallelScaling(b *testing.B) {
	body := largeBody(b)
	for _, c := range []struct {
		coding string
		level  int
	}{{"gzip", 6}, {"zstd", 19}, {"br", 6}, {"br", 9}, {"br", 10}, {"br", 11}} {
		name := fmt.Sprintf("%s-%d", c.coding, c.level)
		b.Run(name+"/serial", func(b *testing.B) {
			benchLargeResponse(b, body, c.coding, c.level, nil, 0, compress.DefaultTasks)
		})
		b.Run(name+"/segments", func(b *testing.B) {
			// -cpu sets GOMAXPROCS for each run of a sub-benchmark alone.
			cpus := runtime.GOMAXPROCS(0)
			pool := newTestPool(b, cpus, 64)
			segment := max(compress.MinSegmentSize, (len(body)+cpus-1)/cpus)
			benchLargeResponse(b, body, c.coding, c.level, pool, segment, cpus)
			e, _ := compress.ParseEncoding(c.coding)
			first, _ := compress.CutLengths(e, c.level, segment, 19, int64(len(body)))
			even := compress.CutLength(segment, int64(len(body)))
			b.ReportMetric(float64((len(body)+even-1)/even), "segments")
			b.ReportMetric(float64(first), "first-bytes")
		})
	}
}

// benchLargeResponse times responses of body compressed with coding at
// level, cut into segments of the given size on pool with tasks of them in
// flight, or serially where segment is 0, and reports and returns the
// compressed size.
func benchLargeResponse(b *testing.B, body []byte, coding string, level int, pool compress.WorkPool, segment, tasks int) int {
	if segment == 0 {
		pool = nil
	}
	opts := parallelOn(pool, segment, tasks, func(o *compress.Options) {
		switch coding {
		case "gzip":
			o.Gzip.Level = level
		case "zstd":
			o.Zstd.Level = level
		case "br":
			o.Brotli.Level = level
		}
	})
	h := mustNew(b, respond(200, body, "Content-Type: text/html", "Content-Length: "+strconv.Itoa(len(body))), opts)
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("Accept-Encoding", coding)
	cpu := compress.CPUTime(b)
	w := benchServe(b, h, req, len(body))
	b.ReportMetric(float64((compress.CPUTime(b)-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(w.n), "bytes")
	return w.n
}

// BenchmarkParallelCeiling is what GOMAXPROCS CPUs can give parallel gzip
// on this machine, with nothing of the server around it: the body cut into
// GOMAXPROCS even pieces, each compressed by flate at level 6 (the later
// ones primed with the 32 KiB before them, as the segments are), one after
// the other on one goroutine and then each on its own. On a VM whose CPUs
// share a core's caches or a host's memory, the second is less than
// GOMAXPROCS times faster; BenchmarkParallel's gain is bounded by it.
//
//	go test ./compress -run '^$' -bench ParallelCeiling -benchtime 100x -cpu 2
func BenchmarkParallelCeiling(b *testing.B) {
	body := largeBody(b)
	n := runtime.GOMAXPROCS(0)
	ws := make([]*flate.Writer, n)
	for i := range ws {
		ws[i], _ = flate.NewWriter(io.Discard, 6)
	}
	piece := func(i int) {
		start, end := len(body)*i/n, len(body)*(i+1)/n
		if i == 0 {
			ws[i].Reset(io.Discard)
		} else {
			ws[i].ResetDict(io.Discard, body[max(0, start-32<<10):start])
		}
		ws[i].Write(body[start:end])
		ws[i].Flush()
	}
	b.SetBytes(int64(len(body)))
	b.Run("one-goroutine", func(b *testing.B) {
		for b.Loop() {
			for i := range n {
				piece(i)
			}
		}
	})
	b.Run("goroutine-each", func(b *testing.B) {
		for b.Loop() {
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() { piece(i) })
			}
			wg.Wait()
		}
	})
}

// BenchmarkZstdAlternatives measures, at level 19 on react-dom, the ways
// to compress one zstd body on several CPUs that klauspost/compress offers,
// against the frames per segment parallel compression uses
// (BenchmarkParallel/zstd-19):
//
//   - streams: its concurrent stream encoder (WithEncoderConcurrency),
//     which overlaps a block's entropy coding with the next block's
//     matching, within one frame;
//
//   - jobs: its concurrent blocks (WithConcurrentBlocks), jobs of four
//     windows (at least 512 KiB) compressed at once, each primed with half
//     a window of the input before it, in one frame; with the 2 MiB window
//     serial compression uses for this body a job holds all of it, so the
//     window here is 128 KiB, for jobs of 512 KiB;
//
//   - primed: the body's two halves compressed at once, the second primed
//     with the first as a raw dictionary (WithEncoderDictRaw, set with
//     ResetWithOptions), as a frame's blocks could be joined; the bytes
//     reported are the two frames'.
//
//     go test ./compress -run '^$' -bench ZstdAlternatives -benchtime 20x -cpu 2
func BenchmarkZstdAlternatives(b *testing.B) {
	body := largeBody(b)
	newEncoder := func(opts ...zstd.EOption) *zstd.Encoder {
		enc, err := zstd.NewWriter(nil, append([]zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedBestCompression)}, opts...)...)
		if err != nil {
			b.Fatal(err)
		}
		return enc
	}
	stream := func(enc *zstd.Encoder) func(b *testing.B) {
		return func(b *testing.B) {
			w := &discardWriter{}
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				w.n = 0
				enc.Reset(w)
				enc.Write(body)
				enc.Close()
			}
			b.ReportMetric(float64(w.n), "bytes")
		}
	}
	cpus := zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0))
	b.Run("streams", stream(newEncoder(cpus, zstd.WithWindowSize(2<<20))))
	b.Run("jobs", stream(newEncoder(cpus, zstd.WithWindowSize(128<<10), zstd.WithConcurrentBlocks(true))))
	b.Run("primed", func(b *testing.B) {
		half := len(body) / 2
		first := newEncoder(zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(2<<20))
		second := newEncoder(zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(2<<20), zstd.WithEncoderDictRaw(0, nil))
		var out [2][]byte
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var wg sync.WaitGroup
			wg.Go(func() { out[0] = first.EncodeAll(body[:half], out[0][:0]) })
			if err := second.ResetWithOptions(nil, zstd.WithEncoderDictRaw(0, body[:half])); err != nil {
				b.Fatal(err)
			}
			out[1] = second.EncodeAll(body[half:], out[1][:0])
			wg.Wait()
		}
		b.ReportMetric(float64(len(out[0])+len(out[1])), "bytes")
	})
}

// BenchmarkParallelSizes is the size tables of the README: react-dom, its
// length declared, at every brotli level and at zstd's levels, serially
// and cut into 512k, 256k and 64k segments on a pool, as bytes and as a
// percentage over serial compression (each level's serial row runs first
// and sets the reference, so a filter must keep it).
//
//	go test ./compress -run '^$' -bench 'ParallelSizes/br' -benchtime 1x
//	go test ./compress -run '^$' -bench 'ParallelSizes/zstd' -benchtime 1x
func BenchmarkParallelSizes(b *testing.B) {
	body := largeBody(b)
	pool := newTestPool(b, runtime.GOMAXPROCS(0), 64)
	levels := map[string][]int{
		"br":   {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
		"zstd": {1, 3, 5, 7, 9, 12, 19, 22},
	}
	for _, coding := range []string{"br", "zstd"} {
		for _, level := range levels[coding] {
			serial := 0
			for _, segment := range []int{0, 512 << 10, 256 << 10, 64 << 10} {
				b.Run(fmt.Sprintf("%s/level=%d/segment=%dk", coding, level, segment>>10), func(b *testing.B) {
					n := benchLargeResponse(b, body, coding, level, pool, segment, compress.DefaultTasks)
					if segment == 0 {
						serial = n
					}
					b.ReportMetric(100*(float64(n)/float64(serial)-1), "%-over-serial")
				})
			}
		}
	}
}
