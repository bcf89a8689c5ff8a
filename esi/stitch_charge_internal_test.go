package esi

import (
	"strings"
	"testing"
)

// TestStoredFormCharge: a stored form is charged len() to the zone, so it
// must not keep a larger allocation alive (zstd's EncodeAll allocates for
// the worst case, brotli's output buffer grows by doubling).
func TestStoredFormCharge(t *testing.T) {
	plain := []byte(strings.Repeat("<div class=\"row\">same text again and again</div>\n", 5000)) // ~250 KB
	for _, c := range []Coding{CodingGzip, CodingZstd, CodingBrotli} {
		st := &step{kind: stepText, n: int64(len(plain)), run: new(storedRun)}
		var charged int64
		storedForm(st, c, 6, []seg{{data: plain}}, func(n int64) bool { charged = n; return true })
		form := st.run.forms[c]
		t.Logf("%v: run %d B, charged %d B, retained cap %d B (%.1fx)", c, len(plain), charged, cap(form), float64(cap(form))/float64(charged))
		if int64(cap(form)) > 2*charged {
			t.Errorf("%v: zone charged %d B but %d B stay allocated", c, charged, cap(form))
		}
	}
}
