package compress

import (
	"fmt"
	"io"
	"math"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/mosaic-edge/mosaic/brotli"
)

// encoder is what the three codings' stream writers have in common.
type encoder interface {
	io.Writer
	Flush() error
	Close() error
}

// brotliBody is what a response tells its brotli encoder about the body:
// its declared length (-1 when unknown), which the own encoder takes as a
// size hint for its hash table, and whether it is a font.
type brotliBody struct {
	length int64
	font   bool
}

// newBrotli returns an encoder for key, started on a response to dst:
// mosaic's own (package brotli) at every level, which is faster than
// andybalholm/brotli, the translation of Google's encoder it replaced,
// with output no larger, summed over the corpus and on every file within
// 1% (the README's "Which encoder serves which brotli level"). It keeps
// its memory across Reset.
func newBrotli(key encoderKey, dst io.Writer, body brotliBody) *brotli.Writer {
	w := new(brotli.Writer)
	startBrotli(w, key, dst, body)
	return w
}

// detachBrotli resets an encoder going idle without the response's
// dictionary and with the smallest size hint: its Reset would copy a dcb
// dictionary into its window and enter it in its tables again, which the
// next response redoes with its own options, and a hint of 0 would size
// the tables for the largest body. So reset, it grows no buffer, and the
// bounded retention policy measures what it held. Without a dictionary
// or that policy the reset is skipped (EncoderPool.put): it cost about 800
// instructions a response, the next response resets the encoder anyway,
// and an encoder comes back closed, which lets go of its destination (the
// response's writer), so an idle one keeps no finished request alive.
func detachBrotli(w *brotli.Writer, key encoderKey) {
	// This cannot fail: the options are those the encoder was made with.
	_ = w.ResetOptions(nil, brotli.Options{Quality: key.quality, LGWin: key.lgwin, SizeHint: 1})
}

// startBrotli starts w, new or reused, with key's settings on a response
// to dst.
func startBrotli(w *brotli.Writer, key encoderKey, dst io.Writer, body brotliBody) {
	opts := brotli.Options{Quality: key.quality, LGWin: key.lgwin}
	if body.length > 0 && body.length <= math.MaxInt32 {
		opts.SizeHint = int(body.length)
	}
	if body.font {
		opts.Mode = brotli.ModeFont
	}
	if key.dict != nil {
		opts.Dictionary = key.dict.brotli
	}
	// This cannot fail: the level is 0 to 11 and the window 10 to 24 bits
	// since Validate checked brotli_comp_level and brotli_window.
	_ = w.ResetOptions(dst, opts)
}

// fontType reports whether mt (lower case, without parameters) is an
// uncompressed TrueType or OpenType font, which the own encoder compresses
// in font mode as ngx_mbrotli does. WOFF and WOFF2 are compressed already
// and stay in generic mode.
func fontType(mt string) bool {
	switch mt {
	case "font/ttf", "font/otf", "font/sfnt", "font/collection", "font/eot",
		"font/opentype", "font/truetype", "application/font-sfnt",
		"application/vnd.ms-fontobject", "application/x-font-ttf",
		"application/x-font-truetype", "application/x-font-opentype", "application/x-font-otf":
		return true
	}
	return false
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

// zstd and gzip encoders are pooled per level (and zstd per window). A
// gzip encoder's working memory is small enough that a sync.Pool, which
// the garbage collector may empty, serves; a zstd one is not (a level-19
// encoder allocates about 45 MB), so zstd's pools keep one back from it.
var (
	zstdPools [zstd.SpeedBestCompression][zstdMaxWindowLog + 1]zstdPool
	gzipPools [gzip.BestCompression + 1]sync.Pool
)

// zstdPool holds idle zstd encoders of one configuration. A sync.Pool alone
// lets sequential responses miss: what one response puts back stays in the
// private slot of the P it ran on, which a response on another P does not
// search, and two collections empty it: in process on 2 CPUs, 3 of 8
// sequential react-dom responses at level 19 built a new encoder. The
// last encoder put back is therefore kept in a slot every P sees and no
// collection clears; only encoders beyond it, returned while that slot is
// taken by concurrent responses, go to the sync.Pool.
type zstdPool struct {
	last atomic.Pointer[zstd.Encoder]
	more sync.Pool
}

// get returns an idle encoder, or nil.
func (p *zstdPool) get() *zstd.Encoder {
	if e := p.last.Swap(nil); e != nil {
		return e
	}
	e, _ := p.more.Get().(*zstd.Encoder)
	return e
}

func (p *zstdPool) put(e *zstd.Encoder) {
	if !p.last.CompareAndSwap(nil, e) {
		p.more.Put(e)
	}
}

func getZstd(level zstd.EncoderLevel, windowLog int, dst io.Writer) (*zstd.Encoder, error) {
	if e := zstdPools[level-1][windowLog].get(); e != nil {
		e.Reset(dst)
		return e, nil
	}
	e, err := newZstd(level, windowLog, dst)
	if err != nil {
		return nil, fmt.Errorf("zstd encoder at %v with window 2^%d: %w", level, windowLog, err)
	}
	return e, nil
}

// newZstd makes a response's zstd encoder; more adds options.
func newZstd(level zstd.EncoderLevel, windowLog int, dst io.Writer, more ...zstd.EOption) (*zstd.Encoder, error) {
	// Concurrency 1 keeps the encoder synchronous: a response is one
	// stream, and parallel block encoding would start goroutines per
	// encoder. The lower-memory mode sizes the history to the window
	// rather than to at least 1 MiB, which matters for small bodies.
	return zstd.NewWriter(dst, append([]zstd.EOption{
		zstd.WithEncoderLevel(level),
		zstd.WithWindowSize(1 << windowLog),
		zstd.WithEncoderConcurrency(1),
		zstd.WithLowerEncoderMem(true)}, more...)...)
}

func putZstd(level zstd.EncoderLevel, windowLog int, e *zstd.Encoder) {
	e.Reset(nil)
	zstdPools[level-1][windowLog].put(e)
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
