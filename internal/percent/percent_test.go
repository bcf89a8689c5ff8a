package percent

import "testing"

func TestEscape(t *testing.T) {
	space := func(c byte) bool { return c == ' ' || c >= 0x7f }
	for in, want := range map[string]string{"": "", "a b": "a%20b", "plain": "plain", "\xff ": "%FF%20"} {
		if got := Escape(in, space); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}
