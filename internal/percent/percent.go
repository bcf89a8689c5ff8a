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
