package compress

import (
	"math"
	"strconv"
	"testing"
)

// TestLengthText checks the compressed length's digits against
// strconv's, from 0 to the largest int64, each in a fresh value as
// sendHeader has it, and that a second value's digits leave the first's
// string as it was.
func TestLengthText(t *testing.T) {
	var texts []string
	var want []string
	for _, n := range []int64{0, 1, 9, 10, 99, 100, 1234, 65536, 1e9, 1<<53 + 1, math.MaxInt64} {
		v := new(codingValues)
		texts = append(texts, v.lengthText(n))
		want = append(want, strconv.FormatInt(n, 10))
	}
	for i := range texts {
		if texts[i] != want[i] {
			t.Errorf("lengthText: %q, want %q", texts[i], want[i])
		}
	}
}
