package compress

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"math/bits"
	"net/http"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/mosaic-edge/mosaic/brotli"
	"github.com/mosaic-edge/mosaic/internal/header"
)

// Compression dictionary transport (RFC 9842).
//
// A client that holds a response as a dictionary (the server marked it
// with Use-As-Dictionary) names it in Available-Dictionary by its SHA-256
// hash and adds dcb and dcz to Accept-Encoding. When the hash is that of
// a Dictionary of Options.Dictionaries, the body is compressed with the
// dictionary as a raw prefix: brotli as dcb, zstd as dcz, each stream
// after a header of a magic number and the hash. A new version of a
// script compressed against the old one comes out a small fraction of its
// brotli size.

// maxDictLevel is the highest brotli level dcb is compressed at (see
// startEncoder).
const maxDictLevel = 9

// MaxDictionary bounds a Dictionary: brotli's raw dictionaries take up to
// 16 MiB (brotli.MaxDictionary).
const MaxDictionary = brotli.MaxDictionary

// Dictionary is a raw dictionary that responses may be compressed
// against, with its SHA-256 hash, by which clients name it. It is
// immutable and may be shared by handlers.
type Dictionary struct {
	data []byte
	hash [sha256.Size]byte
	name string // for errors: where it came from (the file)
	// The headers of dcb and dcz streams against it (streamHeader).
	dcb, dcz []byte
	// brotli is the dictionary prepared for brotli encoders: its index
	// is built once and shared by all of them.
	brotli *brotli.Dictionary

	mu   sync.Mutex
	zstd map[zstdKey]*zstdPool // encoders primed with data, per level and window
}

type zstdKey struct {
	level     zstd.EncoderLevel
	windowLog int
}

// NewDictionary returns a Dictionary of data (kept, not copied: the caller
// must not change it); name says where it came from, for logs. It refuses
// an empty dictionary and one over MaxDictionary.
func NewDictionary(name string, data []byte) (*Dictionary, error) {
	bd, err := brotli.NewDictionary(data)
	if err != nil {
		return nil, fmt.Errorf("dictionary %s: %w", name, err)
	}
	d := &Dictionary{data: data, hash: sha256.Sum256(data), name: name, brotli: bd}
	d.dcb = append(dcbMagic[:len(dcbMagic):len(dcbMagic)], d.hash[:]...)
	d.dcz = append(dczMagic[:len(dczMagic):len(dczMagic)], d.hash[:]...)
	return d, nil
}

// Hash returns the dictionary's SHA-256 hash.
func (d *Dictionary) Hash() [sha256.Size]byte { return d.hash }

// AvailableDictionary returns the value of the Available-Dictionary
// request header that names d: its hash as a Structured Field byte
// sequence.
func (d *Dictionary) AvailableDictionary() string {
	return ":" + base64.StdEncoding.EncodeToString(d.hash[:]) + ":"
}

// The headers that precede a dcb and a dcz stream (RFC 9842 sections 4
// and 5): a magic number, then the dictionary's hash. dcz's is a zstd
// skippable frame of 32 bytes, which zstd decoders pass over.
var (
	dcbMagic = [...]byte{0xff, 0x44, 0x43, 0x42}
	dczMagic = [...]byte{0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00}
)

// streamHeader returns the bytes that precede a stream of coding e
// compressed against d.
func (d *Dictionary) streamHeader(e Encoding) []byte {
	if e == Brotli {
		return d.dcb
	}
	return d.dcz
}

// dictCoding returns the content coding of e compressed against a
// dictionary.
func dictCoding(e Encoding) string {
	if e == Brotli {
		return "dcb"
	}
	return "dcz"
}

// dictTable finds a handler's dictionaries by hash.
type dictTable map[[sha256.Size]byte]*Dictionary

func newDictTable(list []*Dictionary) dictTable {
	if len(list) == 0 {
		return nil
	}
	t := make(dictTable, len(list))
	for _, d := range list {
		t[d.hash] = d
	}
	return t
}

// dictRequest is what a request offers for dictionary compression: the
// dictionary it names, if the handler has it, and which of the two
// codings it accepts.
type dictRequest struct {
	dict     *Dictionary
	dcb, dcz bool
}

// lookup returns what r offers: nothing unless it names one of t's
// dictionaries in a single, well-formed Available-Dictionary and accepts
// dcb or dcz by name with a weight above zero ("*" does not count: a
// client sends the dictionary codings only with a dictionary to use).
func (t dictTable) lookup(r *http.Request) dictRequest {
	if t == nil {
		return dictRequest{}
	}
	v := r.Header["Available-Dictionary"]
	if len(v) != 1 {
		return dictRequest{}
	}
	hash, ok := parseByteSequence(header.TrimOWS(v[0]))
	if !ok {
		return dictRequest{}
	}
	d := t[hash]
	if d == nil {
		return dictRequest{}
	}
	q := dictRequest{dict: d}
	for rest := acceptEncoding(r.Header); rest != ""; {
		var entry string
		entry, rest = nextEntry(rest)
		name, weight, ok := parseCoding(entry)
		if !ok || weight == 0 {
			continue
		}
		switch {
		case header.EqualFoldASCII(name, "dcb"):
			q.dcb = true
		case header.EqualFoldASCII(name, "dcz"):
			q.dcz = true
		}
	}
	if !q.dcb && !q.dcz {
		return dictRequest{}
	}
	return q
}

// parseByteSequence decodes a Structured Field byte sequence (RFC 9651
// section 3.3.5) that holds a SHA-256 hash: ":", 44 characters of
// standard base64 with padding, ":".
func parseByteSequence(s string) ([sha256.Size]byte, bool) {
	var hash [sha256.Size]byte
	const n = 44 // base64 of 32 bytes
	if len(s) != n+2 || s[0] != ':' || s[n+1] != ':' {
		return hash, false
	}
	// Decode may write up to DecodedLen(44) = 33 bytes, the last of them
	// only for malformed padding.
	var src [n]byte
	var buf [n / 4 * 3]byte
	copy(src[:], s[1:n+1])
	got, err := base64.StdEncoding.Strict().Decode(buf[:], src[:])
	copy(hash[:], buf[:])
	return hash, err == nil && got == sha256.Size
}

// readable reports whether a response may be compressed against a
// dictionary by the test RFC 9842 section 9.3 sets servers: not when the
// request comes from another origin in a CORS mode the response does not
// allow, or in a mode whose response the requesting page cannot read, since
// the compressed size could then reveal the dictionary's or the body's
// content to that page.
func readable(r *http.Request, h http.Header) bool {
	site := r.Header.Get("Sec-Fetch-Site")
	if site == "" || site == "same-origin" {
		return true
	}
	switch r.Header.Get("Sec-Fetch-Mode") {
	case "", "navigate", "same-origin":
		return true
	case "cors":
		allow := h.Get("Access-Control-Allow-Origin")
		origin := r.Header.Get("Origin")
		return allow != "" && origin != "" && (allow == "*" || allow == origin)
	}
	return false
}

// zstdWindowLogDict returns the window of a dcz stream of a body of
// length bytes (-1: unknown) after d: large enough to reach back over the
// whole body into the dictionary where that fits, and within what RFC
// 9842 has clients accept: 8 MiB or 1.25 times the dictionary, whichever
// is larger, at most 128 MiB (a power of two no larger than that).
func (d *Dictionary) zstdWindowLog(length int64) int {
	limit := max(8<<20, len(d.data)+len(d.data)/4)
	top := min(bits.Len(uint(limit))-1, 27)
	if length < 0 {
		return top
	}
	need := uint64(len(d.data)) + uint64(max(length, 1))
	return min(max(bits.Len64(need-1), zstdMinWindowLog), top)
}

// getZstd returns a zstd encoder primed with d, started on dst.
func (d *Dictionary) getZstd(level zstd.EncoderLevel, windowLog int, dst io.Writer) (*zstd.Encoder, error) {
	p := d.zstdPool(level, windowLog)
	if e := p.get(); e != nil {
		e.Reset(dst)
		return e, nil
	}
	// The dictionary as history; an id of 0 leaves the frame without a
	// dictionary ID, as RFC 9842 has it (the hash in the header names
	// the dictionary).
	e, err := newZstd(level, windowLog, dst, zstd.WithEncoderDictRaw(0, d.data))
	if err != nil {
		return nil, fmt.Errorf("zstd encoder at %v with window 2^%d and dictionary %s: %w", level, windowLog, d.name, err)
	}
	return e, nil
}

func (d *Dictionary) putZstd(level zstd.EncoderLevel, windowLog int, e *zstd.Encoder) {
	e.Reset(nil)
	d.zstdPool(level, windowLog).put(e)
}

func (d *Dictionary) zstdPool(level zstd.EncoderLevel, windowLog int) *zstdPool {
	d.mu.Lock()
	defer d.mu.Unlock()
	k := zstdKey{level, windowLog}
	p := d.zstd[k]
	if p == nil {
		if d.zstd == nil {
			d.zstd = make(map[zstdKey]*zstdPool)
		}
		p = new(zstdPool)
		d.zstd[k] = p
	}
	return p
}
