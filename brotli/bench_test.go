package brotli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkEncode compresses each corpus file at each quality with a
// reused Encoder, the way a server uses it; profiles of this benchmark
// guide the encoder's speed work (bench/cbrotli compares with C).
func BenchmarkEncode(b *testing.B) {
	files, names := corpusNames(b)
	for q := MinQuality; q <= MaxQuality; q++ {
		for _, name := range names {
			in := files[name]
			b.Run(fmt.Sprintf("q%d/%s", q, name), func(b *testing.B) {
				enc, err := NewEncoder(Options{Quality: q})
				if err != nil {
					b.Fatal(err)
				}
				var out []byte
				b.SetBytes(int64(len(in)))
				b.ReportAllocs()
				for b.Loop() {
					out = enc.Encode(out[:0], in)
				}
				b.ReportMetric(float64(len(out)), "bytes")
			})
		}
	}
}

// BenchmarkCorpus compresses every corpus file once per iteration, each
// file with an Encoder of its own that it reuses. Run with -benchtime 2x
// under cachegrind (bench/cachegrind.sh), it gives the README's counts
// of instructions and simulated misses: the first pass sizes and fills
// the encoders' tables, as a server's pooled encoders have them.
//
// BROTLI_FILES, a glob, takes other files instead (the README's counts
// of text beyond the corpus).
func BenchmarkCorpus(b *testing.B) {
	var files map[string][]byte
	var names []string
	if glob := os.Getenv("BROTLI_FILES"); glob != "" {
		files, names = filesNamed(b, glob)
	} else {
		files, names = corpusNames(b)
	}
	for q := MinQuality; q <= MaxQuality; q++ {
		b.Run(fmt.Sprintf("q%d", q), func(b *testing.B) {
			encs := make([]*Encoder, len(names))
			outs := make([][]byte, len(names))
			for i := range names {
				var err error
				if encs[i], err = NewEncoder(Options{Quality: q}); err != nil {
					b.Fatal(err)
				}
			}
			total := 0
			for b.Loop() {
				total = 0
				for i, name := range names {
					outs[i] = encs[i].Encode(outs[i][:0], files[name])
					total += len(outs[i])
				}
			}
			b.ReportMetric(float64(total), "bytes")
		})
	}
}

// BenchmarkSegmentPrefix compresses the second half of react-dom as a
// segment without a prefix, primed with 256 KiB of the first half and
// with all of it, at every quality: what a longer prefix costs in time
// and saves in size (MaxPrefix), and what entering it costs against
// compressing (compress's segment lengths). The first half alone, as a
// first segment, is what the second is weighed against when a body is
// cut in two. The window is 2^21, or 2^SEGMENT_LGWIN (19: the server's
// default, which holds 524,272 bytes of the whole half's prefix).
//
//	go test ./brotli -run '^$' -bench SegmentPrefix -benchtime 3x
func BenchmarkSegmentPrefix(b *testing.B) {
	body := corpus(b)["react-dom.development.js"]
	if len(body) < 1<<20 {
		b.Skip("react-dom.development.js missing from the corpus")
	}
	h := len(body) / 2
	lgwin := 21
	if v := os.Getenv("SEGMENT_LGWIN"); v != "" {
		var err error
		if lgwin, err = strconv.Atoi(v); err != nil {
			b.Fatalf("SEGMENT_LGWIN: %v", err)
		}
	}
	run := func(name string, q int, in []byte, seg Segment) {
		b.Run(name, func(b *testing.B) {
			enc, err := NewEncoder(Options{Quality: q, LGWin: lgwin})
			if err != nil {
				b.Fatal(err)
			}
			var out []byte
			for b.Loop() {
				out = enc.EncodeSegment(out[:0], in, seg)
			}
			b.ReportMetric(float64(len(out)), "bytes")
		})
	}
	for q := MinQuality; q <= MaxQuality; q++ {
		run(fmt.Sprintf("q%d/first-half", q), q, body[:h], Segment{First: true, BodyLen: len(body)})
		for _, p := range []int{0, 256 << 10, h} {
			run(fmt.Sprintf("q%d/prefix=%dk", q, p>>10), q, body[h:], Segment{Last: true, Prefix: body[h-p : h], Offset: h, BodyLen: len(body)})
		}
	}
}

// filesNamed reads the files that glob matches, keyed by path, with their
// names in order.
func filesNamed(b *testing.B, glob string) (map[string][]byte, []string) {
	names, err := filepath.Glob(glob)
	if err != nil || len(names) == 0 {
		b.Fatalf("BROTLI_FILES %q matches no file (%v)", glob, err)
	}
	files := map[string][]byte{}
	for _, f := range names {
		if files[f], err = os.ReadFile(f); err != nil {
			b.Fatal(err)
		}
	}
	return files, names
}
