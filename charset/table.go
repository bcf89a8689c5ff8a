// Package charset is NGINX's ngx_http_charset_module's conversion of
// response bodies between charsets: the tables of a "charset_map" block
// and the recoders that stream a body through one, between two
// single-byte charsets or between a single-byte charset and UTF-8, with
// NGINX 1.22's replacements for what the target lacks.
package charset

import (
	"errors"
	"fmt"
	"strings"
)

// UTF8 is the name that makes a charset_map's second charset UTF-8,
// compared without regard to case, as NGINX does.
const UTF8 = "utf-8"

// maxSeq is the longest UTF-8 value a map line may give a byte: NGINX
// keeps each in a 4-byte slot with its length first.
const maxSeq = 3

// Table is one charset_map: the bytes of From and what they are in To,
// both ways. The zero value is not usable; NewTable makes one.
type Table struct {
	From, To string
	utf8     bool // To is UTF-8
	// Between two single-byte charsets: fwd is From to To, back To to From.
	fwd, back [256]byte
	// With UTF-8: seq[b] is the UTF-8 of From's byte b; pages index
	// From's byte by code point (high byte, then low byte), 0 for none.
	seq   [256][]byte
	pages [256]*[256]byte
}

// NewTable returns the table of "charset_map from to" before its lines:
// ASCII maps to itself, the other bytes to '?' (single-byte) or to
// nothing (from UTF-8, where NGINX writes a character reference). The
// errors are NGINX's.
func NewTable(from, to string) (*Table, error) {
	if strings.EqualFold(from, to) {
		return nil, fmt.Errorf("\"charset_map\" between the same charsets %q and %q", from, to)
	}
	if strings.EqualFold(from, UTF8) {
		// NGINX 1.22 takes this and then reads a single-byte table as
		// a UTF-8 one when it converts; 1.23 refuses it with this error.
		return nil, errors.New("\"charset_map\" with \"utf-8\" charset should be given in the second column")
	}
	t := &Table{From: from, To: to, utf8: strings.EqualFold(to, UTF8)}
	if t.utf8 {
		page := new([256]byte)
		t.pages[0] = page
		for i := 0; i < 256; i++ {
			if i < 0x80 {
				t.seq[i] = []byte{byte(i)}
				page[i] = byte(i)
			} else {
				t.seq[i] = []byte{'?'}
			}
		}
		return t, nil
	}
	for i := 0; i < 256; i++ {
		if i < 0x80 {
			t.fwd[i], t.back[i] = byte(i), byte(i)
		} else {
			t.fwd[i], t.back[i] = '?', '?'
		}
	}
	return t, nil
}

// UTF8 says whether the table's second charset is UTF-8.
func (t *Table) UTF8() bool { return t.utf8 }

// Map is one line of the block, "src dst": src a byte of From in hex, dst
// a byte of To in hex or, for UTF-8, the character's bytes in hex. A
// later line for the same byte replaces the earlier one. The error is
// NGINX's ("invalid value").
func (t *Table) Map(src, dst string) error {
	s, ok := hexToInt(src)
	if !ok || s > 255 {
		return fmt.Errorf("invalid value %q", src)
	}
	if !t.utf8 {
		d, ok := hexToInt(dst)
		if !ok || d > 255 {
			return fmt.Errorf("invalid value %q", dst)
		}
		t.fwd[s], t.back[d] = byte(d), byte(s)
		return nil
	}
	// NGINX reads the value two digits at a time and wants its first
	// bytes to be one character of the BMP; a value longer than its slot
	// (which NGINX 1.22 would write past) is refused.
	if dst == "" || len(dst)%2 != 0 || len(dst)/2 > maxSeq {
		return fmt.Errorf("invalid value %q", dst)
	}
	seq := make([]byte, len(dst)/2)
	for i := range seq {
		v, ok := hexToInt(dst[2*i : 2*i+2])
		if !ok {
			return fmt.Errorf("invalid value %q", dst)
		}
		seq[i] = byte(v)
	}
	n, _ := decode(seq)
	if n > 0xffff {
		return fmt.Errorf("invalid value %q", dst)
	}
	t.seq[s] = seq
	page := t.pages[n>>8]
	if page == nil {
		page = new([256]byte)
		t.pages[n>>8] = page
	}
	page[n&0xff] = byte(s)
	return nil
}

// hexToInt is NGINX's ngx_hextoi: digits only, either case, not empty.
func hexToInt(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	v := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		if v > (1<<31-1-int(c))/16 {
			return 0, false
		}
		v = v*16 + int(c)
	}
	return v, true
}

// The results of decode that are not characters, NGINX's values: an
// invalid sequence and one cut short by the end of the input.
const (
	invalid    = 0xffffffff
	incomplete = 0xfffffffe
)

// decode is NGINX's ngx_utf8_decode: the character at the start of p and
// the bytes it takes. It trusts the first byte for the length (0xf8 to
// 0xff start four bytes), takes surrogates and code points past 0x10ffff,
// and on a byte that does not continue the sequence counts that byte in
// too. incomplete comes with 0: p ends inside the sequence.
func decode(p []byte) (uint32, int) {
	u := uint32(p[0])
	var n int
	var valid uint32
	switch {
	case u >= 0xf0:
		u, valid, n = u&0x07, 0xffff, 3
	case u >= 0xe0:
		u, valid, n = u&0x0f, 0x7ff, 2
	case u >= 0xc2:
		u, valid, n = u&0x1f, 0x7f, 1
	default:
		return invalid, 1
	}
	if len(p)-1 < n {
		return incomplete, 0
	}
	for i := 1; i <= n; i++ {
		if p[i] < 0x80 {
			return invalid, i + 1
		}
		u = u<<6 | uint32(p[i]&0x3f)
	}
	if u > valid {
		return u, n + 1
	}
	return invalid, n + 1
}
