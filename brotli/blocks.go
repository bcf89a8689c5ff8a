package brotli

import "math/bits"

// Block splitting (RFC 7932 section 6), used from quality 5 for the
// insert-and-copy symbols and the distance symbols, and from quality 10
// for literals. At qualities 5-9 a meta-block's symbols of one kind are
// cut into chunks of equal length, the chunks' histograms are clustered
// (clusterer) into block types, each with its own prefix code, and runs of
// chunks of one type become blocks; from quality 10 each symbol is given
// its type (refineSplit). The decoder is told of each switch by a block
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
	rs     refineScratch // refineSplit's
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

// maxChunks bounds the chunks a sequence is cut into for clustering
// (qualities 5-9). 64 chunks of commands cost jquery at 5, 6 and 8 1.6%
// more instructions than 16 (the clusterer weighs every chunk against
// each type it adds) for no smaller output: over the corpus and the
// small sample beyond it, 16 are within 0.03% of 64 at 5-9, either way.
const maxChunks = 16

// plan splits seq (symbols below alpha) into blocks of at most limit
// types; chunks are at least minChunk symbols, clustered in rounds
// rounds. With r.rounds > 0 the split is refined symbol by symbol instead
// (refineSplit).
func (b *blockSplit) plan(seq []uint16, alpha, minChunk, limit, rounds int, r refinement) {
	if len(seq) == 0 {
		b.empty(alpha)
		return
	}
	if r.rounds > 0 && len(seq) >= 2*minChunk && limit > 1 {
		b.runs = b.runs[:0]
		b.refineSplit(seq, alpha, limit, r)
		// Runs of symbols of one type are one block.
		for _, t := range b.rs.types[:len(seq)] {
			if k := len(b.runs) - 1; k >= 0 && b.runs[k].typ == t {
				b.runs[k].n++
				continue
			}
			b.runs = append(b.runs, blockRun{n: 1, typ: t})
		}
		b.codes()
		return
	}
	chunk, hist := b.chunked(len(seq), alpha, minChunk)
	for i := range b.cl.n {
		h := hist[i*alpha : (i+1)*alpha]
		for _, s := range seq[i*chunk : min((i+1)*chunk, len(seq))] {
			h[s]++
		}
	}
	b.group(len(seq), chunk, limit, rounds)
}

// empty plans a split of no symbols: one (empty) block, of which only
// the type's code is written.
func (b *blockSplit) empty(alpha int) {
	b.runs = b.runs[:0]
	b.cl.prepare(1, alpha)
	b.ntypes = b.cl.run(1, 0, nil)
}

// chunked cuts n symbols (n > 0) below alpha into chunks of at least
// minChunk, and returns the chunks' length and their counts, zeroed, a
// row of alpha for each chunk, for the caller to fill before group.
func (b *blockSplit) chunked(n, alpha, minChunk int) (chunk int, hist []uint32) {
	chunk = chunkLen(n, minChunk)
	return chunk, b.cl.prepare(max((n+chunk-1)/chunk, 1), alpha)
}

// chunkLen is the length of chunked's chunks of n symbols.
func chunkLen(n, minChunk int) int { return max(minChunk, (n+maxChunks-1)/maxChunks) }

// group clusters the chunks that chunked made of n symbols, once
// counted, into at most limit block types in rounds rounds; runs of
// chunks of one type become blocks.
func (b *blockSplit) group(n, chunk, limit, rounds int) {
	b.runs = b.runs[:0]
	items := b.cl.n
	if items < 2 {
		limit = 1
	}
	b.ntypes = b.cl.run(limit, rounds, func(k int) float64 {
		if k == 1 || items < 2 {
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
	for i := 0; i < items; i++ {
		m := uint32(min(chunk, n-i*chunk))
		t := b.cl.assign[i]
		if k := len(b.runs) - 1; k >= 0 && b.runs[k].typ == t {
			b.runs[k].n += m
			continue
		}
		b.runs = append(b.runs, blockRun{n: m, typ: t})
	}
	b.codes()
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
