package brotli

import (
	"math"
	"math/bits"
)

// Block splitting (RFC 7932 section 6), used from quality 5 for the
// insert-and-copy symbols and the distance symbols, and from quality 10
// for literals. A meta-block's symbols of one kind are cut into chunks of
// equal length, the chunks' histograms are clustered (clusterer) into
// block types, each with its own prefix code, and runs of chunks of one
// type become blocks. From quality 10 the boundaries are then moved
// symbol by symbol (refine). The decoder is told of each switch by a block
// type code and a block count code.

// blockRun is one block: its type, length in symbols and the codes that
// announce it (the first block's type is 0 and needs no code).
type blockRun struct {
	n      uint32
	typ    uint8
	tsym   uint8 // block type code symbol
	csym   uint8 // block count code symbol
	cbits  uint8
	cextra uint32
	// The switch as the writer emits it: the type code, the count code
	// and its extra bits (at most 54 bits), once writeHeader has built
	// the codes.
	sw     uint64
	swBits uint8
}

// blockLenExtra holds the extra bits of the 26 block count codes; code i
// stands for blockLenBase[i] plus that many bits.
var (
	blockLenExtra = [26]uint8{2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 7, 8, 9, 10, 11, 12, 13, 24}
	blockLenBase  = func() (t [26]uint32) {
		t[0] = 1
		for i := 1; i < len(t); i++ {
			t[i] = t[i-1] + 1<<blockLenExtra[i-1]
		}
		return t
	}()
)

// blockLenCode returns the block count code for a block of n symbols.
func blockLenCode(n uint32) (code, nbits uint8, extra uint32) {
	c := len(blockLenBase) - 1
	for blockLenBase[c] > n {
		c--
	}
	return uint8(c), blockLenExtra[c], n - blockLenBase[c]
}

// blockSplit is the plan for one kind of symbol in a meta-block.
type blockSplit struct {
	cl     clusterer
	ntypes int
	runs   []blockRun
	// Scratch of refine: each symbol's type, and per symbol the types
	// whose cheapest path switched to them there (a bit each) and the
	// type the switch came from.
	types    []uint8
	switched []uint16
	from     []uint8
	costT    []float32 // refine's costs, symbol-major: costT[s*ntypes+t]
	// The codes for the block type and block count symbols.
	typeHist   [maxTrees + 2]uint32
	typeLens   [maxTrees + 2]uint8
	typeCodes  [maxTrees + 2]uint32
	countHist  [26]uint32
	countLens  [26]uint8
	countCodes [26]uint32
}

// switchBits estimates what announcing a block costs.
const switchBits = 12

// plan splits seq (symbols below alpha) into blocks of at most limit
// types; chunks are at least minChunk symbols. With refine > 0, the
// boundaries are then moved symbol by symbol in that many rounds, a
// switch of type priced at switchCost bits.
func (b *blockSplit) plan(seq []uint16, alpha, minChunk, limit, rounds, refine int, switchCost float32) {
	if len(seq) == 0 {
		// One (empty) block; only its type's code is written.
		b.cl.prepare(1, alpha)
		b.ntypes = b.cl.run(1, 0, nil)
		b.runs = b.runs[:0]
		return
	}
	chunk := max(minChunk, (len(seq)+63)/64)
	items := max((len(seq)+chunk-1)/chunk, 1)
	hist := b.cl.prepare(items, alpha)
	for i, s := range seq {
		hist[i/chunk*alpha+int(s)]++
	}
	if items < 2 {
		limit = 1
	}
	b.ntypes = b.cl.run(limit, rounds, func(k int) float64 {
		// Refined splits start from as many types as the symbols pay
		// trees for: refine and merge decide what the switches cost.
		if k == 1 || items < 2 || refine > 0 {
			return 0
		}
		runs := 1
		for i := 1; i < items; i++ {
			if b.cl.assign[i] != b.cl.assign[i-1] {
				runs++
			}
		}
		// The runs, and the codes for types and counts.
		return float64(runs*switchBits) + 80
	})
	b.runs = b.runs[:0]
	if refine > 0 && b.ntypes > 1 {
		b.refine(seq, alpha, refine, switchCost)
		if b.merge(seq, alpha, switchCost) && b.ntypes > 1 {
			b.refine(seq, alpha, 2, switchCost)
		}
		// Runs of symbols of one type are one block.
		for _, t := range b.types[:len(seq)] {
			if k := len(b.runs) - 1; k >= 0 && b.runs[k].typ == t {
				b.runs[k].n++
				continue
			}
			b.runs = append(b.runs, blockRun{n: 1, typ: t})
		}
	} else {
		// Runs of chunks of one type are one block.
		for i := 0; i < items; i++ {
			n := uint32(min(chunk, len(seq)-i*chunk))
			t := b.cl.assign[i]
			if k := len(b.runs) - 1; k >= 0 && b.runs[k].typ == t {
				b.runs[k].n += n
				continue
			}
			b.runs = append(b.runs, blockRun{n: n, typ: t})
		}
	}
	b.codes()
}

// refine moves the boundaries between blocks symbol by symbol. Each
// round prices every symbol with every type's code (from the types'
// counts) and finds the cheapest assignment of types to the symbols, a
// change of type costing switchCost bits: a shortest path through
// (symbol, type), kept as one running cost per type. The types' counts
// are then taken again from the assignment for the next round. Types
// that lose all their symbols are dropped, and the others numbered in
// order of first use, as the decoder starts with type 0. The result is
// in b.types, and the types' counts in b.cl.clHist and clTotal.
func (b *blockSplit) refine(seq []uint16, alpha, rounds int, switchCost float32) {
	n := len(seq)
	b.types = grow(b.types, n)
	b.switched = grow(b.switched, n)
	b.from = grow(b.from, n)
	cl := &b.cl
	for range rounds {
		k := b.ntypes
		b.costT = grow(b.costT, alpha*k)
		for t := range k {
			cl.costs(t)
			for s, v := range cl.cost[t*alpha : (t+1)*alpha] {
				b.costT[s*k+t] = v
			}
		}
		var acc [maxTrees]float32
		best := 0 // the cheapest type so far
		for i, s := range seq {
			floor := acc[best] + switchCost
			row := b.costT[int(s)*k : int(s)*k+k]
			mask, nb, nv := uint16(0), 0, float32(math.MaxFloat32)
			for t, c := range row {
				v := acc[t]
				if v > floor {
					v = floor
					mask |= 1 << t
				}
				v += c
				acc[t] = v
				if v < nv {
					nb, nv = t, v
				}
			}
			b.switched[i], b.from[i] = mask, uint8(best)
			best = nb
		}
		// Back from the cheapest end: where the path's type was reached
		// by a switch, it continues from the type the switch came from.
		t := best
		for i := n - 1; i >= 0; i-- {
			b.types[i] = uint8(t)
			if b.switched[i]>>t&1 != 0 {
				t = int(b.from[i])
			}
		}
		b.recount(seq, alpha)
	}
}

// merge joins two types into one while one code for both costs less
// than their two codes and the switches between them; it reports whether
// it joined any.
func (b *blockSplit) merge(seq []uint16, alpha int, switchCost float32) bool {
	cl := &b.cl
	types := b.types[:len(seq)]
	joined := false
	for b.ntypes > 1 {
		k := b.ntypes
		var own [maxTrees]float64
		for t := range k {
			own[t] = cl.clusterBits(t)
		}
		// The switches between each pair of types.
		var between [maxTrees][maxTrees]int32
		prev := types[0]
		for _, t := range types[1:] {
			if t != prev {
				between[min(t, prev)][max(t, prev)]++
				prev = t
			}
		}
		ba, bb, gain := 0, 0, 0.0
		for x := range k {
			for y := x + 1; y < k; y++ {
				g := own[x] + own[y] + float64(between[x][y])*float64(switchCost) - cl.pairBits(x, y)
				if g > gain {
					ba, bb, gain = x, y, g
				}
			}
		}
		if gain <= 0 {
			break
		}
		for i, t := range types {
			if int(t) == bb {
				types[i] = uint8(ba)
			}
		}
		b.recount(seq, alpha)
		joined = true
	}
	return joined
}

// recount numbers the types of b.types in order of first use, dropping
// the unused, and counts their symbols into b.cl.
func (b *blockSplit) recount(seq []uint16, alpha int) {
	var renum [maxTrees]uint8
	for i := range renum {
		renum[i] = 0xff
	}
	k := 0
	cl := &b.cl
	clear(cl.clHist[:b.ntypes*alpha])
	clear(cl.clTotal[:])
	for i, s := range seq {
		t := b.types[i]
		if renum[t] == 0xff {
			renum[t] = uint8(k)
			k++
		}
		t = renum[t]
		b.types[i] = t
		cl.clHist[int(t)*alpha+int(s)]++
		cl.clTotal[t]++
	}
	b.ntypes = k
}

// codes chooses the block type and count symbols of the runs.
func (b *blockSplit) codes() {
	clear(b.typeHist[:])
	clear(b.countHist[:])
	// The decoder starts with type 0 as the last type and 1 as the one
	// before: code 0 repeats the one before, 1 is the last plus one, and
	// t+2 names type t.
	last, before := uint8(0), uint8(1)
	for k := range b.runs {
		r := &b.runs[k]
		r.csym, r.cbits, r.cextra = blockLenCode(r.n)
		b.countHist[r.csym]++
		if k == 0 {
			continue
		}
		switch {
		case r.typ == before:
			r.tsym = 0
		case int(r.typ) == (int(last)+1)%b.ntypes:
			r.tsym = 1
		default:
			r.tsym = r.typ + 2
		}
		b.typeHist[r.tsym]++
		last, before = r.typ, last
	}
}

// writeHeader writes NBLTYPES and, for two types or more, the codes for
// block types and counts and the first block's count. It returns the bits
// that the switches will take among the commands.
func (b *blockSplit) writeHeader(e *encoder, w *bitWriter) int {
	writeVarLen8(w, b.ntypes-1)
	if b.ntypes < 2 {
		return 0
	}
	ta := b.ntypes + 2
	tc := prefixCode{lens: b.typeLens[:ta], codes: b.typeCodes[:ta]}
	cost := e.hs.storeCode(w, b.typeHist[:ta], &tc, uint(bits.Len(uint(ta-1))))
	cc := prefixCode{lens: b.countLens[:], codes: b.countCodes[:]}
	cost += e.hs.storeCode(w, b.countHist[:], &cc, 5)
	first := &b.runs[0]
	v := b.countCodes[first.csym]
	w.writeBits(uint(v&15), uint64(v>>4))
	w.writeBits(uint(first.cbits), uint64(first.cextra))
	cost -= int(v & 15)
	for k := range b.runs[1:] {
		r := &b.runs[k+1]
		t, c := b.typeCodes[r.tsym], b.countCodes[r.csym]
		r.sw = uint64(t>>4) | uint64(c>>4)<<(t&15) | uint64(r.cextra)<<(t&15+c&15)
		r.swBits = uint8(t&15+c&15) + r.cbits
		cost += int(r.cbits)
	}
	return cost
}
