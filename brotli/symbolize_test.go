package brotli

import (
	"math/rand/v2"
	"testing"
)

// TestSymbolizeShortcut checks symbolize, which chooses the usual
// commands' symbols in its own loop, against command and tail for every
// command: random lengths (short and long), distances the ring holds, its
// neighbours and new ones, static dictionary references, with a known and
// a partly known ring, the plain distance code and the font mode's.
func TestSymbolizeShortcut(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	length := func() uint32 {
		if rng.IntN(8) == 0 {
			return uint32(rng.IntN(30000))
		}
		return uint32(rng.IntN(300))
	}
	for round := range 200 {
		var e encoder
		if round%3 == 2 {
			e.dist = distParams{postfix: 1, direct: 12}
		}
		e.ring.reset(round%4 != 3)
		want := e.ring // to draw distances from
		var cmds []command
		for range 500 {
			c := command{insert: length(), copy: 4 + length()}
			switch r := rng.IntN(10); {
			case r < 3:
				c.dist = want.d[rng.IntN(4)]
			case r < 5:
				c.dist = uint32(max(1, int(want.d[rng.IntN(2)])+rng.IntN(7)-3))
			default:
				c.dist = 1 + uint32(rng.IntN(1<<20))
			}
			if rng.IntN(20) == 0 {
				c.dict, c.cut = true, uint8(rng.IntN(10))
				c.copy = 4 + uint32(rng.IntN(20))
				c.dist = 1<<20 + uint32(rng.IntN(1<<20))
			}
			if !c.dict && (want.known == 0 || c.dist != want.d[0]) {
				want.push(c.dist)
			}
			cmds = append(cmds, c)
		}
		cmds = append(cmds, command{insert: length()})
		e.cmds = cmds
		start := e.ring
		extra := e.symbolize()

		var ref encoder
		ref.dist, ref.ring = e.dist, start
		z := ref.symbolizer()
		for k, c := range cmds {
			var s cmdSyms
			if c.copy == 0 {
				s = z.tail(c.insert)
			} else {
				s = z.command(c.insert, c.copy, uint32(int8(c.cut)), c.dist, c.dict)
			}
			if s != e.syms[k] {
				t.Fatalf("round %d, command %d %+v: symbols %+v, want %+v", round, k, c, e.syms[k], s)
			}
		}
		if extra != z.extraBits || e.ring != z.ring || e.cmdHist != ref.cmdHist || e.distHist != ref.distHist {
			t.Fatalf("round %d: extra bits %d (want %d), ring %v (want %v), or the histograms differ",
				round, extra, z.extraBits, e.ring, z.ring)
		}
	}
}

// TestDistanceInverse: distance undoes code for the parameters the
// encoder uses (NPOSTFIX 0 and NDIRECT 0; font mode's 1 and 12) and the
// widest others, over every distance below 2^17 and a spread above up to
// the largest window's; fastTally takes the ring's distances back from
// the symbols through it.
func TestDistanceInverse(t *testing.T) {
	for _, p := range []distParams{{}, {postfix: 1, direct: 12}, {postfix: 3, direct: 120}, {postfix: 2, direct: 0}} {
		for d := uint32(1); d < 1<<24; d += 1 + d>>17*997 {
			sym, nbits, extra := p.code(d)
			if got := p.distance(sym, nbits, extra); got != d {
				t.Fatalf("%+v: distance %d coded as %d, %d bits of %d, reads back as %d", p, d, sym, nbits, extra, got)
			}
		}
	}
}
