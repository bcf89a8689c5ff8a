package brotli

import (
	"encoding/binary"
	"math/bits"
)

// command is one insert-and-copy step, with the symbols and extra bits
// chosen for it: insert literals, then copy copy bytes. copy is 0 only for
// the literals that end a meta-block.
type command struct {
	insert, copy uint32
	cmdSym       uint16
	distSym      uint16 // noDist when no distance symbol is coded
	extraBits    uint8  // insert then copy extra bits, in extra
	distBits     uint8
	extra        uint64
	distExtra    uint32
}

const noDist = 0xffff

const hashMul = 0x1e35a7bd1e35a7bd

func load64(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }
func load32(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[i:]) }

// matchLen is how many of the n bytes at a and b (a < b) are equal.
func matchLen(data []byte, a, b, n int) int {
	m := 0
	for m+8 <= n {
		if x := load64(data, a+m) ^ load64(data, b+m); x != 0 {
			return m + bits.TrailingZeros64(x)/8
		}
		m += 8
	}
	for m < n && data[a+m] == data[b+m] {
		m++
	}
	return m
}

// window is what a match search may see: data[i] is at absolute position
// base+i; absolute positions below streamA belong to an earlier stream or
// segment, and those more than the window back are out of reach too.
type window struct {
	data    []byte
	base    uint32
	streamA uint32 // absolute position where this stream or segment starts
	end     int    // matches stop here (the end of the meta-block)
}

const minMatch = 4

// lazyMargin is how much better, in quarter bits, a match one byte later
// must score to be preferred, paying for the literal it leaves.
const lazyMargin = 18

// fillHead and fillTail are the positions at a long copy's start and end
// that enter the table: positions deep inside a copy rarely start a better
// match.
const fillHead, fillTail = 64, 4

// bucket is the slot range of the hash bucket for the bytes x.
func (e *encoder) bucket(x uint64) []uint32 {
	h := int((x<<e.hashLeft)*hashMul>>e.hashShift) << e.waysLog
	return e.table[h : h+e.q.ways]
}

// insert records absolute position abs, whose first bytes are x.
func (e *encoder) insert(x uint64, abs uint32) {
	shiftIn(e.bucket(x), abs)
}

// shiftIn puts abs first in bucket b, dropping its oldest position. A loop
// beats copy for the two to four entries of a bucket.
func shiftIn(b []uint32, abs uint32) {
	for k := len(b) - 1; k > 0; k-- {
		b[k] = b[k-1]
	}
	b[0] = abs
}

// score estimates, in quarter bits, what a copy of l bytes at distance d
// saves over literals: each byte copied saves a literal (about 5.5 bits),
// and a distance costs about log2(d) extra bits plus its symbol, unless it
// is the last distance, which costs almost nothing.
func score(l int, d, last uint32) int {
	if d == last {
		return 22*l - 8
	}
	return 22*l - 4*bits.Len32(d) - 16
}

// search finds the best-scoring match at i among the last distance and
// the positions in i's bucket, then enters i in the bucket.
func (e *encoder) search(w *window, i int, last uint32) (int, uint32, int) {
	data := w.data
	x := load64(data, i)
	abs := w.base + uint32(i)
	reach := min(abs-w.streamA, e.maxDist)
	n := w.end - i
	bestLen, bestDist, best := 0, uint32(0), 0
	if last != 0 && last <= reach {
		j := i - int(last)
		if load32(data, j) == uint32(x) {
			bestLen = minMatch + matchLen(data, j+minMatch, i+minMatch, n-minMatch)
			bestDist = last
			best = score(bestLen, last, last)
		}
	}
	b := e.bucket(x)
	for _, c := range b {
		d := abs - c
		if d == 0 || d > reach || d == last {
			continue
		}
		j := i - int(d)
		if load32(data, j) != uint32(x) {
			continue
		}
		l := minMatch + matchLen(data, j+minMatch, i+minMatch, n-minMatch)
		if sc := score(l, d, last); sc > best {
			bestLen, bestDist, best = l, d, sc
		}
	}
	shiftIn(b, abs)
	return bestLen, bestDist, best
}

// findMatches turns data[start:w.end] into commands, greedily or with one
// step of lazy matching. last is the distance the decoder will have as its
// last one, or 0 when unknown.
func (e *encoder) findMatches(w *window, start int, last uint32) {
	q := &e.q
	if q.ways == 1 && !q.lazy {
		e.findMatchesGreedy1(w, start, last)
		return
	}
	lit := start
	i := start
	limit := w.end - 8 // search reads 8 bytes at i
	misses := 0
	for i <= limit {
		l, d, sc := e.search(w, i, last)
		if l < minMatch {
			i += 1 + misses>>q.skipShift
			misses++
			continue
		}
		searched := i // the last position already entered in the table
		if q.lazy && i+1 <= limit {
			l2, d2, sc2 := e.search(w, i+1, last)
			searched = i + 1
			if sc2 > sc+lazyMargin {
				i++
				l, d = l2, d2
			}
		}
		fill := max(i+1+q.fillStep>>1, searched+1)
		e.addCommand(w.data, lit, i-lit, l, d)
		last = d
		if q.fillStep > 0 {
			end := min(i+l, limit+1)
			stop := min(i+fillHead, end)
			for k := fill; k < stop; k += q.fillStep {
				e.insert(load64(w.data, k), w.base+uint32(k))
			}
			for k := max(stop, end-fillTail); k < end; k++ {
				e.insert(load64(w.data, k), w.base+uint32(k))
			}
		}
		i += l
		lit = i
		misses = 0
	}
	if lit < w.end {
		e.addCommand(w.data, lit, w.end-lit, 0, 0)
	}
}

// findMatchesGreedy1 is findMatches for one position per bucket and no
// lazy step (the fastest qualities), with the probe written out in the
// loop: most positions miss, and a miss must cost as little as possible.
func (e *encoder) findMatchesGreedy1(w *window, start int, last uint32) {
	// Everything the loop reads lives in locals: after the table store the
	// compiler would otherwise load fields again.
	data, table, base, end := w.data, e.table, w.base, w.end
	lo := int(w.streamA - base) // the first byte the stream may copy from
	maxDist := e.maxDist
	hl, hs := e.hashLeft, e.hashShift
	skip, fillStep := e.q.skipShift, e.q.fillStep
	lit, i := start, start
	limit := end - 8
	misses := 0
	for i <= limit {
		x := load64(data, i)
		abs := base + uint32(i)
		reach := min(uint32(i-lo), maxDist)
		h := (x << hl) * hashMul >> hs
		d := abs - table[h]
		table[h] = abs
		l := 0
		if last != 0 && last <= reach && load32(data, i-int(last)) == uint32(x) {
			d = last
		} else if d == 0 || d > reach || load32(data, i-int(d)) != uint32(x) {
			i += 1 + misses>>skip
			misses++
			continue
		}
		l = minMatch + matchLen(data, i-int(d)+minMatch, i+minMatch, end-i-minMatch)
		e.addCommand(data, lit, i-lit, l, d)
		last = d
		if fillStep > 0 {
			stop := min(i+l, limit+1)
			for k := i + 1 + fillStep>>1; k < stop; k += fillStep {
				table[(load64(data, k)<<hl)*hashMul>>hs] = base + uint32(k)
			}
		}
		i += l
		lit = i
		misses = 0
	}
	if lit < w.end {
		e.addCommand(w.data, lit, w.end-lit, 0, 0)
	}
}
