package zstdenc

import (
	"math"
	"math/bits"
)

// maxFSESymbols is the largest alphabet an FSE table codes here: the 53
// match length codes.
const maxFSESymbols = 53

// fseTable is one finite state entropy table (RFC 8878, section 4.1) as
// an encoder uses it. A state X is kept in [L, 2L), L = 1<<log: the
// decoder's state is X-L. Encoding symbol s from X writes the low k bits of
// X, where k makes X>>k fall in [c, 2c) for the symbol's count c, and moves
// to the state the decoder holds for s at rank X>>k: read back, those bits
// added to that state's baseline give the decoder X-L again.
type fseTable struct {
	log   uint8
	nsym  int                   // symbols 0..nsym-1 are described
	norm  [maxFSESymbols]int16  // normalized counts; -1 is "below one", holding one cell
	start [maxFSESymbols]uint16 // where a symbol's states begin in next
	// maxBits and minState give k: maxBits, or one less below minState.
	maxBits  [maxFSESymbols]uint8
	minState [maxFSESymbols]uint32
	next     []uint16 // L+position of each symbol's cells, in rank order
	spread   []uint8  // the symbol of each cell
}

// build lays out the cells of the normalized counts in norm[:nsym], as
// RFC 8878 section 4.1.1 spreads them, and derives the encoding tables.
func (t *fseTable) build(log uint8, nsym int) {
	t.log, t.nsym = log, nsym
	size := 1 << log
	if cap(t.spread) < size {
		t.spread = make([]uint8, size)
		t.next = make([]uint16, size)
	}
	t.spread, t.next = t.spread[:size], t.next[:size]
	high := size - 1
	cum := 0
	for s := range nsym {
		t.start[s] = uint16(cum)
		c := int(t.norm[s])
		if c == -1 {
			t.spread[high] = uint8(s)
			high--
			c = 1
		}
		cum += c
		if c == 0 {
			continue
		}
		if c == 1 {
			t.maxBits[s] = log
			t.minState[s] = uint32(size)
			continue
		}
		k := log - uint8(bits.Len32(uint32(c-1))-1)
		t.maxBits[s] = k
		t.minState[s] = uint32(c) << k
	}
	step := size>>1 + size>>3 + 3
	pos := 0
	for s := range nsym {
		for range max(int(t.norm[s]), 0) {
			t.spread[pos] = uint8(s)
			pos = (pos + step) & (size - 1)
			for pos > high {
				pos = (pos + step) & (size - 1)
			}
		}
	}
	var rank [maxFSESymbols]uint16
	for p := range size {
		s := t.spread[p]
		t.next[t.start[s]+rank[s]] = uint16(size + p)
		rank[s]++
	}
}

// count is the cells a symbol holds.
func (t *fseTable) count(s uint8) uint32 {
	if c := t.norm[s]; c > 0 {
		return uint32(c)
	}
	return 1
}

// init is the state a stream's last symbol is encoded with: the symbol's
// first cell, which (for any symbol not holding the whole table) has a
// decoder that reads at least one bit, so that a decoder counting on the
// stream running out of bits (Huffman weights) stops at the right place.
func (t *fseTable) init(s uint8) uint32 { return uint32(t.next[t.start[s]]) }

// encode writes s's bits for state x and returns the next state.
func (t *fseTable) encode(w *bitWriter, x uint32, s uint8) uint32 {
	k := uint(t.maxBits[s])
	if x < t.minState[s] {
		k--
	}
	w.add(uint64(x&(1<<k-1)), k)
	return uint32(t.next[uint32(t.start[s])+x>>k-t.count(s)])
}

// flush writes the final state, which the decoder reads first.
func (t *fseTable) flush(w *bitWriter, x uint32) {
	w.add(uint64(x-1<<t.log), uint(t.log))
}

// tableLog picks the accuracy for n symbols whose largest is maxSym: as
// fine as maxLog allows, but not finer than the symbol count warrants,
// and never so coarse that the alphabet crowds it.
func tableLog(n, maxSym int, maxLog uint8) uint8 {
	log := int(maxLog)
	if b := bits.Len(uint(n-1)) - 3; b < log {
		log = b
	}
	minSrc := bits.Len(uint(n))
	minSym := bits.Len(uint(maxSym)) + 1
	log = max(log, min(minSrc, minSym), 5)
	return uint8(min(log, int(maxLog)))
}

// normalize scales hist[:nsym] (total n) to counts summing to 1<<log
// into t.norm, every symbol present keeping at least one cell.
func (t *fseTable) normalize(hist []uint32, n int, log uint8) {
	size := 1 << log
	sum := 0
	big := 0
	for s, c := range hist {
		if c == 0 {
			t.norm[s] = 0
			continue
		}
		v := max(1, int((uint64(c)*uint64(size)+uint64(n)/2)/uint64(n)))
		t.norm[s] = int16(v)
		sum += v
		if v > int(t.norm[big]) {
			big = s
		}
	}
	if sum < size {
		t.norm[big] += int16(size - sum)
		return
	}
	// Rounding up the rare symbols overshot: take the cells back from the
	// largest counts, where one cell matters least.
	for sum > size {
		big = 0
		for s := range hist {
			if t.norm[s] > t.norm[big] {
				big = s
			}
		}
		cut := min(sum-size, max(1, int(t.norm[big])/8))
		t.norm[big] -= int16(cut)
		sum -= cut
	}
}

// cost estimates the bits hist[:nsym] takes coded with t's counts; +Inf if
// a symbol present has none.
func (t *fseTable) cost(hist []uint32) float64 {
	size := float64(int(1) << t.log)
	bitsTotal := 0.0
	for s, c := range hist {
		if c == 0 {
			continue
		}
		if s >= t.nsym || t.norm[s] == 0 {
			return math.Inf(1)
		}
		bitsTotal += float64(c) * math.Log2(size/float64(t.count(uint8(s))))
	}
	return bitsTotal
}

// writeDescription appends the table's normalized counts in the format of
// RFC 8878 section 4.1.1: the accuracy, then each count plus one in as few
// bits as the cells still unassigned allow, zero counts followed by a
// count of further zeros in 2-bit fields.
func (t *fseTable) writeDescription(w *bitWriter) {
	w.add(uint64(t.log-5), 4)
	remaining := 1<<t.log + 1
	threshold := 1 << t.log
	nb := uint(t.log) + 1
	for s := 0; s < t.nsym && remaining > 1; {
		c := int(t.norm[s])
		s++
		maxLow := 2*threshold - 1 - remaining
		v := c + 1
		if c < 0 {
			remaining--
		} else {
			remaining -= c
		}
		if v >= threshold {
			v += maxLow
		}
		if v < maxLow {
			w.add(uint64(v), nb-1)
		} else {
			w.add(uint64(v), nb)
		}
		for remaining < threshold {
			nb--
			threshold >>= 1
		}
		if c == 0 {
			zeros := 0
			for s+zeros < t.nsym && t.norm[s+zeros] == 0 {
				zeros++
			}
			s += zeros
			for ; zeros >= 3; zeros -= 3 {
				w.add(3, 2)
			}
			w.add(uint64(zeros), 2)
		}
	}
	w.pad()
}
