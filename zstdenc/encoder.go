// Package zstdenc is a Zstandard (RFC 8878) encoder of mosaic's own whose
// output can be produced in segments: pieces of one body compressed apart,
// each matching against the input before it, that concatenate into one
// zstd frame.
package zstdenc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// Window limits: RFC 8878 recommends decoders to support 8 MiB windows,
// and that is the largest this encoder declares.
const (
	MinWindowLog     = 10
	MaxWindowLog     = 23
	DefaultWindowLog = MaxWindowLog
)

// DefaultDepth is how many earlier positions with the same hash a search
// tries by default.
const DefaultDepth = 32

// Options configures an Encoder.
type Options struct {
	// WindowLog bounds the window: 2^WindowLog bytes, MinWindowLog to
	// MaxWindowLog; 0 means DefaultWindowLog. A body known to be shorter
	// declares the smallest window that holds it.
	WindowLog int
	// Depth is how many candidates a search tries, 1 to 1024; 0 means
	// DefaultDepth.
	Depth int
}

// ErrOptions reports options out of range.
var ErrOptions = errors.New("zstdenc: options out of range")

// Encoder compresses. It is not safe for concurrent use; its tables are
// kept between calls.
type Encoder struct {
	windowLog int
	depth     int
	buf       []byte // history, then the input being compressed
	mf        matcher
	lits      []byte
	seqs      []seq
	bc        blockCoder
	rep       [3]uint32 // repeat offsets as the decoder holds them; 0 is unknown
}

// NewEncoder returns an Encoder for opts.
func NewEncoder(opts Options) (*Encoder, error) {
	if opts.WindowLog == 0 {
		opts.WindowLog = DefaultWindowLog
	}
	if opts.Depth == 0 {
		opts.Depth = DefaultDepth
	}
	if opts.WindowLog < MinWindowLog || opts.WindowLog > MaxWindowLog || opts.Depth < 1 || opts.Depth > 1024 {
		return nil, fmt.Errorf("%w: window log %d, depth %d", ErrOptions, opts.WindowLog, opts.Depth)
	}
	return &Encoder{windowLog: opts.WindowLog, depth: opts.Depth}, nil
}

// Encode appends src compressed as one frame to dst, declaring its length.
func (e *Encoder) Encode(dst, src []byte) []byte {
	return e.EncodeSegment(dst, src, Segment{First: true, Last: true, ContentSize: int64(len(src))})
}

// Segment says where a piece stands in its frame.
type Segment struct {
	// First pieces start the frame: magic number and frame header.
	First bool
	// Last pieces end it: their last block is marked last (an empty raw
	// block when the piece is empty). The others end on a block boundary,
	// so the next piece's blocks follow.
	Last bool
	// Prefix, for a piece other than the first, is the input just before
	// it in the frame, or its tail: the piece may copy from it, since the
	// decoder has produced those bytes when it reaches the piece. Only the
	// window's worth before the piece is used.
	Prefix []byte
	// ContentSize, when positive, is the length of the whole frame's
	// input, the same for every piece: the window is the smallest that
	// holds it, and the first piece declares it as Frame_Content_Size, so
	// the pieces must add up to it. Zero: unknown, the window is the
	// Options' and no size is declared.
	ContentSize int64
}

// windowLogFor is the window the frame declares.
func (e *Encoder) windowLogFor(size int64) int {
	if size <= 0 {
		return e.windowLog
	}
	return min(e.windowLog, max(MinWindowLog, bits.Len64(uint64(size-1))))
}

// EncodeSegment appends src compressed as a piece of a frame to dst.
// Pieces made with the same ContentSize, the first with First and the last
// with Last, each given the input before it as Prefix (or none), join into
// one frame. A piece after the first starts without knowing the repeat
// offsets the decoder holds: it uses one only once it has set it itself.
func (e *Encoder) EncodeSegment(dst, src []byte, s Segment) []byte {
	wlog := e.windowLogFor(s.ContentSize)
	if s.First {
		dst = appendFrameHeader(dst, wlog, s.ContentSize)
		e.rep = [3]uint32{1, 4, 8}
		s.Prefix = nil
	} else {
		e.rep = [3]uint32{}
	}
	window := 1 << wlog
	if len(s.Prefix) > window {
		s.Prefix = s.Prefix[len(s.Prefix)-window:]
	}
	if len(src) == 0 {
		if s.Last {
			dst = append(dst, 1, 0, 0) // an empty raw block, the last
		}
		return dst
	}
	e.buf = append(append(e.buf[:0], s.Prefix...), src...)
	start := len(s.Prefix)
	e.mf.reset(e, wlog, start)
	blockMax := min(maxBlock, window)
	for bs := start; bs < len(e.buf); {
		be := min(bs+blockMax, len(e.buf))
		rep := e.rep
		e.lits, e.seqs = e.mf.parse(e, bs, be, e.lits[:0], e.seqs[:0])
		var compressed bool
		dst, compressed = e.bc.appendBlock(dst, e.buf[bs:be], e.lits, e.seqs, s.Last && be == len(e.buf))
		if !compressed {
			// A raw or RLE block has no sequences: the decoder's repeat
			// offsets stay as they were before it.
			e.rep = rep
		}
		bs = be
	}
	return dst
}

// appendFrameHeader appends the magic number and a frame header with a
// window descriptor, the content size when size > 0, no dictionary and
// no checksum.
func appendFrameHeader(dst []byte, wlog int, size int64) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, 0xFD2FB528)
	var desc byte
	var fcs []byte
	switch {
	case size <= 0:
	case size >= 256 && size < 256+1<<16:
		desc = 1 << 6
		fcs = binary.LittleEndian.AppendUint16(nil, uint16(size-256))
	case size < 1<<32:
		desc = 2 << 6
		fcs = binary.LittleEndian.AppendUint32(nil, uint32(size))
	default:
		desc = 3 << 6
		fcs = binary.LittleEndian.AppendUint64(nil, uint64(size))
	}
	dst = append(dst, desc, byte(wlog-10)<<3)
	return append(dst, fcs...)
}
