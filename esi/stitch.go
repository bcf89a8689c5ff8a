package esi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"sync"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zstd"

	"github.com/mosaic-edge/mosaic/brotli"
	"github.com/mosaic-edge/mosaic/internal/crc32combine"
	"github.com/mosaic-edge/mosaic/internal/header"
)

// Coding is a content coding that stitching produces.
type Coding uint8

const (
	CodingNone Coding = iota // the page goes out as the processor makes it
	CodingGzip
	CodingZstd
	CodingBrotli

	numCodings = iota
)

func (c Coding) String() string {
	switch c {
	case CodingGzip:
		return "gzip"
	case CodingZstd:
		return "zstd"
	case CodingBrotli:
		return "br"
	}
	return "identity"
}

// Stitch configures stitching (esi_stitch): the processor compresses the
// pages it processes itself, for the clients Choose picks, and writes the
// verbatim runs of a page that replays a parse plan from their compressed
// forms, made once per plan, so that only fragments and variables are
// compressed per delivery.
type Stitch struct {
	// Level is the compression level of stored runs and of what is
	// compressed live, 1..9: deflate's levels, zstd's levels of the same
	// numbers, and for brotli the quality of the same number, or
	// brotli.MaxQuality where that is lower (the highest quality of
	// mosaic's encoder, whose segments concatenate). Default 6.
	Level int
	// Choose returns the coding of the response to r, CodingNone for the
	// plain page, and whether the response carries Vary: Accept-Encoding.
	// The server applies its compression filter's negotiation
	// (Accept-Encoding, compress_prefer, the gzip_* checks, gzip_vary).
	Choose func(r *http.Request) (coding Coding, vary bool)
}

// DefaultStitchLevel is Stitch.Level's default, Varnish's gzip_level.
const DefaultStitchLevel = 6

func (s *Stitch) validate() error {
	if s.Choose == nil {
		return errors.New("esi: Options.Stitch.Choose is nil")
	}
	if s.Level == 0 {
		s.Level = DefaultStitchLevel
	}
	if s.Level < 1 || s.Level > 9 {
		return fmt.Errorf("esi: Options.Stitch.Level %d is not 1..9", s.Level)
	}
	return nil
}

// stitchable reports whether a processed response may be compressed here,
// by the rules the compression filter follows: the statuses NGINX's gzip
// filter compresses, no Range (the filter serves ranges from the identity
// body), no Cache-Control: no-transform.
func stitchable(r *http.Request, status int, h http.Header) bool {
	switch status {
	case http.StatusOK, http.StatusForbidden, http.StatusNotFound:
	default:
		return false
	}
	return len(r.Header["Range"]) == 0 && !header.HasToken(h["Cache-Control"], "no-transform")
}

// gzipHeader is the 10-byte member header: deflate, no flags, no time,
// unknown operating system.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}

// finalBlock is an empty final deflate block with fixed codes: what ends
// a stream whose blocks were all cut with sync flushes.
var finalBlock = []byte{0x03, 0x00}

// maxSpan bounds the plain bytes gathered for one live span.
const maxSpan = 128 << 10

// maxStoredSpan is the largest live span written uncompressed (a stored
// deflate block, a raw zstd block), as Varnish writes the fragments it
// did not get gzipped: compressing a fragment of a few hundred bytes
// costs more than the bytes it saves.
const maxStoredSpan = 1 << 10

// stitcher writes a response in one coding from plain bytes, compressed
// live, and from stored runs, written as they were compressed once. The
// plain bytes between two stored runs or flushes are gathered into a live
// span, compressed when it ends: for gzip, raw deflate ended with a sync
// flush, which byte-aligns the stream, or a stored block; for zstd, a
// frame of its own. The stored runs never refer to bytes before them, so
// the pieces join: one gzip member whose trailer combines the CRC-32 of
// every piece, or a sequence of zstd frames.
type stitcher struct {
	w      io.Writer
	coding Coding
	level  int
	begun  bool

	crc  uint32 // gzip: of the plain bytes so far
	size int64

	span []byte // plain bytes of the live span
	out  []byte // the live span compressed
	any  bool   // zstd: a frame was written
}

func newStitcher(w io.Writer, coding Coding, level int) *stitcher {
	return &stitcher{w: w, coding: coding, level: level}
}

func (s *stitcher) begin() error {
	if s.begun {
		return nil
	}
	s.begun = true
	switch s.coding {
	case CodingGzip:
		_, err := s.w.Write(gzipHeader)
		return err
	case CodingBrotli:
		_, err := s.w.Write(brotliBounds(s.level).head)
		return err
	}
	return nil
}

// Write compresses plain bytes live.
func (s *stitcher) Write(b []byte) (int, error) {
	if err := s.begin(); err != nil {
		return 0, err
	}
	s.span = append(s.span, b...)
	if len(s.span) >= maxSpan {
		if err := s.endSpan(); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

// endSpan compresses and writes the live span, if any, ending on a byte
// boundary.
func (s *stitcher) endSpan() error {
	if len(s.span) == 0 {
		return nil
	}
	out := s.out[:0]
	switch {
	case s.coding == CodingZstd && len(s.span) <= maxStoredSpan:
		out, s.any = rawZstdFrame(out, s.span), true
	case s.coding == CodingZstd:
		out, s.any = zstdEncoder(s.level).EncodeAll(s.span, out), true
	case s.coding == CodingBrotli && len(s.span) <= maxStoredSpan:
		out = uncompressedMetaBlock(out, s.span)
	case s.coding == CodingBrotli:
		out = brotliSegment(out, s.span, s.level, brotli.Segment{})
	case len(s.span) <= maxStoredSpan:
		out = storedBlock(out, s.span)
	default:
		buf := bytes.NewBuffer(out)
		fw := deflaters.get(s.level, buf)
		_, _ = fw.Write(s.span) // a bytes.Buffer does not fail
		_ = fw.Flush()
		deflaters.put(s.level, fw)
		out = buf.Bytes()
	}
	if s.coding == CodingGzip {
		s.crc = crc32.Update(s.crc, crc32.IEEETable, s.span)
		s.size += int64(len(s.span))
	}
	s.span, s.out = s.span[:0], out
	_, err := s.w.Write(out)
	return err
}

// storedBlock appends p as a deflate stored block, not final: p is at
// most 65535 bytes, and the stream is byte-aligned before and after it.
func storedBlock(dst, p []byte) []byte {
	n := uint16(len(p))
	dst = append(dst, 0, byte(n), byte(n>>8), byte(^n), byte(^n>>8))
	return append(dst, p...)
}

// rawZstdFrame appends p, at most 65791 bytes, as a zstd frame of one raw
// block: a single segment whose content size is given, without checksum.
func rawZstdFrame(dst, p []byte) []byte {
	dst = append(dst, 0x28, 0xb5, 0x2f, 0xfd)
	if n := len(p); n < 256 {
		dst = append(dst, 0x20, byte(n)) // single segment, 1-byte size
	} else {
		dst = append(dst, 0x60, byte(n-256), byte((n-256)>>8)) // 2-byte size, less 256
	}
	h := uint32(len(p))<<3 | 1 // last block, raw
	dst = append(dst, byte(h), byte(h>>8), byte(h>>16))
	return append(dst, p...)
}

// uncompressedMetaBlock appends p, 1 to 65536 bytes, as a brotli
// uncompressed meta-block, not last (RFC 7932 9.2): ISLAST 0, MNIBBLES 4,
// MLEN-1 in 16 bits, ISUNCOMPRESSED 1, padding to the byte boundary the
// stream is on after it too.
func uncompressedMetaBlock(dst, p []byte) []byte {
	h := uint32(len(p)-1)<<3 | 1<<19
	dst = append(dst, byte(h), byte(h>>8), byte(h>>16))
	return append(dst, p...)
}

// stored writes a run from its stored form.
func (s *stitcher) stored(st *step) error {
	if err := s.begin(); err != nil {
		return err
	}
	if err := s.endSpan(); err != nil {
		return err
	}
	form := st.run.form(s.coding)
	switch s.coding {
	case CodingGzip:
		s.crc = crc32combine.Combine(s.crc, st.crc, st.n)
		s.size += st.n
	case CodingZstd:
		s.any = true
	}
	_, err := s.w.Write(form)
	return err
}

// flush sends what is written so far: the live span ends here.
func (s *stitcher) flush(next func() error) func() error {
	return func() error {
		if err := s.begin(); err != nil {
			return err
		}
		if err := s.endSpan(); err != nil {
			return err
		}
		return next()
	}
}

// close ends the stream: gzip's final block and trailer, zstd's last
// frame (an empty one when there was nothing, so that the body is a valid
// stream), or brotli's last, empty, meta-block.
func (s *stitcher) close() error {
	if err := s.begin(); err != nil {
		return err
	}
	if err := s.endSpan(); err != nil {
		return err
	}
	switch s.coding {
	case CodingGzip:
		var trailer [10]byte
		copy(trailer[:], finalBlock)
		binary.LittleEndian.PutUint32(trailer[2:], s.crc)
		binary.LittleEndian.PutUint32(trailer[6:], uint32(s.size))
		_, err := s.w.Write(trailer[:])
		return err
	case CodingZstd:
		if !s.any {
			_, err := s.w.Write(zstdEncoder(s.level).EncodeAll(nil, nil))
			return err
		}
	case CodingBrotli:
		_, err := s.w.Write(brotliBounds(s.level).tail)
		return err
	}
	return nil
}

// storedForm makes sure the run of st has its compressed form in coding c,
// made from parts (the run's bytes) if it has none yet, and reports
// whether it has. A new form is kept only if keep, told its size, agrees
// (the zone has room for it). A form once kept is never dropped: a
// delivery that found it may write it much later, queued behind a pending
// fragment, and must find it then.
func storedForm(st *step, c Coding, level int, parts []seg, keep func(n int64) bool) bool {
	r := st.run
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.forms[c] != nil {
		return true
	}
	var form []byte
	switch c {
	case CodingGzip:
		var b bytes.Buffer
		fw := deflaters.get(level, &b)
		for _, p := range parts {
			_, _ = fw.Write(p.data) // a bytes.Buffer does not fail
		}
		_ = fw.Flush()
		deflaters.put(level, fw)
		form = b.Bytes()
	case CodingZstd:
		// EncodeAll allocates for the worst case.
		form = zstdEncoder(level).EncodeAll(joinParts(parts), nil)
	case CodingBrotli:
		form = brotliSegment(nil, joinParts(parts), level, brotli.Segment{})
	default:
		return false
	}
	if !keep(int64(len(form))) {
		return false
	}
	// Kept at its size: the zone is charged len, so cap must match.
	r.forms[c] = bytes.Clone(form)
	return true
}

// joinParts returns the bytes of parts, contiguous.
func joinParts(parts []seg) []byte {
	if len(parts) == 1 {
		return parts[0].data
	}
	var plain []byte
	for _, p := range parts {
		plain = append(plain, p.data...)
	}
	return plain
}

// brotliWindow is the window of stitched brotli streams, declared by the
// first segment before any piece is known; 22 bits is the encoder's
// default and what ngx_brotli declares for bodies of unknown length.
const brotliWindow = 22

// brotliEncoders keeps encoders per quality: an Encoder serves one
// goroutine at a time, and keeps its tables between uses.
var brotliEncoders [brotli.MaxQuality + 1]sync.Pool

// brotliSegment appends a segment of a stitched brotli stream: src
// compressed at the quality that level stands for.
func brotliSegment(dst, src []byte, level int, seg brotli.Segment) []byte {
	q := min(level, brotli.MaxQuality)
	enc, _ := brotliEncoders[q].Get().(*brotli.Encoder)
	if enc == nil {
		var err error
		if enc, err = brotli.NewEncoder(brotli.Options{Quality: q, LGWin: brotliWindow}); err != nil {
			panic(err) // the levels are validated and clamped
		}
	}
	dst = enc.EncodeSegment(dst, src, seg)
	brotliEncoders[q].Put(enc)
	return dst
}

// brotliEnds holds, per quality, the two pieces every stitched brotli
// stream has: the stream header alone in a first segment, and an empty
// last meta-block. They are the same bytes for every response, so they
// are made once.
var brotliEnds [brotli.MaxQuality + 1]brotliEnd

type brotliEnd struct {
	once       sync.Once
	head, tail []byte
}

func brotliBounds(level int) *brotliEnd {
	e := &brotliEnds[min(level, brotli.MaxQuality)]
	e.once.Do(func() {
		e.head = brotliSegment(nil, nil, level, brotli.Segment{First: true})
		e.tail = brotliSegment(nil, nil, level, brotli.Segment{Last: true})
	})
	return e
}

// deflaterPools keeps deflate compressors per level.
type deflaterPools [10]sync.Pool

var deflaters deflaterPools

func (d *deflaterPools) get(level int, w io.Writer) *flate.Writer {
	if fw, _ := d[level].Get().(*flate.Writer); fw != nil {
		fw.Reset(w)
		return fw
	}
	fw, err := flate.NewWriter(w, level)
	if err != nil {
		panic(err) // the levels are validated
	}
	return fw
}

func (d *deflaterPools) put(level int, fw *flate.Writer) {
	fw.Reset(io.Discard)
	d[level].Put(fw)
}

// zstdEncoders holds one encoder per level: EncodeAll may be called from
// several goroutines at once.
var zstdEncoders [10]struct {
	once sync.Once
	enc  *zstd.Encoder
}

func zstdEncoder(level int) *zstd.Encoder {
	e := &zstdEncoders[level]
	e.once.Do(func() {
		var err error
		// An 8 MiB window is what browsers decode (RFC 9659).
		e.enc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)),
			zstd.WithWindowSize(8<<20), zstd.WithZeroFrames(true))
		if err != nil {
			panic(err) // fixed, valid options
		}
	})
	return e.enc
}
