package esi

import (
	"bytes"
	"math"
	"testing"
	"time"
)

// TestDecodeEntitiesLinear: an attribute of '&' without ';' (up to the 16
// KiB of a tag, from the page) costs about what one of entities of its
// length costs, not the square of its length: each '&' looks for its ';'
// within the longest reference only.
func TestDecodeEntitiesLinear(t *testing.T) {
	amps := bytes.Repeat([]byte("&"), maxTag)
	ents := bytes.Repeat([]byte("&amp;"), maxTag/5)
	cost := func(v []byte) time.Duration {
		best := time.Duration(math.MaxInt64)
		for range 5 {
			start := time.Now()
			decodeEntities(v)
			best = min(best, time.Since(start))
		}
		return best
	}
	if a, e := cost(amps), cost(ents); a > 10*e {
		t.Errorf("%d bytes of '&' took %v, %d bytes of entities %v", len(amps), a, len(ents), e)
	}
}
