package brotli

import (
	"encoding/binary"
	"math/bits"
)

// command is one insert-and-copy step: insert literals, then copy copy
// bytes from dist back. copy is 0 only for the literals that end a
// meta-block. The match finder fills it; symbolize then chooses the
// symbols and extra bits (cmdSyms). A static dictionary reference (dict) has a
// distance beyond what the decoder has produced: copy is the bytes it
// produces, and the length coded is copy+cut, the word's length: cut is a
// signed byte, the bytes a transform omits from the word's end, or less
// than 0 for one that adds text (qualities 10-11, searchWords).
type command struct {
	insert, copy, dist uint32
	cut                uint8
	dict               bool
}

// cmdSyms are what the bit writers need of a command: its lengths, and
// its symbols and extra bits packed so that each is one load: cmd holds
// the insert-and-copy symbol (10 bits), the number of extra bits (6) and
// the insert's then the copy's extra bits (up to 48); dist holds the
// distance symbol (16 bits, noDist when none is coded), its number of
// extra bits (8) and their value. symbolize fills them from the
// commands; the fast match finder appends them directly.
type cmdSyms struct {
	cmd, dist      uint64
	insert, copied uint32
}

func (s cmdSyms) cmdSym() uint16  { return uint16(s.cmd & 1023) }
func (s cmdSyms) extraBits() uint { return uint(s.cmd>>10) & 63 }
func (s cmdSyms) extra() uint64   { return s.cmd >> 16 }
func (s cmdSyms) distSym() uint16 { return uint16(s.dist) }
func (s cmdSyms) distBits() uint  { return uint(s.dist>>16) & 255 }
func (s cmdSyms) distExtra() uint64 {
	return s.dist >> 24
}

const noDist = 0xffff

const hashMul = 0x1e35a7bd1e35a7bd

func load64(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i : i+8]) }
func load32(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[i : i+4]) }
func load16(b []byte, i int) uint16 { return binary.LittleEndian.Uint16(b[i : i+2]) }

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
	// unknownCtx says the bytes before data[0] are not known: data is a
	// segment, or a segment's prefix, that does not start the stream.
	unknownCtx bool
	// noDict says the decoder's position in the stream is not known
	// (a segment after the first, not told its offset): a static
	// dictionary reference's distance depends on it, so none is made.
	noDict bool
	// dictLead is how many bytes of the stream come before data[0] (a
	// segment told its offset, less its prefix): the decoder counts a
	// dictionary reference's distance from the stream's start.
	dictLead uint32
	// rawLen is the length of the raw dictionary the decoder holds
	// (Options.Dictionary), 0 if none: the static dictionary's distances
	// start after it.
	rawLen uint32
	// rawEnd is the absolute position of the stream's first byte when the
	// raw dictionary comes before it in data, else 0. Copies may start in
	// the dictionary (its bytes count in reach, as a prefix's do) but must
	// end in it: the decoder copies from the dictionary alone.
	rawEnd uint32
	// raw indexes the raw dictionary for long copies when it comes before
	// the stream in data; nil otherwise.
	raw *rawIndex
}

// dictReach is the distance a static dictionary reference's distance
// starts after at data[i]: the decoder's largest backward distance there,
// reach counted from the stream's start rather than from data's, and then
// the raw dictionary's length.
func (w *window) dictReach(i int, maxDist uint32) uint32 {
	if w.rawEnd != 0 {
		return min(w.base+uint32(i)-w.rawEnd, maxDist) + w.rawLen
	}
	return min(w.base+uint32(i)-w.streamA+w.dictLead, maxDist) + w.rawLen
}

// dictEnd is the index of data where a quality's static dictionary
// searches stop (quality.dictSpan): no earlier than the end of data
// when the span is 0 or beyond it.
func (w *window) dictEnd(span uint32) int {
	if span == 0 {
		return len(w.data)
	}
	return max(int(int64(span)+int64(max(w.streamA, w.rawEnd))-int64(w.base)), 0)
}

const minMatch = 4

// lazyMax is the match length from which quality 2 does not try the
// next position: a later match rarely beats a long one by more than the
// literal it costs. Qualities 3 and 4 stop lower (findLazy's constant,
// 4's lazyBelow): their second probe, which misses the cache in large
// bodies, cost more there than the longer matches saved. It also bounds
// the copies search looks for in a raw dictionary.
const lazyMax = 32

// lazyMargin is how much better, in quarter bits, a match one byte later
// must score to be preferred, paying for the literal it leaves.
const lazyMargin = 18

// fillHead and fillTail are the positions at a long copy's start and end
// that enter the table: positions deep inside a copy rarely start a better
// match.
const fillHead, fillTail = 16, 4

// slot is the index of the first entry of the hash bucket for the bytes x.
func (e *encoder) slot(x uint64) int {
	return int((x<<(e.hashLeft&63))*hashMul>>(e.hashShift&63)) << (e.waysLog & 3)
}

// fill enters the positions from..to-1 of data (data[k] at absolute
// position base+k; to at most len(data)-7) in the table, each first in its
// bucket, dropping the bucket's oldest position. Each kind of bucket has
// its loop, as Go does not unroll.
func (e *encoder) fill(data []byte, base uint32, from, to int) {
	if e.q.optimal {
		for k := from; k < to; k++ {
			e.treeInsert(data, k, base+uint32(k), min(uint32(k), e.maxDist), 0, e.q.niceLen, e.q.treeDepth, 0, nil)
		}
		return
	}
	if e.q.deep {
		e.fillDeepAny(data, base, from, to)
		return
	}
	if e.q.lazyLoop { // qualities 2 and 3
		e.fillRun(data, base, from, to)
		return
	}
	table := e.table
	if e.waysLog == 0 {
		// Qualities 0 and 1: findFast's slots.
		mask := uint64(len(table) - 1)
		for k := from; k < to; k++ {
			table[fastSlot[[0]byte](load64(data, k)*hashMul6>>fastShift, mask)] = base + uint32(k)
		}
		return
	}
	hl, hs := e.hashLeft&63, e.hashShift&63
	for k := from; k < to; k++ {
		h := int((load64(data, k)<<hl)*hashMul>>hs) << 2
		b := (*[4]uint32)(table[h : h+4])
		b[0], b[1], b[2], b[3] = base+uint32(k), b[0], b[1], b[2]
	}
}

// hashMul5 is hashMul<<24: x*hashMul5 is (x<<24)*hashMul, the hash of
// x's low 5 bytes.
const hashMul5 = hashMul << 24 & (1<<64 - 1)

// fillRun is fill of every position from..to-1 into buckets of one or two
// positions with 5-byte hashes (qualities 2 and 3): one 8-byte load gives
// the bytes of four positions.
func (e *encoder) fillRun(data []byte, base uint32, from, to int) {
	table := e.table
	hs := e.hashShift & 63
	k := from
	if e.waysLog == 1 {
		enter := func(x uint64, a uint32) {
			h := int(x*hashMul5>>hs) << 1
			b := (*[2]uint32)(table[h : h+2])
			b[0], b[1] = a, b[0]
		}
		for ; k+4 <= to; k += 4 {
			x := load64(data, k)
			a := base + uint32(k)
			enter(x, a)
			enter(x>>8, a+1)
			enter(x>>16, a+2)
			enter(x>>24, a+3)
		}
		for ; k < to; k++ {
			enter(load64(data, k), base+uint32(k))
		}
		return
	}
	for ; k+4 <= to; k += 4 {
		x := load64(data, k)
		a := base + uint32(k)
		table[x*hashMul5>>hs] = a
		table[x>>8*hashMul5>>hs] = a + 1
		table[x>>16*hashMul5>>hs] = a + 2
		table[x>>24*hashMul5>>hs] = a + 3
	}
	for ; k < to; k++ {
		table[load64(data, k)*hashMul5>>hs] = base + uint32(k)
	}
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
func (e *encoder) search(w *window, i int, last uint32) (bestLen int, bestDist uint32, best int) {
	data := w.data
	x := load64(data, i)
	abs := w.base + uint32(i)
	// Distances 1..reach stay in this stream and the window; d-1 wraps for
	// 0, which stands for an unknown last distance or the position itself.
	reach := min(abs-w.streamA, e.maxDist)
	n := w.end - i - minMatch
	try := func(d uint32) {
		if d-1 < reach && load32(data, i-int(d)) == uint32(x) {
			l := minMatch + matchLen(data, i-int(d)+minMatch, i+minMatch, n)
			if sc := score(l, d, last); sc > best {
				bestLen, bestDist, best = l, d, sc
			}
		}
	}
	try(last)
	if last == 0 {
		last = abs + 1 // no bucket entry equals it below
	}
	// Buckets of four positions (quality 4; 2 and 3 have findLazy).
	h := e.slot(x)
	b := (*[4]uint32)(e.table[h : h+4])
	c0, c1, c2, c3 := b[0], b[1], b[2], b[3]
	b[0], b[1], b[2], b[3] = abs, c0, c1, c2
	if d := abs - c0; d != last {
		try(d)
	}
	if d := abs - c1; d != last {
		try(d)
	}
	if d := abs - c2; d != last {
		try(d)
	}
	if d := abs - c3; d != last {
		try(d)
	}
	if w.raw != nil && bestLen < lazyMax {
		if l, d := w.rawMatch(i, w.end-i, reach); l > bestLen {
			if sc := score(l, d, last); sc > best {
				bestLen, bestDist, best = l, d, sc
			}
		}
	}
	return bestLen, bestDist, best
}

// findMatches turns data[start:w.end] into commands with one step of
// lazy matching (quality 4), or has the deep finder (5-9) or the optimal
// parser (10-11) do it.
func (e *encoder) findMatches(w *window, start int) {
	q := &e.q
	// Room for a command per 8 bytes, so that the list rarely grows inside
	// the match finder's loop.
	e.cmds = e.cmds[:0]
	if n := w.end - start; cap(e.cmds) < n/8+2 {
		e.cmds = make([]command, 0, n/8+2)
	}
	if q.optimal {
		e.findOptimal(w, start)
		return
	}
	if q.deep {
		e.findDeep(w, start)
		return
	}
	last := uint32(0)
	if e.ring.known > 0 {
		last = e.ring.d[0]
	}
	lit := start
	i := start
	limit := w.end - 8 // search reads 8 bytes at i
	misses := 0
	// The static dictionary is searched where the window has no match,
	// until the searches stop paying (searchDict's gate, which does not
	// open again).
	dict := e.q.dictDepth > 0 && !w.noDict && e.dictOpen()
	dictEnd := w.dictEnd(e.q.dictSpan)
	for i <= limit {
		l, d, sc := e.search(w, i, last)
		word := 0 // for a dictionary reference, 1 + the bytes it omits
		dict = dict && i < dictEnd
		if l < minMatch {
			if dict {
				l, d, sc, word = e.searchDict(w.data, i, w.end-i, w.dictReach(i, e.maxDist), 22, 0)
				word++ // used only if l > 0
				dict = e.dictOn
			}
			if l == 0 {
				i += 1 + misses>>(q.skipShift&63)
				misses++
				continue
			}
		}
		searched := i // the last position already entered in the table
		if l < q.lazyBelow && i+1 <= limit {
			l2, d2, sc2 := e.search(w, i+1, last)
			word2 := 0
			if l2 < minMatch && dict {
				var cut int
				if l2, d2, sc2, cut = e.searchDict(w.data, i+1, w.end-i-1, w.dictReach(i+1, e.maxDist), 22, 0); l2 > 0 {
					word2 = cut + 1
				}
				dict = e.dictOn
			}
			searched = i + 1
			if sc2 > sc+lazyMargin {
				i++
				l, d, word = l2, d2, word2
			}
		}
		countLiterals(&e.litHist, w.data[lit:i])
		e.cmds = append(e.cmds, command{insert: uint32(i - lit), copy: uint32(l), dist: d, cut: uint8(word - min(word, 1)), dict: word > 0})
		if word == 0 {
			last = d
		}
		end := min(i+l, limit+1)
		stop := min(i+fillHead, end)
		e.fill(w.data, w.base, searched+1, stop)
		e.fill(w.data, w.base, max(stop, end-fillTail), end)
		i += l
		lit = i
		misses = 0
	}
	if lit < w.end {
		e.addCommand(w.data, lit, w.end, 0, 0)
	}
}

// addCommand records the literals data[lit:i] followed by a copy of l
// bytes from d back, counting the literals while they are in cache.
func (e *encoder) addCommand(data []byte, lit, i, l int, d uint32) {
	countLiterals(&e.litHist, data[lit:i])
	e.cmds = append(e.cmds, command{insert: uint32(i - lit), copy: uint32(l), dist: d})
}

func countLiterals(h *[256]uint32, lits []byte) {
	for _, b := range lits {
		h[b]++
	}
}

// unprobe takes back the literal counts of a finder whose probes count
// each position they pass without a match (findFastIn, findLazyIn), for
// the positions they tested in the run from..to-1, which they crossed in
// steps from 1<<skip positions past the last copy on, by walking the same
// steps; the caller then counts every byte of the run. Runs that long are
// rare.
func unprobe(lh *[256]uint32, data []byte, from, to int, skip uint) {
	for p, k := from, 1<<skip; p < to; k++ {
		lh[data[p]]--
		p += 1 + k>>skip
	}
}
