package compress

import (
	"fmt"
	"io"
	"math/bits"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// encoder is what the three codings' stream writers have in common.
type encoder interface {
	io.Writer
	Flush() error
	Close() error
}

// brotliWindowBits returns the smallest window that holds a body of length
// bytes, never more than the configured one. It is the rule of the brotli
// command-line tool (a window of 2^bits holds 2^bits-16 bytes), so a
// response and `brotli` run on the same file agree. An unknown length (-1)
// gets the configured window.
func brotliWindowBits(configured int, length int64) int {
	if length < 0 {
		return configured
	}
	for b := 10; b < configured; b++ {
		if int64(1)<<b-16 >= length {
			return b
		}
	}
	return configured
}

// The zstd window. RFC 9659 has browsers refuse frames whose window exceeds
// 8 MiB, so that is the largest used; a known length gets the smallest
// power of two that holds it, so the encoder's history buffer (and the
// window a client must allocate) follows the body's size.
const (
	zstdMinWindowLog = 10
	zstdMaxWindowLog = 23
)

func zstdWindowLog(length int64) int {
	if length < 0 {
		return zstdMaxWindowLog
	}
	return min(max(bits.Len64(uint64(max(length, 1)-1)), zstdMinWindowLog), zstdMaxWindowLog)
}

// zstd and gzip encoders are pooled per level (and zstd per window), in
// sync.Pools: unlike brotli's, their working memory is small enough that
// the garbage collector may drop idle ones without a retention policy.
var (
	zstdPools [zstd.SpeedBestCompression][zstdMaxWindowLog + 1]sync.Pool
	gzipPools [gzip.BestCompression + 1]sync.Pool
)

func getZstd(level zstd.EncoderLevel, windowLog int, dst io.Writer) (*zstd.Encoder, error) {
	if e, ok := zstdPools[level-1][windowLog].Get().(*zstd.Encoder); ok {
		e.Reset(dst)
		return e, nil
	}
	// Concurrency 1 keeps the encoder synchronous: a response is one
	// stream, and parallel block encoding would start goroutines per
	// encoder. The lower-memory mode sizes the history to the window
	// rather than to at least 1 MiB, which matters for small bodies.
	e, err := zstd.NewWriter(dst,
		zstd.WithEncoderLevel(level),
		zstd.WithWindowSize(1<<windowLog),
		zstd.WithEncoderConcurrency(1),
		zstd.WithLowerEncoderMem(true))
	if err != nil {
		return nil, fmt.Errorf("zstd encoder at %v with window 2^%d: %w", level, windowLog, err)
	}
	return e, nil
}

func putZstd(level zstd.EncoderLevel, windowLog int, e *zstd.Encoder) {
	e.Reset(nil)
	zstdPools[level-1][windowLog].Put(e)
}

func getGzip(level int, dst io.Writer) (*gzip.Writer, error) {
	if w, ok := gzipPools[level].Get().(*gzip.Writer); ok {
		w.Reset(dst)
		return w, nil
	}
	w, err := gzip.NewWriterLevel(dst, level)
	if err != nil {
		return nil, fmt.Errorf("gzip encoder at level %d: %w", level, err)
	}
	return w, nil
}

func putGzip(level int, w *gzip.Writer) {
	w.Reset(nil)
	gzipPools[level].Put(w)
}
