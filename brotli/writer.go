package brotli

import (
	"errors"
	"fmt"
	"io"
)

// Writer compresses a stream written to it. Flush makes everything written
// so far decodable from the output; Close ends the stream. Reset reuses a
// Writer (its buffers and tables) for another stream without allocating.
type Writer struct {
	e    encoder
	opts Options
	dst  io.Writer
	err  error

	// hist holds the window before the pending bytes and the pending bytes
	// themselves: hist[done:] is not yet compressed. hist[0] is at
	// absolute position base; the stream (a Dictionary first) begins at
	// streamA, which stays where it is when the history slides, so that
	// what is measured from the stream's start (the static dictionary's
	// span) is measured as WriteLast, which does not slide, measures it.
	hist    []byte
	done    int
	base    uint32
	streamA uint32
	closed  bool
	// restarted says positions were numbered again mid-stream: the
	// stream's start is no longer known, which static dictionary
	// references need.
	restarted bool
	// rawEnd is the absolute position of the stream's first byte when
	// hist starts with opts.Dictionary, else 0 (see window.rawEnd).
	rawEnd uint32
}

var errClosed = errors.New("brotli: write to closed Writer")

// NewWriter returns a Writer compressing to w with opts; it fails for a
// quality this version does not implement (ErrQuality) and for a window
// outside 10..24.
func NewWriter(w io.Writer, opts Options) (*Writer, error) {
	bw := &Writer{}
	if err := bw.ResetOptions(w, opts); err != nil {
		return nil, err
	}
	return bw, nil
}

// Reset discards the Writer's state and starts a new stream to w with the
// same options.
func (w *Writer) Reset(dst io.Writer) {
	// The options were valid when they were set, so this cannot fail.
	_ = w.ResetOptions(dst, w.opts)
}

// ResetOptions starts a new stream to dst with opts, typically to change
// the size hint per response.
func (w *Writer) ResetOptions(dst io.Writer, opts Options) error {
	o, err := opts.normalize()
	if err != nil {
		return err
	}
	w.opts = o
	w.dst = dst
	w.err = nil
	w.closed = false
	w.restarted = false
	lgwin := o.LGWin
	if o.SizeHint > 0 {
		// With a dictionary, a window that holds both, as Encode's.
		lgwin = windowFor(len(o.Dictionary.bytes())+o.SizeHint, lgwin)
	}
	w.e.setup(o, lgwin, o.SizeHint, true)
	w.e.bw.buf = w.e.bw.buf[:0]
	w.e.bw.acc, w.e.bw.nacc = 0, 0
	w.e.writeWindow()
	// A dictionary comes before the stream in hist, entered in the match
	// finder as if compressed already.
	dict := o.Dictionary.bytes()
	w.hist = append(w.hist[:0], dict...)
	w.done = len(dict)
	w.base = w.e.claim(len(dict))
	w.streamA = w.base
	w.rawEnd = 0
	if len(dict) > 0 {
		w.rawEnd = w.base + uint32(len(dict))
		if w.e.q.indexesRaw() {
			w.e.raw = rawIndex{o.Dictionary.index(), w.base}
		}
		w.e.fill(w.hist, w.base, w.e.q.rawFillFrom(len(dict)), max(len(dict)-7, 0))
	}
	return nil
}

// blockLen is how many pending bytes make a meta-block.
func (w *Writer) blockLen() int { return 1 << w.e.q.blockBits }

// Write compresses p; output goes to the destination whenever a meta-block
// is complete.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.closed {
		return 0, errClosed
	}
	n := 0
	for len(p) > 0 {
		room := w.blockLen() - (len(w.hist) - w.done)
		chunk := p[:min(room, len(p))]
		w.hist = append(w.hist, chunk...)
		n += len(chunk)
		p = p[len(chunk):]
		if len(w.hist)-w.done == w.blockLen() {
			w.compressPending()
			if err := w.emit(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// compressPending codes hist[done:], then slides the window when the
// buffer has grown past twice the window.
func (w *Writer) compressPending() {
	if w.done == len(w.hist) {
		return
	}
	// Absolute positions must stay below the limit: start again with an
	// empty table, as though the stream began here (only references into
	// earlier history are lost). The history is numbered from a claim, as
	// a new stream's: more than the window after position 0, which the
	// emptied slots hold, so that the match finders that test a candidate
	// by its distance alone (qualities 0-3) find those out of reach.
	if uint64(w.base)+uint64(len(w.hist)) >= positionLimit {
		w.e.restart()
		w.restarted = true
		w.rawEnd = 0 // the dictionary is out of reach from now on
		w.base = w.e.claim(len(w.hist))
		w.streamA = w.base + uint32(w.done)
	}
	win := window{data: w.hist, base: w.base, streamA: w.streamA, noDict: w.restarted,
		rawLen: uint32(len(w.opts.Dictionary.bytes())), rawEnd: w.rawEnd}
	if w.rawEnd != 0 && w.e.q.indexesRaw() {
		win.raw = &w.e.raw
	}
	w.e.compress(&win, w.done, len(w.hist))
	w.done = len(w.hist)
	if w.e.next < w.base+uint32(len(w.hist)) {
		w.e.next = w.base + uint32(len(w.hist))
	}
	keep := int(w.e.maxDist)
	if len(w.hist) >= 2*keep+w.blockLen() {
		shift := len(w.hist) - keep
		copy(w.hist, w.hist[shift:])
		w.hist = w.hist[:keep]
		w.base += uint32(shift)
		w.done -= shift
	}
}

// emit hands the whole bytes produced so far to the destination.
func (w *Writer) emit() error {
	if len(w.e.bw.buf) == 0 {
		return nil
	}
	_, err := w.dst.Write(w.e.bw.buf)
	w.e.bw.buf = w.e.bw.buf[:0]
	if err != nil {
		w.err = fmt.Errorf("brotli: writing compressed output: %w", err)
	}
	return w.err
}

// Flush compresses what has been written and pads the output to a byte
// boundary with an empty metadata meta-block, so that a decoder given the
// output so far can produce every byte written so far.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errClosed
	}
	w.compressPending()
	w.e.alignWithMetadata()
	return w.emit()
}

// WriteLast compresses p as the rest of the stream and ends it: the
// output is Write(p) and Close's. When nothing was written since the
// Writer was made or reset and it has no Dictionary, p is compressed
// where it lies instead of being copied into the Writer's history, so a
// body held whole (a server's response of known length) is not copied
// again, and the history does not grow to its size in a Writer that is
// kept for reuse. p is not retained.
func (w *Writer) WriteLast(p []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errClosed
	}
	// Positions that would reach the limit restart the tables mid-stream
	// (compressPending): that rare case takes the copying path.
	if len(w.hist) > 0 || len(p) == 0 || uint64(w.base)+uint64(len(p)) >= positionLimit {
		if _, err := w.Write(p); err != nil {
			return err
		}
		return w.Close()
	}
	// As compressPending with p for the history, which starts the stream.
	// Each meta-block's output goes on as Write's does, so that the
	// output buffer of a Writer kept for reuse stays a block's size, not
	// the body's compressed size (a stored body's whole size).
	win := window{data: p, base: w.base, streamA: w.base}
	w.e.next = max(w.e.next, w.base+uint32(len(p)))
	for start := 0; start < len(p); start += w.blockLen() {
		w.e.compress(&win, start, min(start+w.blockLen(), len(p)))
		if err := w.emit(); err != nil {
			return err
		}
	}
	w.e.writeLast()
	return w.finish()
}

// Close compresses what is pending and ends the stream. It does not close
// the destination.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return nil
	}
	w.compressPending()
	w.e.writeLast()
	return w.finish()
}

// finish hands the stream's last bytes to the destination and lets it go:
// a closed Writer writes nothing more, and one kept idle for reuse (a
// server's encoder pool) must not keep its last response's writer, and
// the request behind it, alive until its next Reset.
func (w *Writer) finish() error {
	w.closed = true
	err := w.emit()
	w.dst = nil
	return err
}
