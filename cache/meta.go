package cache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"time"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// Meta describes a stored response. The handler fills it in; stores keep
// it, encoded with MarshalBinary where they need bytes.
type Meta struct {
	// Key is the entry's store key.
	Key string
	// Status is the response status; 0 marks a Vary marker, which has no
	// body and only lists the request headers that select a variant.
	Status int
	// Header is the stored response header: hop-by-hop fields, Age,
	// X-Accel-Expires and the fields the cache must not share are gone, and
	// Content-Length is set, unless the response came without one. Its slices are full (len == cap), so a handler
	// that appends to a value it got from a hit copies instead of writing
	// into the stored entry.
	Header http.Header
	// Size is the body length in bytes.
	Size int64

	// RequestTime and ResponseTime bracket the upstream exchange that
	// produced (or last validated) the response; InitialAge is its
	// corrected initial age (RFC 9111 section 4.2.3).
	RequestTime  time.Time
	ResponseTime time.Time
	InitialAge   time.Duration
	// FreshUntil is when the response becomes stale.
	FreshUntil time.Time

	// StaleWhileRevalidate and StaleIfError are the RFC 5861 windows after
	// FreshUntil.
	StaleWhileRevalidate time.Duration
	StaleIfError         time.Duration
	// MustRevalidate: must-revalidate, proxy-revalidate or s-maxage; a stale
	// copy is never served without validation.
	MustRevalidate bool
	// NoCache: Cache-Control no-cache (or a zero lifetime with a
	// validator); every use is validated first.
	NoCache bool

	// Tags are the purge tags from Surrogate-Key / Cache-Tag.
	Tags []string
	// Generation is the store generation the entry was written in.
	Generation uint64
	// BodyID names the stored body: drawn at random when the body is
	// stored, kept by Update, which keeps the body. Two entries, or an
	// entry and its refill, never share one, so what is derived from a
	// body (esi's parse plans) is keyed on it. 0: unknown (an entry
	// written by the previous layout).
	BodyID uint64

	// Spell lists the stored header's field names as the upstream wrote
	// them, where the header holds them in canonical case ("X_A" for
	// "X_a", one a line for a name written on several lines: see
	// header.Speller), at most header.MaxSpellings; a hit sends them so,
	// as NGINX sends the head it stored. nil for a head of canonical
	// names, and for an entry written by a layout before version 3.
	Spell []string

	// Vary (markers only) lists the canonical request header names that
	// select a variant, and VaryEpoch the marker's identity, which is part
	// of every variant key so that a purged marker orphans its variants.
	// A marker's FreshUntil and stale windows are the latest and longest
	// of its variants', so that a store that expires entries by them
	// (Redis) keeps the marker while a variant may be used.
	Vary      []string
	VaryEpoch string
}

func (m *Meta) isVaryMarker() bool { return m.Status == 0 }

// age is the response's current age (RFC 9111 section 4.2.3).
func (m *Meta) age(now time.Time) time.Duration {
	return max(addSat(m.InitialAge, now.Sub(m.ResponseTime)), 0)
}

// The encoding starts with a version byte so that a store written by a
// different layout is dropped instead of misread. Versions 1, without
// BodyID, and 2, without Spell, are still read: their hits send the
// names in canonical case, as they did, until they expire or are
// refilled.
const (
	metaVersion   = 3
	metaVersionV1 = 1
	metaVersionV2 = 2
)

const (
	flagMustRevalidate = 1 << iota
	flagNoCache
)

// MarshalBinary encodes m compactly; UnmarshalBinary reverses it.
func (m *Meta) MarshalBinary() ([]byte, error) {
	return m.appendBinary(make([]byte, 0, 256)), nil
}

func (m *Meta) appendBinary(b []byte) []byte {
	b = append(b, metaVersion)
	b = appendString(b, m.Key)
	b = binary.AppendUvarint(b, uint64(m.Status))
	b = binary.AppendVarint(b, m.Size)
	b = appendTime(b, m.RequestTime)
	b = appendTime(b, m.ResponseTime)
	b = binary.AppendVarint(b, int64(m.InitialAge))
	b = appendTime(b, m.FreshUntil)
	b = binary.AppendVarint(b, int64(m.StaleWhileRevalidate))
	b = binary.AppendVarint(b, int64(m.StaleIfError))
	var flags uint64
	if m.MustRevalidate {
		flags |= flagMustRevalidate
	}
	if m.NoCache {
		flags |= flagNoCache
	}
	b = binary.AppendUvarint(b, flags)
	b = binary.AppendUvarint(b, m.Generation)
	b = appendStrings(b, m.Tags)
	b = appendStrings(b, m.Vary)
	b = appendString(b, m.VaryEpoch)
	b = binary.AppendUvarint(b, m.BodyID)
	// Header names sorted, so that equal metadata encodes to equal bytes.
	names := make([]string, 0, len(m.Header))
	for k := range m.Header {
		names = append(names, k)
	}
	slices.Sort(names)
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, k := range names {
		b = appendString(b, k)
		b = appendStrings(b, m.Header[k])
	}
	return appendStrings(b, m.Spell)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendStrings(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendString(b, s)
	}
	return b
}

// Times are encoded as Unix nanoseconds, which an int64 holds from 1678
// to 2262. UnixNano is undefined outside that range and wraps: a
// FreshUntil in 9999 ("Expires: ... 9999", a "never expires" idiom) read
// back as 1816, stale. Such times are written as the nearest time the
// encoding holds; a freshness that ends in 2262 is as good as forever.
var (
	minEncodedTime = time.Unix(0, math.MinInt64)
	maxEncodedTime = time.Unix(0, math.MaxInt64)
)

func appendTime(b []byte, t time.Time) []byte {
	switch {
	case t.IsZero():
		return binary.AppendVarint(b, 0)
	case t.Before(minEncodedTime):
		t = minEncodedTime
	case t.After(maxEncodedTime):
		t = maxEncodedTime
	}
	return binary.AppendVarint(b, t.UnixNano())
}

var errShortMeta = errors.New("truncated metadata")

// metaReader decodes the fields appendBinary wrote, remembering the first
// error so that the decoder reads as a straight list of fields.
type metaReader struct {
	b   []byte
	err error
}

func (r *metaReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errShortMeta
		return 0
	}
	r.b = r.b[n:]
	return v
}

// varint decodes what uvarint reads as binary.Varint does (zigzag).
func (r *metaReader) varint() int64 {
	ux := r.uvarint()
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x
}

func (r *metaReader) string() string {
	n := r.uvarint()
	if r.err != nil {
		return ""
	}
	if n > uint64(len(r.b)) {
		r.err = errShortMeta
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *metaReader) strings() []string {
	n := r.uvarint()
	if r.err != nil || n == 0 {
		return nil
	}
	// Every string takes at least one byte, which bounds what a corrupt
	// count can make us allocate.
	if n > uint64(len(r.b)) {
		r.err = errShortMeta
		return nil
	}
	ss := make([]string, 0, n)
	for range n {
		ss = append(ss, r.string())
	}
	return ss[:len(ss):len(ss)]
}

func (r *metaReader) time() time.Time {
	ns := r.varint()
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// UnmarshalBinary decodes what MarshalBinary produced.
func (m *Meta) UnmarshalBinary(data []byte) error {
	if len(data) == 0 || data[0] < metaVersionV1 || data[0] > metaVersion {
		return fmt.Errorf("metadata version: %w", ErrCorrupt)
	}
	r := &metaReader{b: data[1:]}
	var d Meta
	d.Key = r.string()
	d.Status = int(r.uvarint())
	d.Size = r.varint()
	d.RequestTime = r.time()
	d.ResponseTime = r.time()
	d.InitialAge = time.Duration(r.varint())
	d.FreshUntil = r.time()
	d.StaleWhileRevalidate = time.Duration(r.varint())
	d.StaleIfError = time.Duration(r.varint())
	flags := r.uvarint()
	d.MustRevalidate = flags&flagMustRevalidate != 0
	d.NoCache = flags&flagNoCache != 0
	d.Generation = r.uvarint()
	d.Tags = r.strings()
	d.Vary = r.strings()
	d.VaryEpoch = r.string()
	if data[0] >= metaVersionV2 {
		d.BodyID = r.uvarint()
	}
	n := r.uvarint()
	if r.err == nil && n > uint64(len(r.b)) {
		r.err = errShortMeta
	}
	if r.err == nil {
		d.Header = make(http.Header, n)
		for range n {
			k := r.string()
			d.Header[k] = r.strings()
		}
	}
	if data[0] >= metaVersion {
		d.Spell = r.strings()
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = errors.New("trailing bytes after metadata")
	}
	// More spellings than a fill lists can only come from a corrupt or
	// foreign store (Redis is shared): kept, each field sent would be
	// compared with all of them, the work the bound keeps linear.
	if r.err == nil && (d.Size < 0 || d.Status > 999 || len(d.Spell) > header.MaxSpellings) {
		r.err = errors.New("metadata out of range")
	}
	if r.err != nil {
		return fmt.Errorf("decoding metadata: %w: %w", ErrCorrupt, r.err)
	}
	*m = d
	return nil
}
