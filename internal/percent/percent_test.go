package percent

import (
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	space := NewSet(func(c byte) bool { return c == ' ' || c >= 0x7f })
	for in, want := range map[string]string{"": "", "a b": "a%20b", "plain": "plain", "\xff ": "%FF%20"} {
		if got := space.Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
		if got := space.Count(in); got != strings.Count(want, "%") {
			t.Errorf("Count(%q) = %d", in, got)
		}
	}
}

// TestUnescape: ngx_unescape_uri's reading of escapes that are none.
func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		"/a%20b":   "/a b",
		"/%2e%2E/": "/../",
		"/a%zzb":   "/azzb", // "%" before a byte that is no hex digit: dropped
		"/a%2zb":   "/ab",   // "%" and one hex digit: dropped with the byte after
		"/a%2":     "/a",    // cut short by the end
		"/a%":      "/a",
		"/plain":   "/plain",
	} {
		if got := Unescape(in); got != want {
			t.Errorf("Unescape(%q) = %q, want %q", in, got, want)
		}
	}
}
