// Package brotli is mosaic's brotli encoder (RFC 7932), written from the
// format specification with its own match finder and block coding. It
// needs no cgo and imports only the standard library.
//
// Three ways in: Encode compresses a body of known length in one call,
// Writer streams with Flush points a decoder can act on, and
// Encoder.EncodeSegment compresses independent pieces of one body whose
// outputs, concatenated, form one valid stream.
package brotli

// Encoder compresses whole bodies or segments of one. Reused, it allocates
// nothing once its tables have grown to the sizes its inputs need. An
// Encoder is not safe for concurrent use; use one per goroutine.
type Encoder struct {
	e    encoder
	opts Options
	// joined holds a segment's prefix and the segment, contiguous for the
	// match finder.
	joined []byte
}

// NewEncoder returns an Encoder for opts. It fails for a quality this
// version does not implement (ErrQuality) and for a window outside 10..24.
func NewEncoder(opts Options) (*Encoder, error) {
	o, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	return &Encoder{opts: o}, nil
}

// Encode appends the brotli stream for src to dst. The declared window is
// the smallest that holds src, at most opts.LGWin, so small bodies never
// make a decoder reserve a large window; with a Dictionary, the smallest
// that holds both, so that copies reach all of it.
func (enc *Encoder) Encode(dst, src []byte) []byte {
	if d := enc.opts.Dictionary; d != nil {
		return enc.encodeRaw(dst, src, len(src), windowFor(d.Len()+len(src), enc.opts.LGWin), true)
	}
	return enc.encode(dst, src, windowFor(len(src), enc.opts.LGWin), true, true)
}

// encodeRaw compresses src as a stream, or its first piece, that starts
// after the raw dictionary opts.Dictionary; bodyLen is the body's length.
func (enc *Encoder) encodeRaw(dst, src []byte, bodyLen, lgwin int, last bool) []byte {
	dict := enc.opts.Dictionary.data
	enc.joined = append(append(enc.joined[:0], dict...), src...)
	return enc.encodeFrom(dst, enc.joined, len(dict), len(dict)+bodyLen, lgwin, 0, true, last)
}

// Segment says where a piece sits in the stream that EncodeSegment's
// outputs form.
type Segment struct {
	// First pieces carry the stream header.
	First bool
	// Last pieces end the stream; the others end on a byte boundary with
	// an empty metadata meta-block so that the next piece can follow.
	Last bool
	// Prefix, when set on a piece other than the first, is the content
	// that precedes the piece in the body, or its tail: the piece may copy
	// from it, because the decoder has produced those bytes by the time it
	// reaches the piece. It must be exactly the bytes before the piece.
	// Only its last MaxPrefix bytes (or the window, if smaller) are used.
	Prefix []byte
	// Offset, when positive, is where the piece starts in the body: the
	// number of bytes before it, Prefix or not. A piece other than the
	// first that knows it may refer to the static dictionary, whose
	// distances count from the start of the stream; one that does not
	// makes no such reference. It must be at least len(Prefix).
	Offset int
	// BodyLen, when positive, is the length of the whole body the piece
	// is cut from (Content-Length). The match finder is then chosen as for
	// the body in one stream: at qualities 5-9 a body of 1 MiB or more
	// hashes 5 bytes into larger tables, and its pieces of 512 KiB, which
	// alone would hash 4, come out 1.5-2% smaller at qualities 5 and 6
	// so. Without it the piece and the whole Prefix stand for the body.
	BodyLen int
}

// MaxPrefix bounds how much of a segment's prefix is entered in the match
// finder: entering bytes costs time (a tree insert per byte at qualities
// 10 and 11), and a body cut into 1 MiB segments, the default, needs no
// more for each to see the whole segment before it. React-dom (1 MB) in two
// halves comes out 0.05% larger than in one stream at quality 4 and 0.13%
// at 9 with the first half as the second's prefix, against 0.15% and 0.35%
// with 256 KiB of it.
const MaxPrefix = 1 << 20

// EncodeSegment appends the compressed form of one piece of a body to dst.
// Pieces compressed by any Encoders with the same Quality, LGWin and Mode
// concatenate, in body order, into one brotli stream when exactly the
// first has First set and exactly the last has Last set (one piece with
// both is a whole stream). A piece refers to no byte outside itself and
// its Prefix, and uses no distance it did not code itself, so pieces can
// be compressed in parallel or cached and stitched with others later. The
// window declared is opts.LGWin, since the first piece cannot know the
// body's length.
func (enc *Encoder) EncodeSegment(dst, src []byte, seg Segment) []byte {
	keep := 0 // the prefix's bytes entered in the match finder
	if !seg.First {
		keep = min(len(seg.Prefix), MaxPrefix, 1<<enc.opts.LGWin-16)
	}
	lead := -1 // the stream's bytes before the prefix kept; -1: not known
	if seg.First {
		lead = 0
	} else if seg.Offset > 0 && seg.Offset >= len(seg.Prefix) {
		lead = seg.Offset - keep
	}
	if seg.First && enc.opts.Dictionary != nil {
		return enc.encodeRaw(dst, src, max(len(src), seg.BodyLen), enc.opts.LGWin, seg.Last)
	}
	if keep == 0 {
		return enc.encodeFrom(dst, src, 0, max(len(src), seg.BodyLen), enc.opts.LGWin, lead, seg.First, seg.Last)
	}
	enc.joined = append(append(enc.joined[:0], seg.Prefix[len(seg.Prefix)-keep:]...), src...)
	// The body is at least the prefix and the piece long, not just the
	// part of the prefix kept.
	bodyLen := max(len(seg.Prefix)+len(src), seg.BodyLen)
	return enc.encodeFrom(dst, enc.joined, keep, bodyLen, enc.opts.LGWin, lead, false, seg.Last)
}

func (enc *Encoder) encode(dst, src []byte, lgwin int, first, last bool) []byte {
	return enc.encodeFrom(dst, src, 0, len(src), lgwin, 0, first, last)
}

// encodeFrom compresses data[start:], after entering the positions of
// data[:start] (bytes the decoder already has) in the match finder;
// bodyLen is the length of the body data ends (at least len(data)),
// which sizes the match finder; lead is how many bytes of the stream come
// before data[0] (-1 if not known: no static dictionary references). A
// first piece with a Dictionary has it as data[:start], before the
// stream.
func (enc *Encoder) encodeFrom(dst, data []byte, start, bodyLen, lgwin, lead int, first, last bool) []byte {
	e := &enc.e
	e.setup(enc.opts, lgwin, bodyLen, first)
	e.bw.buf = dst
	e.bw.acc, e.bw.nacc = 0, 0
	if first {
		e.writeWindow()
	}
	base := e.claim(len(data))
	w := window{data: data, base: base, streamA: base, unknownCtx: !first, noDict: lead < 0, dictLead: uint32(max(lead, 0)),
		rawLen: uint32(len(enc.opts.Dictionary.bytes()))}
	if first && w.rawLen > 0 {
		w.rawEnd = base + uint32(start)
		if e.q.indexesRaw() {
			e.raw = rawIndex{enc.opts.Dictionary.index(), base}
			w.raw = &e.raw
		}
	}
	from := 0 // where the bytes before the stream enter the tables
	if w.rawEnd != 0 {
		from = e.q.rawFillFrom(start)
	}
	e.fill(data, base, from, min(start, len(data)-7))
	e.compress(&w, start, len(data))
	if last {
		e.writeLast()
	} else {
		e.alignWithMetadata()
	}
	out := e.bw.buf
	e.bw.buf = nil
	return out
}

// Encode appends the brotli stream for src, compressed with opts, to dst.
func Encode(dst, src []byte, opts Options) ([]byte, error) {
	enc, err := NewEncoder(opts)
	if err != nil {
		return dst, err
	}
	return enc.Encode(dst, src), nil
}
