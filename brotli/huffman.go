package brotli

import (
	"fmt"
	"math/bits"
	"slices"
)

// maxAlphabet is the largest alphabet a prefix code is built for: the 704
// insert-and-copy length codes.
const maxAlphabet = 704

// huffScratch holds the working memory of code construction so that
// building codes for every meta-block allocates nothing.
type huffScratch struct {
	keys [maxAlphabet]uint64 // count<<16 | symbol, sorted ascending
	tmp  [maxAlphabet]uint64 // sortKeys' other buffer
	// syms lists the used symbols of the last code built, in symbol
	// order: the per-code passes that follow touch only these, which
	// matters for small bodies, where few of the 704 command symbols occur.
	syms [maxAlphabet]uint16
	// cost is what the counts of the last code built cost in bits with
	// it: the sum of count times length over its symbols; no length of
	// it is longer than maxLen.
	cost   int
	maxLen uint8
	weight [2 * maxAlphabet]uint32
	parent [2 * maxAlphabet]uint16
	depth  [2 * maxAlphabet]uint8
	// The run-length coded code lengths of the code being stored, as
	// tokens: a length 0-15 as itself, code 16 with extra bits x as 16+x,
	// code 17 with x as 20+x. A token is one entry of clPut, its code
	// and extra bits packed as in prefixCode, so that emitComplex writes
	// each with one load and no branch.
	rle   [maxAlphabet]uint8
	nrle  int
	clPut [256]uint32 // indexed by a byte: no bound check
	// The code of the run-length symbols: lengths as stored in the
	// header, codes (with their lengths) as the symbols are written (all
	// zero for a lone symbol), how many header entries are skipped and
	// stored.
	clHeader         [18]uint8
	clCodes          [18]uint32
	clSkip, clStored int
	// storeCode's: whether it tries raiseRare (qualities 10 and up), the
	// used symbols of the code being stored, and counts with a floor and
	// their lengths.
	floors  bool
	used    [maxAlphabet]uint16
	alt     [maxAlphabet]uint32
	altLens [maxAlphabet]uint8
}

// prefixCode is a canonical prefix code: lens[s] bits for symbol s, and
// codes[s] the code already bit-reversed for the LSB-first writer, shifted
// left by 4 above its length: the writer gets both with one load.
type prefixCode struct {
	lens   []uint8
	codes  []uint32
	nsym   int   // symbols with a non-zero count
	maxLen uint8 // no length is longer (writeFlat)
}

// buildLengths sets lens to the lengths of a Huffman code for hist whose
// longest code is at most limit bits. A single used symbol gets length 0
// (RFC 7932 codes it with zero bits). Lengths of unused symbols are 0.
// The used symbols are left in hs.syms, what hist costs with the code in
// hs.cost.
func (hs *huffScratch) buildLengths(hist []uint32, limit uint8, lens []uint8) int {
	return hs.buildLengthsOf(hist, nil, limit, lens)
}

// buildLengthsOf is buildLengths given, when used is not nil, the set of
// hist's used symbols (bit s%64 of used[s/64]), so that it visits those
// alone instead of every count: on a 2 KB body at quality 1 the scan of
// the 704 command counts was about a thirtieth of the encoder's
// instructions.
func (hs *huffScratch) buildLengthsOf(hist []uint32, used []uint64, limit uint8, lens []uint8) int {
	clear(lens)
	n := 0
	keys, syms := hs.keys[:len(hist)], hs.syms[:len(hist)]
	most := uint32(0)
	if used == nil {
		for s, c := range hist {
			if c != 0 {
				keys[n] = uint64(c)<<16 | uint64(s)
				syms[n] = uint16(s)
				n++
				most = max(most, c)
			}
		}
	} else {
		for wi, word := range used {
			for ; word != 0; word &= word - 1 {
				s := wi*64 + bits.TrailingZeros64(word)
				c := hist[s]
				keys[n] = uint64(c)<<16 | uint64(s)
				syms[n] = uint16(s)
				n++
				most = max(most, c)
			}
		}
	}
	keys = keys[:n]
	hs.cost, hs.maxLen = 0, 0
	if n <= 1 {
		return n
	}
	keys = hs.sortKeys(keys, most)
	// Two-queue Huffman: leaves 0..n-1 in ascending weight, internal nodes
	// n+1.. created in ascending weight, so the two smallest are always
	// at the heads of the two queues. w[n], past the last leaf, and each
	// internal node's slot until the node is made weigh more than any
	// node (a meta-block's counts sum far below 2^32-1): the pick is then
	// one comparison, with no test for a queue's end. (Some node is
	// always left to pick: before each merge at least two are, so an
	// empty leaf queue leaves two made nodes.)
	w := hs.weight[:2*n]
	for i, k := range keys {
		w[i] = uint32(k >> 16)
	}
	w[n] = ^uint32(0)
	leaf, inner := 0, n+1
	pick := func() int {
		if w[leaf] <= w[inner] {
			leaf++
			return leaf - 1
		}
		inner++
		return inner - 1
	}
	// A code's cost is the sum of its internal nodes' weights (each
	// count is added once for every node above its leaf), which the
	// merge has at hand: no pass over the symbols' counts and lengths
	// after it, unless the code is then limited.
	cost := 0
	for next := n + 1; next < 2*n; next++ {
		w[next] = ^uint32(0)
		a := pick()
		b := pick()
		w[next] = w[a] + w[b]
		cost += int(w[next])
		hs.parent[a] = uint16(next)
		hs.parent[b] = uint16(next)
	}
	d := hs.depth[:2*n]
	d[2*n-1] = 0
	for i := 2*n - 2; i > n; i-- {
		d[i] = d[hs.parent[i]] + 1
	}
	// The leaves' depths are their symbols' lengths, stored as they are
	// found (a loop of their own cost about 8 instructions a symbol), and
	// again in the rare code that is too deep.
	maxDepth := uint8(0)
	for i := n - 1; i >= 0; i-- {
		di := d[hs.parent[i]] + 1
		d[i] = di
		lens[uint16(keys[i])] = di
		maxDepth = max(maxDepth, di)
	}
	hs.maxLen = maxDepth
	if maxDepth > limit {
		hs.maxLen = limit
		limitDepths(d[:n], limit)
		cost = 0
		for i, k := range keys {
			cost += int(w[i]) * int(d[i])
			lens[uint16(k)] = d[i]
		}
	}
	hs.cost = cost
	return n
}

// sortKeys sorts keys (count<<16 | symbol, in ascending symbol order)
// ascending, most being the largest count, and returns them: in keys, or
// in hs.tmp where the sort left them. Ordering by count alone keeps the
// symbols' order among equal counts, so a stable sort by count is the
// full sort: for counts below 2^16 (every small body's) it is done by
// counting, in one or two passes of at most 8 bits. On a 2 KB body, where
// building the codes is a third of the time at quality 1, the comparison
// sort took a fifth of that. 16 keys or fewer, where the counting's 256
// buckets cost more than the keys, are sorted by insertion.
func (hs *huffScratch) sortKeys(keys []uint64, most uint32) []uint64 {
	if len(keys) <= 16 {
		insertionSort(keys)
		return keys
	}
	if most >= 1<<16 {
		slices.Sort(keys)
		return keys
	}
	width := uint(bits.Len32(most))
	src, dst := keys, hs.tmp[:len(keys)]
	for shift := uint(0); shift < width; shift += 8 {
		digits := min(width-shift, 8)
		// count[d] counts digit d, then is where its next key goes.
		var count [256]uint16
		mask := uint64(1)<<digits - 1
		for _, k := range src {
			count[k>>(16+shift)&mask]++
		}
		at := uint16(0)
		for d, c := range count[:mask+1] {
			count[d] = at
			at += c
		}
		for _, k := range src {
			d := k >> (16 + shift) & mask
			dst[count[d]] = k
			count[d]++
		}
		src, dst = dst, src
	}
	// Left where the last pass put them: a copy back cost a call of
	// memmove.
	return src
}

// insertionSort sorts a few keys ascending. The code-length codes (18
// symbols at most) and a small body's distance code come here: on a 2 KB
// body at quality 1, slices.Sort's pattern-defeating quicksort spent about
// 2,300 instructions a call on them, its partitions and pivots included,
// for arrays of 16 or fewer.
func insertionSort(keys []uint64) {
	for i := 1; i < len(keys); i++ {
		k := keys[i]
		j := i
		for ; j > 0 && keys[j-1] > k; j-- {
			keys[j] = keys[j-1]
		}
		keys[j] = k
	}
}

// limitDepths turns the depths of leaves sorted by ascending count into
// a complete code no deeper than limit: clamp, then lengthen the rarest
// symbols that still have room until the Kraft sum fits, then shorten the
// most frequent symbols while space is left. More symbols than 1<<limit
// fit in no such code: the lengthening would look for room forever, so
// that is refused with a panic, a caller's bug (every alphabet's size is
// within its limit: 704 symbols for 15 bits, 18 for 5).
func limitDepths(d []uint8, limit uint8) {
	full := 1 << limit
	if len(d) > full {
		panic(fmt.Sprintf("brotli: %d symbols in a prefix code of at most %d bits", len(d), limit))
	}
	sum := 0
	for i := range d {
		d[i] = min(d[i], limit)
		sum += 1 << (limit - d[i])
	}
	for sum > full {
		for i := range d {
			if d[i] < limit {
				sum -= 1 << (limit - d[i] - 1)
				d[i]++
				break
			}
		}
	}
	for sum < full {
		room := full - sum
		for i := len(d) - 1; i >= 0; i-- {
			if u := 1 << (limit - d[i]); d[i] > 1 && u <= room {
				d[i]--
				sum += u
				break
			}
		}
	}
}

// assignCodes fills codes with the canonical code for lens (shorter codes
// first, ties in symbol order, as RFC 7932 section 3.2 defines),
// bit-reversed and packed as in prefixCode. syms are the symbols with a
// length, in ascending order; the others keep stale codes, since nothing
// writes them.
func assignCodes(lens []uint8, codes []uint32, syms []uint16) {
	var count [16]uint16
	for _, s := range syms {
		count[lens[s]&15]++
	}
	count[0] = 0
	// next[l] is the next code of length l at the top of 16 bits (times
	// codeStep[l]), which reversed is the code as the writer wants it:
	// no shift by 16-l, a variable, per symbol (on a 2 KB body at quality
	// 1, about 200 symbols a call, 38 instructions each before; brotli
	// README, *Prefix codes and literal runs in fewer instructions*).
	var next [16]uint16
	code := uint16(0)
	for l := 1; l < 16; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code * codeStep[l]
	}
	for _, s := range syms {
		l := lens[s] & 15
		codes[s] = uint32(bits.Reverse16(next[l]))<<4 | uint32(l)
		next[l] += codeStep[l]
	}
}

// codeStep[l] is 1 in the top l of 16 bits (assignCodes).
var codeStep = [16]uint16{0, 1 << 15, 1 << 14, 1 << 13, 1 << 12, 1 << 11, 1 << 10, 1 << 9,
	1 << 8, 1 << 7, 1 << 6, 1 << 5, 1 << 4, 1 << 3, 1 << 2, 1 << 1}

// clOrder is the order in which code length code lengths are stored.
var clOrder = [18]uint8{1, 2, 3, 4, 0, 5, 17, 6, 16, 7, 8, 9, 10, 11, 12, 13, 14, 15}

// The fixed code for the code length code lengths 0..5 (RFC 7932 section
// 3.5), as the values and widths the LSB-first writer emits.
var (
	clLenCode  = [6]uint8{0, 7, 3, 2, 1, 15}
	clLenWidth = [6]uint8{2, 4, 3, 2, 2, 4}
)

// storeCode builds a code for hist (limit 15 bits), writes its description
// to w and leaves it in pc. alphabetBits is the width of a symbol in a
// simple prefix code. It returns the bits hist costs with the code.
func (hs *huffScratch) storeCode(w *bitWriter, hist []uint32, pc *prefixCode, alphabetBits uint) int {
	return hs.storeCodeOf(w, hist, nil, pc, alphabetBits)
}

// storeCodeOf is storeCode given the set of hist's used symbols, or nil
// (buildLengthsOf).
func (hs *huffScratch) storeCodeOf(w *bitWriter, hist []uint32, used []uint64, pc *prefixCode, alphabetBits uint) int {
	pc.nsym = hs.buildLengthsOf(hist, used, 15, pc.lens)
	syms := hs.syms[:pc.nsym]
	cost := hs.cost
	pc.maxLen = hs.maxLen
	if hs.floors {
		pc.maxLen = 15 // raiseRare may take other lengths
	}
	if pc.nsym <= 4 {
		hs.storeSimple(w, pc, alphabetBits)
		return cost
	}
	// describe builds a code of its own, which overwrites hs.syms.
	syms = hs.used[:copy(hs.used[:], syms)]
	if hs.floors {
		cost = hs.raiseRare(hist, pc, syms, cost)
	}
	assignCodes(pc.lens, pc.codes, syms)
	hs.describe(pc.lens, syms)
	hs.emitComplex(w)
	return cost
}

// raiseRare tries the code for hist with the counts below 2, 4 and 8
// raised to that floor: rare symbols then share a length, which the
// description codes in fewer bits, and on small bodies that saves more
// than the symbols lose (the 2 KB JSON 1.3% smaller at quality 10). It
// keeps in pc the lengths that cost least in all and returns what hist
// costs with them; cost is what it costs with pc's lengths as they are.
func (hs *huffScratch) raiseRare(hist []uint32, pc *prefixCode, syms []uint16, cost int) int {
	best := cost + hs.describe(pc.lens, syms)
	n := int(syms[len(syms)-1]) + 1
	for floor := uint32(2); floor <= 8; floor *= 2 {
		raised := false
		clear(hs.alt[:n])
		for _, s := range syms {
			c := hist[s]
			if c < floor {
				c, raised = floor, true
			}
			hs.alt[s] = c
		}
		if !raised {
			break
		}
		hs.buildLengths(hs.alt[:n], 15, hs.altLens[:n])
		alt := 0
		for _, s := range syms {
			alt += int(hist[s]) * int(hs.altLens[s])
		}
		if c := alt + hs.describe(hs.altLens[:n], syms); c < best {
			best, cost = c, alt
			copy(pc.lens[:n], hs.altLens[:n])
		}
	}
	return cost
}

// storeSimple writes a code of one to four symbols in the simple form.
// The form fixes the lengths by position (1; 1,1; 1,2,2; 2,2,2,2 or
// 1,2,3,3), so symbols are listed by ascending length; the decoder orders
// equal lengths by symbol value, which is what assignCodes does too.
func (hs *huffScratch) storeSimple(w *bitWriter, pc *prefixCode, alphabetBits uint) {
	var syms [4]uint16
	n := copy(syms[:], hs.syms[:pc.nsym])
	if n == 0 {
		// An unused alphabet still needs a code: one symbol, zero bits.
		n = 1
	}
	list := syms[:n]
	slices.SortStableFunc(list, func(a, b uint16) int { return int(pc.lens[a]) - int(pc.lens[b]) })
	w.writeBits(2, 1)
	w.writeBits(2, uint64(n-1))
	for _, s := range list {
		w.writeBits(alphabetBits, uint64(s))
	}
	if n == 4 {
		if pc.lens[list[0]] == 1 {
			w.writeBits(1, 1)
		} else {
			w.writeBits(1, 0)
		}
	}
	assignCodes(pc.lens, pc.codes, hs.syms[:pc.nsym])
	if n == 1 {
		// Zero bits: the code must be 0 too, since writeBits ORs it in.
		pc.codes[list[0]] = 0
	}
}

// describe plans the complex form of lens (a complete code) and returns
// its bits: the lengths run-length coded with codes 16 (repeat the
// previous non-zero length) and 17 (repeat zero), themselves Huffman
// coded. syms are the symbols with a length, ascending: the runs of zeros
// are the gaps between them, so the work follows the symbols used, not
// the alphabet. emitComplex writes what it planned.
func (hs *huffScratch) describe(lens []uint8, syms []uint16) int {
	nt := 0
	var hist [18]uint32 // the run-length symbols' counts
	emit := func(tok, sym uint8) {
		hs.rle[nt] = tok
		nt++
		hist[sym]++
	}
	// repeat emits a run of r (r >= 3) with code sym; the decoder keeps
	// adding to a run while the same repeat code follows itself, so r-2 is
	// written as a bijective base-4 (16) or base-8 (17) numeral, most
	// significant digit first, each digit d as extra bits d-1.
	repeat := func(sym uint8, r int) {
		base, tok := 4, uint8(16)
		if sym == 17 {
			base, tok = 8, 20
		}
		start := nt
		for t := r - 2; t > 0; {
			d := (t-1)%base + 1
			emit(tok+uint8(d-1), sym)
			t = (t - d) / base
		}
		slices.Reverse(hs.rle[start:nt])
	}
	prev := uint8(8) // the decoder's initial previous non-zero length
	next := 0        // the first symbol not yet described
	for k := 0; k < len(syms); {
		s := int(syms[k])
		if r := s - next; r >= 3 {
			repeat(17, r)
		} else {
			for ; r > 0; r-- {
				emit(0, 0)
			}
		}
		v := lens[s]
		r := 1
		for k+r < len(syms) && int(syms[k+r]) == s+r && lens[s+r] == v {
			r++
		}
		k += r
		next = s + r
		if v != prev {
			emit(v, v)
			prev = v
			r--
		}
		if r >= 3 {
			repeat(16, r)
			continue
		}
		for ; r > 0; r-- {
			emit(v, v)
		}
	}
	var clLens [18]uint8
	var clCodes [18]uint32
	used := hs.buildLengths(hist[:], 5, clLens[:])
	stored := 0
	if used == 1 {
		// A lone code length symbol is coded with zero bits; any non-zero
		// length marks it, and all 18 entries must be present because the
		// Kraft sum never fills.
		for s, c := range hist {
			if c != 0 {
				clLens[s] = 3
			}
		}
		stored = len(clOrder)
	} else {
		assignCodes(clLens[:], clCodes[:], hs.syms[:used])
		for i, s := range clOrder {
			if clLens[s] != 0 {
				stored = i + 1
			}
		}
	}
	skip := 0
	if clLens[clOrder[0]] == 0 && clLens[clOrder[1]] == 0 {
		skip = 2
		if clLens[clOrder[2]] == 0 {
			skip = 3
		}
	}
	bits := 2
	for _, s := range clOrder[skip:stored] {
		bits += int(clLenWidth[clLens[s]])
	}
	hs.clHeader, hs.clSkip, hs.clStored, hs.nrle = clLens, skip, stored, nt
	if used == 1 {
		clLens = [18]uint8{} // the lone symbol's zero bits, below
	}
	hs.clCodes = clCodes
	// The run-length symbols' bits, from their counts.
	for s, c := range hist {
		bits += int(c) * (int(clLens[s]) + int(rleExtraBits[s]))
	}
	return bits
}

// rleExtraBits is the extra bits of each code length symbol.
var rleExtraBits = [18]uint8{16: 2, 17: 3}

// emitComplex writes the description that describe planned last. It
// writes through a bitSink, each token with one load from clPut: a token
// is at most 8 bits (a code of at most 5 and 3 extra), so 7 go in between
// flushes, where writeBits tested for a full word after each code and
// each extra (on a 2 KB body at quality 1, about 200 tokens a call at 26
// instructions each; brotli README, *Prefix codes and literal runs in
// fewer instructions*).
func (hs *huffScratch) emitComplex(w *bitWriter) {
	put := &hs.clPut
	*(*[16]uint32)(put[:16]) = [16]uint32(hs.clCodes[:16])
	for sym := 16; sym <= 17; sym++ {
		if hs.clHeader[sym] == 0 {
			continue // unused (a lone symbol's header length is 3)
		}
		// Tokens 16-19 for code 16, 20-27 for code 17.
		first := 16 + 4*(sym-16)
		c := hs.clCodes[sym]
		code, n, xbits := c>>4, c&15, uint32(rleExtraBits[sym])
		for x := range uint32(1) << xbits {
			put[first+int(x)] = (code|x<<n)<<4 | (n + xbits)
		}
	}
	// The skip (2 bits), up to 18 header entries of up to 4, then the
	// tokens.
	bs := w.sink(2 + 4*len(clOrder) + 8*hs.nrle)
	bs.flush()
	bs.bits(uint64(hs.clSkip), 2)
	for i, s := range clOrder[hs.clSkip:hs.clStored] {
		if i == 13 {
			// 7 pending, 2 and 13 entries of 4 bits: 61.
			bs.flush()
		}
		l := hs.clHeader[s]
		bs.bits(uint64(clLenCode[l]), uint(clLenWidth[l]))
	}
	toks := hs.rle[:hs.nrle]
	for ; len(toks) >= 7; toks = toks[7:] {
		bs.flush()
		// A loop of a constant count: its counter is not moved out of
		// CX, which the shifts need, at every token.
		for _, t := range [7]uint8(toks) {
			bs.put(put[t])
		}
	}
	bs.flush()
	for _, t := range toks {
		bs.put(put[t])
	}
	bs.flush()
	w.done(&bs)
}
