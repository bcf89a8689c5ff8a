package reason

import "testing"

// TestPhraseTable checks that the table Phrase reads gives every code the
// map's phrase, and none to a code outside it (negative, below 200, past
// the last phrased code, past 999).
func TestPhraseTable(t *testing.T) {
	for code := -2; code <= 1100; code++ {
		if got, want := Phrase(code), phrases[code]; got != want {
			t.Errorf("Phrase(%d) = %q, want %q", code, got, want)
		}
	}
	if got := Phrase(302); got != "Moved Temporarily" {
		t.Errorf("Phrase(302) = %q, NGINX's is Moved Temporarily", got)
	}
}
