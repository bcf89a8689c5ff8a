package brotli

import (
	"bytes"
	"slices"
	"testing"
)

// TestWordTransforms refers to words with every transform of
// wordTransforms, in one stream: both decoders must write the prefix, the
// word (upper case first, or all of it, where the entry says so) and the
// suffix.
func TestWordTransforms(t *testing.T) {
	var e encoder
	e.setup(Options{Quality: 0, LGWin: 16}, 16, 0, true)
	e.writeWindow()
	var want []byte
	n := 0
	for _, group := range wordTransforms {
		pre := group.prefix
		for k, tr := range slices.Concat(group.plain, group.upper, group.all) {
			upper := k >= len(group.plain)
			all := k >= len(group.plain)+len(group.upper)
			for _, l := range []int{4, 7, 12} {
				idx := (n*131 + l*17) % (1 << dictBits[l])
				n++
				w := dictWord(l, idx)
				if upper && (w[0] < 'a' || w[0] > 'z') || all && slices.ContainsFunc(w, func(c byte) bool { return c >= 0x80 }) {
					continue // upper case is tested on ASCII letters
				}
				out := append([]byte(pre), w...)
				switch {
				case all:
					copy(out[len(pre):], bytes.ToUpper(w))
				case upper:
					out[len(pre)] -= 'a' - 'A'
				}
				out = append(out, tr.suffix...)
				d := dictDistance(min(e.maxDist, uint32(len(want))), l, idx, tr.id)
				e.cmds = append(e.cmds, command{copy: uint32(len(out)), cut: uint8(int8(l - len(out))), dist: d, dict: true})
				want = append(want, out...)
			}
		}
	}
	w := window{data: make([]byte, len(want)), base: 1, streamA: 1, end: len(want)}
	e.codeMetaBlock(&w, 0, unsymbolized, e.ring)
	e.writeLast()
	checkBoth(t, e.bw.buf, want)
}

// TestWordTransformsUsed: prose whose words come with spaces, commas,
// quotes and capitals is coded at 10 and 11 with references that add
// text to their word, and decodes.
func TestWordTransformsUsed(t *testing.T) {
	in := []byte(`The Window of the house, and Home. "Market" is open='yes' for Service. ` +
		`Moreover, Family, Country and Paper: Return(Number) with Content="text"`)
	for _, q := range []int{10, 11} {
		enc, err := NewEncoder(Options{Quality: q})
		if err != nil {
			t.Fatal(err)
		}
		comp := enc.Encode(nil, in)
		checkBoth(t, comp, in)
		added := 0
		for _, c := range enc.e.cmds {
			if c.dict && int8(c.cut) < 0 {
				added++
			}
		}
		if added == 0 {
			t.Errorf("q%d: no reference adds text to its word (%d bytes)", q, len(comp))
		}
	}
}
