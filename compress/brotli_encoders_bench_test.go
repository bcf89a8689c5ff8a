package compress_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	andybrotli "github.com/andybalholm/brotli"

	"github.com/mosaic-edge/mosaic/brotli"
)

// BenchmarkBrotliEncoders compares, in one process, the two brotli encoders
// the server can use (mosaic's own and andybalholm/brotli) at the qualities
// both implement, each reused across bodies as the encoder pool reuses it,
// on the shared corpus. Run with -count N: the sub-benchmarks alternate, so
// both encoders see the same machine load. The README of this package
// records the figures that chose the encoder per level.
func BenchmarkBrotliEncoders(b *testing.B) {
	files, _ := filepath.Glob("../../shared/corpus/*.js*")
	css, _ := filepath.Glob("../../shared/corpus/*.css")
	files = append(files, css...)
	if len(files) == 0 {
		b.Skip("no ../../shared/corpus")
	}
	for q := brotli.MinQuality; q <= brotli.MaxQuality; q++ {
		for _, f := range files {
			body, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			name := fmt.Sprintf("q=%d/%s", q, filepath.Base(f))
			b.Run(name+"/enc=mosaic", func(b *testing.B) {
				w, err := brotli.NewWriter(io.Discard, brotli.Options{Quality: q})
				if err != nil {
					b.Fatal(err)
				}
				benchWriter(b, body, func(dst io.Writer) {
					_ = w.ResetOptions(dst, brotli.Options{Quality: q, SizeHint: len(body)})
				}, w)
			})
			b.Run(name+"/enc=andybalholm", func(b *testing.B) {
				w := andybrotli.NewWriterOptions(io.Discard, andybrotli.WriterOptions{Quality: q, LGWin: 22})
				benchWriter(b, body, w.Reset, w)
			})
		}
	}
}

// countWriter counts the bytes written to it.
type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

// benchWriter compresses body per iteration with a stream encoder reset for
// each, as one response, and reports the compressed size.
func benchWriter(b *testing.B, body []byte, reset func(io.Writer), w io.WriteCloser) {
	var n countWriter
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		n = 0
		reset(&n)
		if _, err := w.Write(body); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n), "out-bytes")
}
