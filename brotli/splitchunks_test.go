package brotli

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSplitChunks checks the splits of symbolize and splitChunks (the
// first counts the chunks of commands as it chooses the symbols, the
// second those of distances from e.syms) against plan given the two
// sequences, at qualities 5-9: commands whose lengths and distances
// spread wider for a stretch (so that splits pay), with no distance
// coded, few and many.
func TestSplitChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 60 {
		q := 5 + round%5
		var e encoder
		e.q = qualities[q]
		e.ring.reset(true)
		n := []int{0, 1, 100, 300, 2000, 9000}[round%6]
		near := round%4 == 1 // every distance the last one: none coded
		var cmds []command
		for k := range n {
			wide := k > n/3 && k < 2*n/3
			c := command{insert: uint32(rng.IntN(8)), copy: 4 + uint32(rng.IntN(12)), dist: e.ring.d[0]}
			span := 1 << 10
			if wide {
				c.insert, c.copy, span = uint32(rng.IntN(200)), 4+uint32(rng.IntN(250)), 1<<16
			}
			if !near && rng.IntN(3) != 0 {
				c.dist = 1 + uint32(rng.IntN(span))
			}
			cmds = append(cmds, c)
		}
		cmds = append(cmds, command{insert: uint32(rng.IntN(50))})
		e.cmds = cmds
		e.symbolize()

		ref := encoder{q: e.q, dist: e.dist}
		var cseq, dseq []uint16
		for _, s := range e.syms {
			cseq = append(cseq, s.cmdSym())
			if ds := s.distSym(); ds != noDist {
				dseq = append(dseq, ds)
			}
		}
		ref.cmdSplit.plan(cseq, maxAlphabet, minCmdChunk, e.q.cmdTypes, e.q.rounds, ref.refinement(cmdSwitchCost))
		ref.distSplit.plan(dseq, e.dist.alphabet(), minCmdChunk, e.q.distTypes, e.q.rounds, ref.refinement(distSwitchCost))

		if got := e.splitChunks(); got != len(dseq) {
			t.Fatalf("round %d (q%d): %d distances, want %d", round, q, got, len(dseq))
		}
		for _, p := range []struct {
			name      string
			got, want *blockSplit
			alpha     int
		}{{"commands", &e.cmdSplit, &ref.cmdSplit, maxAlphabet}, {"distances", &e.distSplit, &ref.distSplit, e.dist.alphabet()}} {
			g, w := p.got, p.want
			if g.ntypes != w.ntypes || !slices.Equal(g.runs, w.runs) ||
				!slices.Equal(g.cl.clHist[:g.ntypes*p.alpha], w.cl.clHist[:w.ntypes*p.alpha]) {
				t.Fatalf("round %d (q%d, %d commands, %d distances): %s split into %d types, runs %v; want %d, %v",
					round, q, len(e.syms), len(dseq), p.name, g.ntypes, g.runs, w.ntypes, w.runs)
			}
		}
		if n >= 2000 && (e.cmdSplit.ntypes < 2 || !near && e.distSplit.ntypes < 2) {
			t.Errorf("round %d (q%d): %d and %d types: the test's commands no longer split", round, q, e.cmdSplit.ntypes, e.distSplit.ntypes)
		}
	}
}
