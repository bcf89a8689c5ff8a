// Package percent writes the %XX escapes of URLs, for the sets of bytes
// each place that escapes them chooses.
package percent

import "strings"

const hex = "0123456789ABCDEF"

// Escape returns s with each byte that escaped reports written as %XX
// (upper-case hex), the others as they are.
func Escape(s string, escaped func(c byte) bool) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if escaped(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if escaped(c) {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
