package compress

import (
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkServerEncoder is the brotli encoder alone, called as a one-shot
// response calls it (burst, in oneshot.go): started with the window that
// brotli_window's default and the body's length give, the size hint from
// Content-Length, the whole body in one WriteLast, and the pool's get and
// put, so that an encoder going idle is reset exactly when a response's is
// (EncoderPool.put). Counted under cachegrind beside the
// whole server answering the same file (compress/bench/small-body.sh), it
// splits a response's cost into the encoder's and the rest (README, "What
// a request costs outside the encoder"). The cells are those of
// ../shared/bench/compress.sh: its five files at its five levels.
func BenchmarkServerEncoder(b *testing.B) {
	for _, file := range []string{"jquery.min.js", "bootstrap.min.css", "react-dom.development.js", "api-small.json", "api-listing.json"} {
		data, err := os.ReadFile(filepath.Join("../../shared/corpus", file))
		if err != nil {
			b.Skip("no ../../shared/corpus")
		}
		for _, level := range []int{1, 4, 6, 9, 11} {
			b.Run(fmt.Sprintf("q%d/%s", level, file), func(b *testing.B) { benchServerEncoder(b, data, level) })
		}
	}
}

// benchServerEncoder is one cell of BenchmarkServerEncoder.
func benchServerEncoder(b *testing.B, data []byte, level int) {
	body := brotliBody{length: int64(len(data))}
	key := encoderKey{quality: level, lgwin: brotliWindowBits(bits.Len(DefaultBrotliWindow)-1, body.length)}
	var out byteCounter
	pool := NewEncoderPool(1)
	pool.put(key, newBrotli(key, &out, body))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		out = 0
		w, _ := pool.get(key, &out, body)
		if err := w.WriteLast(data); err != nil {
			b.Fatal(err)
		}
		pool.put(key, w)
	}
	b.ReportMetric(float64(out), "out-bytes")
}

// byteCounter counts what is written to it.
type byteCounter int

func (c *byteCounter) Write(p []byte) (int, error) { *c += byteCounter(len(p)); return len(p), nil }
