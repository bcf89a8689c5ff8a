package compress

import (
	"strings"
	"testing"
)

// TestLowerMediaType checks the one-pass type against the two passes it
// replaced: mediaType, then strings.ToLower where the type has a byte in
// 'A'..'Z' (ToLower would also rewrite invalid UTF-8, which a type
// without such a byte kept as it came): parameters and the whitespace
// around the type dropped, upper case lowered only in the type (a
// charset's case is no concern), every byte value beside lower-case
// letters (the bytes next to 'A' and 'Z', non-ASCII ones whose low bits
// spell a letter), and no allocation for a type already in lower case.
func TestLowerMediaType(t *testing.T) {
	ref := func(ct string) string {
		mt := mediaType(ct)
		if strings.ContainsFunc(mt, func(r rune) bool { return 'A' <= r && r <= 'Z' }) {
			return strings.ToLower(mt)
		}
		return mt
	}
	cases := []string{
		"", ";", " ; x", "application/json", "Application/JSON",
		"text/html; charset=UTF-8", "TEXT/html;charset=utf-8", " \ttext/Plain \t; q=1",
		"image/svg+xml", "a", "Z", "@[`{", "application/vnd.Api+json ",
	}
	for b := range 256 {
		cases = append(cases, "a"+string(rune(b))+"z", string([]byte{byte(b)}), string([]byte{'x', byte(b), ';', 'A'}))
	}
	for _, ct := range cases {
		if got, want := lowerMediaType(ct), ref(ct); got != want {
			t.Errorf("lowerMediaType(%q) = %q, want %q", ct, got, want)
		}
	}
	ct := "application/json; charset=UTF-8"
	if n := testing.AllocsPerRun(100, func() { _ = lowerMediaType(ct) }); n != 0 {
		t.Errorf("lowerMediaType(%q): %v allocations, want none", ct, n)
	}
}
