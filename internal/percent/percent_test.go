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
