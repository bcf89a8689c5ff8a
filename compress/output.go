package compress

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/mosaic-edge/mosaic/brotli"
	"github.com/mosaic-edge/mosaic/vars"
)

// compression is a response's encoder and the compressed output it holds.
type compression struct {
	coding Encoding
	enc    encoder
	bw     *brotli.Writer
	bkey   encoderKey
	bbody  brotliBody
	zw     *zstd.Encoder
	zwin   int
	gw     *gzip.Writer
	par    *parallelStream // a body cut into segments (parallel.go)
	dict   *Dictionary     // the dictionary compressed against (dcb, dcz), or nil

	// counted: the coding's pool is on but the body is compressed
	// serially, so its CPU work counts in compressing (parallel.go);
	// working: it is counted now.
	counted, working bool

	outBuf   *[]byte
	out      []byte // compressed bytes not yet sent
	outLimit int    // hold up to this much before the headers go out
	outChunk int    // afterwards, send in pieces of at least this size
	in, outN int64  // bytes into and out of the encoder
	err      error  // the first error writing to the client

	// pending holds the body of a one-shot response until the handler
	// returns (see oneshot.go); holdOutput keeps all output in out while
	// it is compressed.
	pending    *[]byte
	holdOutput bool

	// cacheKey names the body in the body cache while this response
	// compresses a body the cache lacks; fill collects its output. A
	// flush ends the collection: a flushed stream is not the body a
	// clean compression makes.
	cacheKey string
	fill     []byte
}

// outBuffers recycles the output buffers; a buffer grows from
// outBufStart only as far as a response's compressed output needs, up to
// its buffers setting.
var outBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, outBufStart)
	return &b
}}

const outBufStart = 4 << 10

// maxPooledOut keeps unusually large buffers (from large *_buffers
// settings) out of the pool.
const maxPooledOut = 1 << 20

// startEncoder sets up the encoder for e. length is the body's length or -1.
func (w *responseWriter) startEncoder(e Encoding, length int64) error {
	// The request's variables, where recordRatio publishes the ratio, are
	// found here, before the encoder runs: after it, the look-up's code
	// (through the request's contexts) is out of the instruction cache
	// (compress README, "The connection's record, one field away").
	w.st = vars.FromContext(w.req.Context())
	c := &w.cfg.coding[e]
	dst := (*encoderSink)(w)
	switch e {
	case Brotli:
		w.bkey = encoderKey{retention: w.cfg.retention, quality: c.level, lgwin: brotliWindowBits(w.cfg.brotliBits, length)}
		if w.dict != nil {
			// dcb's window may be 16 MiB: the own encoder declares the
			// smallest that holds the dictionary and the body, so that
			// copies reach all of it. Every response enters the
			// dictionary's bytes in the encoder's tables (at 4-9 its last
			// MiB), which at 10 and 11 means its binary tree: seconds for
			// a dictionary of megabytes, which any client may ask for, for
			// a few percent of size at most (the copies from a dictionary
			// are long). Those levels compress dcb at maxDictLevel.
			w.bkey.lgwin, w.bkey.dict = brotli.MaxLGWin, w.dict
			w.bkey.quality = min(w.bkey.quality, maxDictLevel)
		}
		w.bbody = brotliBody{length: length, font: fontType(w.mediaType)}
		if w.dict == nil && c.par.takes(length) {
			// The window the serial encoder would declare: every segment
			// shares it, and the first declares it before the rest is seen.
			w.startParallel(compressorKey{coding: e, window: w.bkey.lgwin, font: w.bbody.font}, c.par, length)
		} else if length > 0 && length <= oneShotMax {
			w.holdInput(length)
		} else {
			w.takeBrotli()
		}
	case Zstd, Gzip:
		if w.dict == nil && c.par.takes(length) {
			key := compressorKey{coding: e}
			if e == Zstd && zstdJoined(c.level) {
				// The window the serial encoder would declare, which the
				// first segment declares for all.
				key.window = zstdWindowLog(length)
			}
			w.startParallel(key, c.par, length)
			break
		}
		if e == Gzip {
			gw, err := getGzip(c.level, dst)
			if err != nil {
				return err
			}
			w.gw, w.enc = gw, gw
			break
		}
		var zw *zstd.Encoder
		var err error
		if w.dict != nil {
			w.zwin = w.dict.zstdWindowLog(length)
			zw, err = w.dict.getZstd(w.cfg.zstdLevel, w.zwin, dst)
		} else {
			w.zwin = zstdWindowLog(length)
			zw, err = getZstd(w.cfg.zstdLevel, w.zwin, dst)
		}
		if err != nil {
			return err
		}
		w.zw, w.enc = zw, zw
	default:
		return fmt.Errorf("no encoder for %v", e)
	}
	w.coding = e
	w.counted = c.par != nil && w.par == nil
	w.outLimit, w.outChunk = c.bufLimit, c.bufSize
	w.outBuf = outBuffers.Get().(*[]byte)
	w.out = (*w.outBuf)[:0]
	if w.dict != nil {
		// The output starts with the coding's header (RFC 9842: a magic
		// number and the dictionary's hash), the stream follows. It goes
		// straight into the held output: through the sink, buffers
		// smaller than it would send the response's headers before
		// decide has set Content-Encoding.
		h := w.dict.streamHeader(e)
		w.out = append(w.out, h...)
		w.outN += int64(len(h))
	}
	return nil
}

// takeBrotli gets the response's brotli encoder: from the pool, or new
// with brotli_reuse_memory off.
func (w *responseWriter) takeBrotli() {
	reused := false
	dst := (*encoderSink)(w)
	if w.cfg.brotliReuse {
		w.bw, reused = w.cfg.pool.get(w.bkey, dst, w.bbody)
	} else {
		w.bw = newBrotli(w.bkey, dst, w.bbody)
	}
	w.enc = w.bw
	if lg := w.cfg.logger; lg != nil && lg.Enabled(w.req.Context(), slog.LevelDebug) {
		lg.DebugContext(w.req.Context(), "brotli encoder", "reused", reused, "dictionary", w.dict != nil,
			"quality", w.bkey.quality, "window", w.bkey.lgwin, "font", w.bbody.font, "policy", w.bkey.retention.Policy.String())
	}
}

// beginWork and endWork bracket a serial response's CPU work on a coding
// whose pool is on, counting it in compressing.
func (w *responseWriter) beginWork() {
	if w.counted && !w.working {
		w.working = true
		compressing.Add(1)
	}
}

func (w *responseWriter) endWork() {
	if w.working {
		w.working = false
		compressing.Add(-1)
	}
}

// encode takes body bytes for the encoder.
func (w *responseWriter) encode(p []byte) (int, error) {
	w.beginWork()
	defer w.endWork()
	if w.pending != nil {
		return w.hold(p)
	}
	n, err := w.enc.Write(p)
	w.in += int64(n)
	return n, err
}

// flushEncoder pushes everything written so far to the client.
func (w *responseWriter) flushEncoder() error {
	w.beginWork()
	defer w.endWork()
	if w.pending != nil {
		if err := w.streamHeld(); err != nil {
			return fmt.Errorf("compress: %v encoder: %w", w.coding, err)
		}
	}
	w.cacheKey, w.fill = "", nil
	if err := w.enc.Flush(); err != nil {
		return fmt.Errorf("compress: flushing %v encoder: %w", w.coding, err)
	}
	w.sendHeader(-1)
	w.emitHeld()
	w.shrinkOut()
	return w.err
}

// shrinkOut trades a held-output buffer grown large before the headers
// went out for a small one. Until then a response may hold all its
// buffers (gzip_buffers 32 4k: 128 KB); afterwards output waits in the
// buffer only up to one buffer's size, while a slow client keeps the
// response, and whatever buffer it has, for as long as it reads. With 128
// stalled gzip clients the large buffers were about 100 KB of each
// connection's 1.2 MB (README: "Memory a compressing connection holds").
func (w *responseWriter) shrinkOut() {
	if w.outBuf == nil || len(w.out) > 0 || cap(w.out) <= max(2*w.outChunk, outBufStart) {
		return
	}
	w.putOut()
	// New, not Get: the pool may hand back another large one.
	w.outBuf = outBuffers.New().(*[]byte)
	w.out = (*w.outBuf)[:0]
}

// closeEncoder ends the stream and sends the rest. A response small enough
// that its whole compressed form is still held goes out with its
// Content-Length. It returns the encoder's own failure (not the client's:
// a failed write to the client is w.err), after which the body sent, if
// any, is incomplete.
func (w *responseWriter) closeEncoder() error {
	if w.pending != nil {
		return w.closeOneShot()
	}
	w.beginWork()
	defer w.endWork()
	err := w.enc.Close()
	if err == nil {
		length := int64(len(w.out))
		if hasTrailers(w.rw.Header()) {
			length = -1 // trailers need a chunked body
		}
		w.storeBody()
		w.sendHeader(length)
		w.emitHeld()
		w.recordRatio()
	}
	if err == nil && w.err == nil {
		w.releaseEncoder()
	}
	w.dropEncoder()
	if err != nil && w.err == nil {
		return fmt.Errorf("compress: closing %v encoder: %w", w.coding, err)
	}
	return nil
}

// recordRatio publishes $brotli_ratio, $zstd_ratio or $gzip_ratio once the
// whole response is out, as its sizes: formatted only if read.
func (w *responseWriter) recordRatio() {
	if w.err == nil && w.outN > 0 {
		w.st.SetRatio(w.coding.RatioVariable(), w.in, w.outN)
	}
}

// releaseEncoder returns a cleanly closed encoder for reuse; the output
// held so far stays.
func (w *responseWriter) releaseEncoder() {
	switch {
	case w.par != nil:
		w.par.release()
		w.par = nil
	case w.coding == Brotli:
		// With brotli_reuse_memory off every response gets, and frees,
		// its own encoder.
		if w.cfg.brotliReuse {
			w.cfg.pool.put(w.bkey, w.bw)
		}
	case w.coding == Zstd && w.dict != nil:
		w.dict.putZstd(w.cfg.zstdLevel, w.zwin, w.zw)
	case w.coding == Zstd:
		putZstd(w.cfg.zstdLevel, w.zwin, w.zw)
	case w.coding == Gzip:
		putGzip(w.cfg.coding[Gzip].level, w.gw)
	}
	w.enc, w.bw, w.zw, w.gw = nil, nil, nil, nil
}

// dropEncoder forgets the encoder and gives back the buffers. A
// compressed response whose header has not gone (its encoder failed, or
// the handler panicked) takes back its coding's headers (uncode).
func (w *responseWriter) dropEncoder() {
	if w.values != nil && !w.headerSent {
		w.uncode()
	}
	if w.par != nil {
		// Its compressor is sound whatever became of the response: every
		// segment starts its encoder afresh.
		w.par.release()
		w.par = nil
	}
	w.enc, w.bw, w.zw, w.gw = nil, nil, nil, nil
	w.cacheKey, w.fill = "", nil
	w.releaseInput()
	if w.outBuf != nil {
		w.putOut()
	}
}

// uncode makes the header of a response whose coding was chosen but
// whose header never went out what it would be had no coding been
// chosen, for whoever answers with it (a recovering middleware outside
// the filter, as chi's Recoverer, calls WriteHeader(500) on it): no
// Content-Encoding its body does not have, the handler's ETag strong
// again. Only the values setCodingHeaders set (its own slots, told by
// address) are undone, so whatever the handler set after them stays.
// The handler's Content-Length goes too, which sendHeader would have
// replaced: what goes out then is not that body. Vary stays: the filter
// adds it before choosing (decide), so an identity answer to this
// request carries it as well. Accept-Ranges, which setCodingHeaders
// emptied, is not restored: keeping it would cost every compressed
// response a lookup, and its absence only withholds an offer.
func (w *responseWriter) uncode() {
	h, v := w.rw.Header(), w.values
	delete(h, "Content-Length")
	if ce := h["Content-Encoding"]; len(ce) > 0 && &ce[0] == &v.v[0] {
		delete(h, "Content-Encoding")
	}
	if et := h["Etag"]; len(et) > 0 && &et[0] == &v.v[1] {
		v.v[1] = strings.TrimPrefix(v.v[1], "W/") // WeakenETagInto's prefix
	}
}

// putOut gives the held-output buffer back.
func (w *responseWriter) putOut() {
	if cap(w.out) <= maxPooledOut {
		*w.outBuf = w.out[:0]
		outBuffers.Put(w.outBuf)
	}
	w.outBuf, w.out = nil, nil
}

// emitHeld sends the held output.
func (w *responseWriter) emitHeld() {
	if len(w.out) > 0 {
		w.emit(w.out)
		w.out = w.out[:0]
	}
}

func (w *responseWriter) emit(p []byte) {
	if w.err != nil {
		return
	}
	// Writing to the client waits on it: no CPU work for compressing.
	if w.working {
		w.endWork()
		defer w.beginWork()
	}
	if _, err := w.rw.Write(p); err != nil {
		w.err = fmt.Errorf("compress: writing to client: %w", err)
	}
}

// encoderSink is the encoder's destination. It is the response writer
// under another method set, so that handing it to the encoder costs no
// allocation.
type encoderSink responseWriter

// Write holds compressed output until the buffers are full, then sends the
// headers (without Content-Length) and streams the rest in pieces of one
// buffer's size.
func (s *encoderSink) Write(p []byte) (int, error) {
	w := (*responseWriter)(s)
	if w.err != nil {
		return 0, w.err
	}
	w.outN += int64(len(p))
	if w.cacheKey != "" {
		w.fill = append(w.fill, p...)
	}
	if w.holdOutput {
		w.out = append(w.out, p...)
		return len(p), nil
	}
	if !w.headerSent {
		if len(w.out)+len(p) <= w.outLimit {
			w.out = append(w.out, p...)
			return len(p), nil
		}
		w.sendHeader(-1)
		w.emitHeld()
		w.shrinkOut()
	}
	if len(w.out)+len(p) < w.outChunk {
		w.out = append(w.out, p...)
		return len(p), nil
	}
	w.emitHeld()
	if len(p) >= w.outChunk {
		w.emit(p)
	} else {
		w.out = append(w.out, p...)
	}
	if w.err != nil {
		return 0, w.err
	}
	return len(p), nil
}
