// Package byterange reads the Range header's byte-range sets and lays out
// multipart/byteranges bodies, the way NGINX's range filter does, for
// every part of mosaic that answers 206: static files, the cache, and
// the proxy's *_force_ranges, which share SetHeader and Writer.
package byterange

import (
	"math"
	"strconv"
	"strings"
	"sync/atomic"
)

// Range is one satisfiable range of a representation: [Start, End).
type Range struct{ Start, End int64 }

// Verdict is what a Range header asks of the response.
type Verdict int

const (
	Whole          Verdict = iota // ignore the header: 200 with the whole representation
	Partial                       // 206 with the ranges
	NotSatisfiable                // 416
)

// Spec returns the byte-range set of a Range header value, without the
// "bytes=" unit, or false when the header does not ask for bytes. Other
// units are ignored, as RFC 9110 and NGINX do.
func Spec(v string) (string, bool) {
	if len(v) < 7 || !strings.EqualFold(v[:6], "bytes=") {
		return "", false
	}
	return v[6:], true
}

// Parse reads a byte-range set the way NGINX's range filter does, so
// that every client gets the same answer from mosaic as from NGINX:
//
//   - spaces may surround numbers, dashes and commas;
//   - a syntax error, or a set with no satisfiable range ("5-2", "-0",
//     "100-" on a shorter file), is 416; unsatisfiable ranges beside
//     satisfiable ones are dropped;
//   - "0-" style ranges of an empty file ask for nothing and get 200;
//   - more than limit ranges (limit > 0), or ranges that add up to more than
//     the file (overlaps, a cheap way to multiply the work), get the whole
//     file with 200.
//
// Ranges are appended to out, which lets the caller keep a small one on the
// stack.
func Parse(spec string, size int64, limit int, out []Range) ([]Range, Verdict) {
	const cutoff, cutlim = math.MaxInt64 / 10, math.MaxInt64 % 10
	at := func(i int) byte {
		if i < len(spec) {
			return spec[i]
		}
		return 0
	}
	digit := func(c byte) bool { return '0' <= c && c <= '9' }
	var total int64
	p := 0
	for {
		var start, end int64
		for at(p) == ' ' {
			p++
		}
		suffix, open := false, false
		if at(p) == '-' {
			suffix = true
			p++
		} else {
			if !digit(at(p)) {
				return nil, NotSatisfiable
			}
			for digit(at(p)) {
				d := int64(at(p) - '0')
				if start > cutoff || (start == cutoff && d > cutlim) {
					return nil, NotSatisfiable
				}
				start = start*10 + d
				p++
			}
			for at(p) == ' ' {
				p++
			}
			if at(p) != '-' {
				return nil, NotSatisfiable
			}
			p++
			for at(p) == ' ' {
				p++
			}
			if c := at(p); c == ',' || c == 0 {
				open = true
				end = size
			}
		}
		if !open {
			if !digit(at(p)) {
				return nil, NotSatisfiable
			}
			for digit(at(p)) {
				d := int64(at(p) - '0')
				if end > cutoff || (end == cutoff && d > cutlim) {
					return nil, NotSatisfiable
				}
				end = end*10 + d
				p++
			}
			for at(p) == ' ' {
				p++
			}
			if c := at(p); c != ',' && c != 0 {
				return nil, NotSatisfiable
			}
			if suffix {
				start = max(size-end, 0)
				end = size - 1
			}
			// From here on end is exclusive.
			if end >= size {
				end = size
			} else {
				end++
			}
		}
		if start < end {
			out = append(out, Range{start, end})
			total += end - start // cannot overflow: every range lies within size
			if limit > 0 && len(out) > limit {
				return nil, Whole
			}
		} else if start == 0 {
			return nil, Whole
		}
		if at(p) != ',' {
			break
		}
		p++
	}
	if len(out) == 0 {
		return nil, NotSatisfiable
	}
	if total > size {
		return nil, Whole
	}
	return out, Partial
}

// boundaries numbers the multipart boundaries, which NGINX writes as a
// counter zero-padded to 20 digits.
var boundaries atomic.Uint64

// NextBoundary returns a fresh multipart boundary.
func NextBoundary() string {
	var b [20]byte
	n := strconv.AppendUint(b[:0], boundaries.Add(1), 10)
	pad := 20 - len(n)
	copy(b[pad:], n)
	for i := range pad {
		b[i] = '0'
	}
	return string(b[:])
}

// AppendPartHeader appends the lines that open one part of a
// multipart/byteranges body, in NGINX's layout. A response without a
// Content-Type gives its parts none (RFC 9110 section 14.6), not an
// empty one, which is no media type.
func AppendPartHeader(b []byte, boundary, ctype string, r Range, size int64) []byte {
	b = append(b, "\r\n--"...)
	b = append(b, boundary...)
	if ctype != "" {
		b = append(b, "\r\nContent-Type: "...)
		b = append(b, ctype...)
	}
	b = append(b, "\r\nContent-Range: bytes "...)
	b = AppendContentRange(b, r, size)
	return append(b, "\r\n\r\n"...)
}

// AppendContentRange appends "first-last/size".
func AppendContentRange(b []byte, r Range, size int64) []byte {
	b = strconv.AppendInt(b, r.Start, 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, r.End-1, 10)
	b = append(b, '/')
	return strconv.AppendInt(b, size, 10)
}

// AppendClosingBoundary appends the line that ends a multipart body.
func AppendClosingBoundary(b []byte, boundary string) []byte {
	b = append(b, "\r\n--"...)
	b = append(b, boundary...)
	return append(b, "--\r\n"...)
}
