package esi_test

import (
	"strings"
	"testing"
)

// TestMaxHeldSizeBoundsTryStitched: a stitched delivery, which writes
// the page's runs from their stored forms, decides an <esi:try> as the
// first delivery, parsed, did: an attempt whose text is over
// esi_max_held_size fails whether its runs come as text or stored.
func TestMaxHeldSizeBoundsTryStitched(t *testing.T) {
	const held = 64 << 10
	body := []byte(`[<esi:try><esi:attempt>` + strings.Repeat("x", 4*held) + `</esi:attempt><esi:except>E</esi:except></esi:try>]`)
	for _, c := range stitchCodings {
		opts := stitchOpts(newPlans(t, 16<<20), c, false)
		opts.MaxHeldSize = held
		h := mustNew(t, storedPage(body, "HIT", 1000, false), opts)
		for round := range 3 {
			w := serve(h, planRequest("/page", "", c.String()))
			if got := decoded(t, w); got != "[E]" {
				t.Fatalf("%v, delivery %d: got %d bytes %.40q, want %q", c, round+1, len(got), got, "[E]")
			}
		}
	}
}
