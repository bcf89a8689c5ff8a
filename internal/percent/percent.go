// Package percent writes the %XX escapes of URLs, for the set of bytes
// each place that escapes them chooses.
package percent

import "strings"

const hex = "0123456789ABCDEF"

// Set is the bytes a place escapes, looked up as a table so that
// escaping costs no call per byte (the proxy escapes each request's path).
type Set [256]bool

// NewSet returns the set of the bytes escaped reports.
func NewSet(escaped func(c byte) bool) *Set {
	var s Set
	for c := range s {
		s[c] = escaped(byte(c))
	}
	return &s
}

// Count is how many bytes of str the set escapes.
func (s *Set) Count(str string) int {
	n := 0
	for i := 0; i < len(str); i++ {
		if s[str[i]] {
			n++
		}
	}
	return n
}

// Append writes str to b with each byte of the set as %XX (upper-case
// hex), the others as they are.
func (s *Set) Append(b *strings.Builder, str string) {
	for i := 0; i < len(str); i++ {
		c := str[i]
		if s[c] {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
}

// Escape returns str with each byte of the set as %XX.
func (s *Set) Escape(str string) string {
	n := s.Count(str)
	if n == 0 {
		return str
	}
	var b strings.Builder
	b.Grow(len(str) + 2*n)
	s.Append(&b, str)
	return b.String()
}

// Unescape decodes %XX escapes as NGINX's ngx_unescape_uri does where it
// reads a URI that a response or a page names (X-Accel-Redirect, an SSI
// include): a "%" before a byte that is no hex digit is dropped and the
// byte kept; a "%" and one hex digit are dropped with the byte after
// them; an escape cut short by the end is dropped. Read the same way, a
// path is checked as NGINX will route it.
func Unescape(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] != '%':
			b = append(b, s[i])
		case i+1 < len(s) && !isHex(s[i+1]):
			b = append(b, s[i+1])
			i++
		default:
			if i+2 < len(s) && isHex(s[i+2]) {
				b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			}
			i += 2
		}
	}
	return string(b)
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// URI are the bytes NGINX (1.22's ngx_escape_uri, NGX_ESCAPE_URI)
// escapes when it puts a decoded path back into a request line or a
// Location: controls, space, '#', '%', '?', the characters RFC 3986 does
// not allow in a URI ('"', '<', '>', '\\', '^', '`', '{', '|', '}'), DEL
// and everything above ASCII. A strict upstream refuses a request line
// with those raw.
var URI = NewSet(func(c byte) bool {
	switch c {
	case '#', '%', '?', '"', '<', '>', '\\', '^', '`', '{', '|', '}':
		return true
	}
	return c <= ' ' || c >= 0x7f
})
