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

	"github.com/mosaic-edge/mosaic/internal/crc32combine"
	"github.com/mosaic-edge/mosaic/internal/header"
)

// Coding is a content coding that stitching produces.
type Coding uint8

const (
	CodingNone Coding = iota // the page goes out as the processor makes it
	CodingGzip
	CodingZstd
)

func (c Coding) String() string {
	switch c {
	case CodingGzip:
		return "gzip"
	case CodingZstd:
		return "zstd"
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
	// compressed live, 1..9 (deflate's levels; zstd's levels of the same
	// numbers). Default 6.
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
	if s.begun || s.coding != CodingGzip {
		return nil
	}
	s.begun = true
	_, err := s.w.Write(gzipHeader)
	return err
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

// stored writes a run from its stored form.
func (s *stitcher) stored(st *step) error {
	if err := s.begin(); err != nil {
		return err
	}
	if err := s.endSpan(); err != nil {
		return err
	}
	st.run.mu.Lock()
	form := st.run.gzip
	if s.coding == CodingZstd {
		form = st.run.zstd
	}
	st.run.mu.Unlock()
	if s.coding == CodingGzip {
		s.crc = crc32combine.Combine(s.crc, st.crc, st.n)
		s.size += st.n
	} else {
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

// close ends the stream: gzip's final block and trailer, or zstd's last
// frame (an empty one when there was nothing, so that the body is a valid
// stream).
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
	}
	return nil
}

// storedForm makes sure the run of st has its compressed form in coding c
// and returns how many bytes that added. parts are the run's bytes.
func storedForm(st *step, c Coding, level int, parts []seg) int64 {
	r := st.run
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case c == CodingGzip && r.gzip == nil:
		var b bytes.Buffer
		fw := deflaters.get(level, &b)
		for _, p := range parts {
			_, _ = fw.Write(p.data) // a bytes.Buffer does not fail
		}
		_ = fw.Flush()
		deflaters.put(level, fw)
		// Kept at its size: the zone is charged len, so cap must match.
		r.gzip = bytes.Clone(b.Bytes())
		return int64(len(r.gzip))
	case c == CodingZstd && r.zstd == nil:
		var plain []byte
		if len(parts) == 1 {
			plain = parts[0].data
		} else {
			for _, p := range parts {
				plain = append(plain, p.data...)
			}
		}
		// EncodeAll allocates for the worst case; kept at its size.
		r.zstd = bytes.Clone(zstdEncoder(level).EncodeAll(plain, nil))
		return int64(len(r.zstd))
	}
	return 0
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
