package brotli

import (
	"fmt"
	"slices"
	"testing"
)

// BenchmarkEncode compresses each corpus file at each quality with a
// reused Encoder, the way a server uses it; profiles of this benchmark
// guide the encoder's speed work (bench/cbrotli compares with C).
func BenchmarkEncode(b *testing.B) {
	files := corpus(b)
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
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
