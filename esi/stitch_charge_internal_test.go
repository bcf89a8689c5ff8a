package esi

import (
	"strings"
	"testing"
)

// TestStoredFormCharge: a stored form is charged len() to the zone, so it
// must not keep a larger allocation alive (zstd's EncodeAll allocates for
// the worst case).
func TestStoredFormCharge(t *testing.T) {
	plain := []byte(strings.Repeat("<div class=\"row\">same text again and again</div>\n", 5000)) // ~250 KB
	for _, c := range []Coding{CodingGzip, CodingZstd} {
		st := &step{kind: stepText, n: int64(len(plain)), run: new(storedRun)}
		charged := storedForm(st, c, 6, []seg{{data: plain}})
		form := st.run.gzip
		if c == CodingZstd {
			form = st.run.zstd
		}
		t.Logf("%v: run %d B, charged %d B, retained cap %d B (%.1fx)", c, len(plain), charged, cap(form), float64(cap(form))/float64(charged))
		if int64(cap(form)) > 2*charged {
			t.Errorf("%v: zone charged %d B but %d B stay allocated", c, charged, cap(form))
		}
	}
}
