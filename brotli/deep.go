package brotli

import (
	"encoding/binary"
	"math/bits"
)

// The match finder of qualities 5 and up. Each bucket is a ring of
// q.ways positions with a counter per bucket (heads) that says where the
// next one goes, so entering a position is one store whatever the
// bucket's size, and a search walks the ring from the newest position
// back. Positions only grow, so the walk stops at the first one out of
// reach: every older one is farther still (entries of earlier streams, or
// of another table layout after ResetOptions, are below the stream's
// start).

// bucket is the index of the hash bucket for the bytes x: x<<hashLeft
// times hashMul is x times hashMulLeft, one shift by a variable fewer.
// Through a uint32, which holds every index (tables have far fewer than
// 2^32 buckets), so that the compiler sees that the bucket's offset
// cannot overflow and checks one bound fewer when searchDeep slices the
// bucket (0.17% of quality 6 on jquery).
func (e *encoder) bucket(x uint64) int {
	return int(uint32(x * e.hashMulLeft >> (e.hashShift & 63)))
}

// deepBucket stands for a bucket size of the deep finder's table, one
// type per size: each is compiled apart (its own GC shape), so that the
// size and its mask are constants in the loops below. A bucket is
// addressed as a *[maxWays]uint32 (the table has maxWays entries of room
// beyond its end), and a constant mask below maxWays then needs no
// bounds check.
type deepBucket interface {
	[8]uint32 | [16]uint32 | [32]uint32 | [64]uint32 | [128]uint32
}

// maxWays is the largest bucket, and the room the table keeps beyond its
// end so that every bucket can be taken as a *[maxWays]uint32.
const maxWays = 128

// findDeep and fillDeepAny call the deep finder's functions for e's
// bucket size. A switch rather than a table of functions: through a
// function value the window would escape to the heap.
func (e *encoder) findDeep(w *window, start int) {
	switch e.waysLog {
	case 3:
		findMatchesDeep[[8]uint32](e, w, start)
	case 4:
		findMatchesDeep[[16]uint32](e, w, start)
	case 5:
		findMatchesDeep[[32]uint32](e, w, start)
	case 6:
		findMatchesDeep[[64]uint32](e, w, start)
	default:
		findMatchesDeep[[128]uint32](e, w, start)
	}
}

func (e *encoder) fillDeepAny(data []byte, base uint32, from, to int) {
	switch e.waysLog {
	case 3:
		fillDeep[[8]uint32](e, data, base, from, to)
	case 4:
		fillDeep[[16]uint32](e, data, base, from, to)
	case 5:
		fillDeep[[32]uint32](e, data, base, from, to)
	case 6:
		fillDeep[[64]uint32](e, data, base, from, to)
	default:
		fillDeep[[128]uint32](e, data, base, from, to)
	}
}

// fillDeep enters the positions from..to-1 of data (data[k] at absolute
// position base+k; to at most len(data)-7) in the ring buckets.
func fillDeep[B deepBucket](e *encoder, data []byte, base uint32, from, to int) {
	table, heads := e.table, e.heads
	// The hash in locals: the stores below could, for all the compiler
	// knows, change e's fields. One shift by a variable (hashMulLeft): x86
	// shifts by a variable only through one register, and several shift
	// counts made the loop keep its values on the stack.
	mul, hs := e.hashMulLeft, e.hashShift&63
	if from >= to {
		return
	}
	// A walk along data[from:to+7], each load the slice's first 8 bytes
	// and the position counted along: with an index, its bounds and base
	// live, the loop kept its hash and counter on the stack (2% more
	// instructions at qualities 5-9).
	data = data[from : to+7]
	abs := base + uint32(from)
	// Four positions from one 8-byte load: the deep finder hashes at
	// most 5 bytes (hashLen 4, or 5 for long bodies), and the multiplier
	// drops the bytes above them, so x>>8k hashes position k's bytes as
	// its own load would. In order, as one at a time: positions of one
	// bucket are entered oldest first.
	for len(data) >= 11 {
		x := binary.LittleEndian.Uint64(data)
		enterDeep[B](table, heads, int(x*mul>>hs), abs)
		enterDeep[B](table, heads, int((x>>8)*mul>>hs), abs+1)
		enterDeep[B](table, heads, int((x>>16)*mul>>hs), abs+2)
		enterDeep[B](table, heads, int((x>>24)*mul>>hs), abs+3)
		abs += 4
		data = data[4:]
	}
	for len(data) >= 8 {
		enterDeep[B](table, heads, int(binary.LittleEndian.Uint64(data)*mul>>hs), abs)
		abs++
		data = data[1:]
	}
}

// enterDeep enters the position abs in bucket h.
func enterDeep[B deepBucket](table []uint32, heads []uint16, h int, abs uint32) {
	var probe B
	ways := len(probe)
	// The counter's increment stored before the entry: the other way
	// round, the compiler kept c on the stack across the store.
	hd := &heads[h]
	c := *hd
	*hd = c + 1
	table[h*ways+int(c)&(ways-1)] = abs
}

// match is a candidate copy: its length, distance and score.
type match struct {
	len   int
	dist  uint32
	score int
	// word is 0 for a backward copy; for a static dictionary reference,
	// 1 + the bytes of the word that its transform omits. (Four fields at
	// most: Go keeps such a struct in registers.)
	word uint8
}

// ringScore is the score of a copy of l bytes at a distance the ring
// codes, other than the last one: a distance symbol without extra bits.
func ringScore(l int) int { return 16*l - 14 }

// searchDeep finds the best-scoring match at i among the distances the
// decoder holds (and, from ringCands 10, their neighbours) and the
// positions of i's bucket, then enters i in the bucket. Its code avoids
// closures, and the bucket scan is a function of its own (next). depth
// is how many of the bucket's newest positions are looked at, 1 to
// len(B).
func searchDeep[B deepBucket](e *encoder, w *window, i int, ring *distRing, sc *bucketScan[B], depth int) match {
	data := w.data
	x := load64(data, i)
	x32 := uint32(x)
	abs := w.base + uint32(i)
	reach := min(abs-w.streamA, e.maxDist)
	maxLen := w.end - i
	var m match
	// The distances the ring holds cost a distance symbol without extra
	// bits, the last one not even that; a repeated entry scores the same
	// again, and loses. The checks first, the rare matches after: a call
	// inside the first loop would make it save and restore its values
	// every time round.
	var hits uint
	// The ring's copies start before i, so their 4 bytes end within
	// data[:i+4]: counted back from its end (ringHit), the compiler can
	// see that and checks no bound at their loads.
	upto := data[:i+4]
	// Unrolled: a loop kept its index and values on the stack. All four,
	// known or not: the entries the encoder does not know are 0 (see
	// findMatchesDeep), a distance no copy has.
	d := &ring.d
	if ringHit(upto, d[0], reach, x32) {
		hits |= 1
	}
	if ringHit(upto, d[1], reach, x32) {
		hits |= 2
	}
	if ringHit(upto, d[2], reach, x32) {
		hits |= 4
	}
	if ringHit(upto, d[3], reach, x32) {
		hits |= 8
	}
	// The matches rebuilt with word 0, which they have: a word the
	// compiler cannot see is 0 was one more value kept across the calls.
	if hits != 0 {
		r := ringMatches(data, i, ring, hits, maxLen)
		m = match{len: r.len, dist: r.dist, score: r.score}
	}
	if e.q.ringCands >= 10 {
		r := e.ringNeighbours(data, i, ring, reach, maxLen, m)
		m = match{len: r.len, dist: r.dist, score: r.score}
	}
	h := e.bucket(x)
	var probe B
	ways := len(probe)
	b := (*[maxWays]uint32)(e.table[h*ways : h*ways+maxWays])
	head := &e.heads[h]
	c := *head
	mask := uint16(ways - 1)
	// A match of niceLen is good enough: the rest of the bucket rarely
	// beats it by much.
	limitLen := min(maxLen, e.q.niceLen)
	// The walk stops at the first position out of reach, and the newest
	// is the first it looks at: a bucket whose newest is out of reach
	// (none of this stream's positions yet) is left without the scan's
	// setup and the call.
	lo := abs - reach
	if p := b[(c-1)&mask]; m.len < limitLen && p >= lo {
		// The byte that would make a candidate longer than the best so
		// far rejects most candidates with one comparison. Newest first:
		// of equally long matches the nearest comes first and wins.
		// Positions from lo up are in reach.
		// Most searches start with no match (the ring's distances
		// rarely hold i's 4 bytes): the byte they need is then x's
		// first, in a register, and the load and its bounds check are
		// spared (0.8% of quality 6's instructions on jquery).
		want := byte(x)
		if m.len != 0 {
			want = sc.data[i+m.len]
		}
		sc.b, sc.lo, sc.best, sc.want = b, lo, m.len, want
		sc.i, sc.x = i, x
		sc.dist, sc.score = m.dist, m.score
		stop := c - 1 - uint16(depth)
		k, at := sc.next(c-1, stop)
		// The data, i and the bytes left read back from sc here (sc.data
		// and sc.end are w's): kept in registers, they were stored
		// before the first call of next at every search, for a loop
		// that runs for few.
		for ; k != stop; k, at = sc.next(k-1, stop) {
			// A candidate whose first 16 bytes match, or 8 where fewer
			// than 16 are left (next measured the shorter ones).
			data, i := sc.data, sc.i
			j := int(at)
			l := 8 + matchLen(data, j+8, i+8, sc.end-i-8)
			d := uint32(i - j)
			if s := 16*l - 4*bits.Len32(d) - 16; s > sc.score {
				sc.best, sc.dist, sc.score = l, d, s
				if l >= limitLen {
					break
				}
				sc.want = data[i+l]
			}
		}
		m = match{len: sc.best, dist: sc.dist, score: sc.score}
	}
	b[c&mask] = abs
	*head = c + 1
	return m
}

// ringMatches is the best copy at i among the ring distances whose bits
// hits holds (their 4 bytes match). A call made only where one matched
// (one search in sixty on jquery at 6): as a loop in searchDeep, with
// its call of matchLen, it cost every search its setup and two more
// stored values (about 3 instructions a search, 0.5% at 6 on jquery).
func ringMatches(data []byte, i int, ring *distRing, hits uint, maxLen int) match {
	var m match
	for ; hits != 0; hits &= hits - 1 {
		k := bits.TrailingZeros(hits)
		d := ring.d[k&3]
		l := minMatch + matchLen(data, i-int(d)+minMatch, i+minMatch, maxLen-minMatch)
		s := ringScore(l)
		if k == 0 {
			s = 16*l - 8
		}
		if s > m.score {
			m = match{len: l, dist: d, score: s}
		}
	}
	return m
}

// ringHit reports whether the distance d, in reach, copies the 4 bytes
// x32 that end upto (the search's position is len(upto)-4). The test
// that the copy starts at 0 or after, which reach implies, spares the
// load the bounds check of its start (0.4% of the instructions at
// quality 6 on jquery); the start counted back from len(upto) spares
// the check of its end, which the compiler proves from d >= 0.
func ringHit(upto []byte, d, reach, x32 uint32) bool {
	j := len(upto) - 4 - int(d)
	return d-1 < reach && j >= 0 && load32(upto, j) == x32
}

// withRaw is m, or a copy from the raw dictionary at i that scores
// better, where m is shorter than the quality's niceLen. Outside
// searchDeep, as withDict: most streams have no raw dictionary.
func (e *encoder) withRaw(w *window, i int, m match) match {
	maxLen := w.end - i
	if m.len >= min(maxLen, e.q.niceLen) {
		return m
	}
	reach := min(w.base+uint32(i)-w.streamA, e.maxDist)
	if l, d := w.rawMatch(i, maxLen, reach); l > m.len {
		if s := 16*l - 4*bits.Len32(d) - 16; s > m.score {
			m = match{len: l, dist: d, score: s}
		}
	}
	return m
}

// withDict is m, or a static dictionary reference at i that scores
// better. The caller tests the dictionary's filter first (most searches
// end there), outside searchDeep, whose values would otherwise crowd the
// registers for every search.
func (e *encoder) withDict(w *window, i int, m match) match {
	if l, d, s, cut := e.searchDict(w.data, i, w.end-i, w.dictReach(i, e.maxDist), 16, m.score); l > 0 {
		m = match{len: l, dist: d, score: s, word: uint8(cut) + 1}
	}
	return m
}

// bucketScan is what the scan of a bucket compares candidates with; its
// window's data and base are set once per window.
type bucketScan[B deepBucket] struct {
	b        *[maxWays]uint32 // the bucket's ring, its first len(B) entries
	data     []byte
	lo, base uint32 // positions below lo are out of reach; data[0] is at base
	// best is the length a candidate must pass, and the best match's:
	// best, dist and score are the best match so far. Kept here, not in
	// searchDeep's registers: Go saves no register across a call, so
	// they were stored and reloaded around every call of next. Not a
	// match: its word, always 0 here, was stored and loaded too.
	best  int
	dist  uint32
	score int
	want  byte // the byte at best that a longer match needs
	// i is the search's position and x its first 8 bytes: here rather
	// than next's arguments, which it needs only for a candidate that
	// passed the byte test, so that its loop has the registers for the
	// rest.
	i   int
	x   uint64
	end int // w.end, where matches stop
}

// next walks the ring from k down to stop (exclusive) for copies of the
// bytes at i, x their first 8, and improves the scan's best match with
// those that pass the byte at best (which rejects most with one
// comparison) and end within 16 bytes, measured by two 8-byte loads; it
// returns the first k whose position matches all 16 (or 8, where fewer
// than 16 bytes are left), which the caller measures, with its index
// into data, or stop. Newest first: of equally long matches the nearest
// comes first and wins. A function of its own that calls nothing, so
// that its values stay in registers: inside searchDeep's loop the
// compiler spilled and reloaded some for every candidate (17
// instructions per candidate here against 25 there). Candidates measured
// here rather than returned spare searchDeep a call and the reload of
// its values for each (most of them: matches of 16 bytes or more are
// about one in three).
func (s *bucketScan[B]) next(k, stop uint16) (uint16, uint32) {
	b, data := s.b, s.data
	_ = b[0] // b is not nil: the loop then tests it no more
	var probe B
	mask := uint16(len(probe) - 1)
	lo, want := s.lo, s.want
	// data[j+best] with j = p-base in one addition.
	bias := s.best - int(s.base)
	for ; k != stop; k-- {
		p := b[k&mask]
		if p < lo {
			return stop, 0 // older entries are farther still
		}
		if data[int(p)+bias] != want {
			continue
		}
		// One load of the candidate's first 8 bytes tests the 4 its
		// hash stands for against x and measures the matches that end
		// within them, the next 8 most of the rest. (Searches leave 8
		// bytes at i, and the second load is made where 16 are left;
		// widened from 32 bits, j+16 cannot overflow.)
		j := int(p - s.base)
		v := load64(data, j) ^ s.x
		if uint32(v) != 0 {
			continue
		}
		i := s.i
		// Counted where v is known not to be 0: then the count needs no
		// case for 0, whose constant took a register.
		var l int
		if v != 0 {
			l = bits.TrailingZeros64(v) / 8
		} else {
			if s.end-i < 16 {
				return k, uint32(j)
			}
			v = load64(data, j+8) ^ load64(data, i+8)
			if v == 0 {
				return k, uint32(j)
			}
			l = 8 + bits.TrailingZeros64(v)/8
		}
		// Shorter than 16 (than 8 where fewer than 16 are left), so
		// shorter than the walk's limit: niceLen and the bytes left.
		d := uint32(i - j)
		if sc := 16*l - 4*bits.Len32(d) - 16; sc > s.score {
			s.best, s.dist, s.score = l, d, sc
			want = data[i+l]
			s.want = want
			bias = l - int(s.base)
		}
	}
	return stop, 0
}

// neighbourDeltas are the offsets from a ring distance that codes 4-15
// express.
var neighbourDeltas = [6]int32{-1, 1, -2, 2, -3, 3}

// ringNeighbours improves m with the distances next to the ring's
// (±1..3 of the last one, from ringCands 16 of the second to last too),
// which the ring codes without extra bits. They are tested first, into
// a mask of 6 bits per ring distance (bit 6j+k: ring distance j plus
// neighbourDeltas[k] holds the 4 bytes at i), and the rare hits measured
// after, by a call that nothing follows: most searches find none, and
// this way the function keeps its values in registers. (With matchLen's
// calls inside the loop over ring distances and the words in an array
// that it indexed, the compiler stored the arguments and kept the words
// in memory on every call: about 130 instructions a search at quality
// 8.)
func (e *encoder) ringNeighbours(data []byte, i int, ring *distRing, reach uint32, maxLen int, m match) match {
	x32 := load32(data, i)
	var hits uint
	for j := range min(ring.known, (e.q.ringCands-4)/6) {
		r := int(ring.d[j&3])
		var h uint
		if r >= 4 && uint32(r+3) <= reach {
			// The six lie in the 10 bytes from i-r-3: two loads, each
			// word a shift of one of them (one check per distance was
			// a fifth of the instructions at quality 8).
			lo := i - r - 3
			a, b := load64(data, lo), load64(data, lo+3)
			w0, w1, w2 := uint32(a>>32), uint32(a>>16), uint32(b>>16)
			w3, w4, w5 := uint32(a>>8), uint32(b>>24), uint32(a)
			if w0 != x32 && w1 != x32 && w2 != x32 && w3 != x32 && w4 != x32 && w5 != x32 {
				continue // the usual case
			}
			h = eq32(w0, x32) | eq32(w1, x32)<<1 | eq32(w2, x32)<<2 |
				eq32(w3, x32)<<3 | eq32(w4, x32)<<4 | eq32(w5, x32)<<5
		} else {
			// Near the stream's start some are out of reach.
			for k, delta := range neighbourDeltas {
				if d := uint32(r + int(delta)); d-1 < reach && load32(data, i-int(d)) == x32 {
					h |= 1 << k
				}
			}
		}
		hits |= h << (6 * j)
	}
	if hits == 0 {
		return m
	}
	return nearMatches(data, i, ring, hits, maxLen, m)
}

// nearMatches improves m with the neighbours of ring distances that
// ringNeighbours found, in the order of their bits.
func nearMatches(data []byte, i int, ring *distRing, hits uint, maxLen int, m match) match {
	best := m.score
	for ; hits != 0; hits &= hits - 1 {
		k := bits.TrailingZeros(hits)
		d := uint32(int(ring.d[k/6&3]) + int(neighbourDeltas[k%6]))
		l := minMatch + matchLen(data, i-int(d)+minMatch, i+minMatch, maxLen-minMatch)
		if s := ringScore(l); s > best {
			m, best = match{len: l, dist: d, score: s}, s
		}
	}
	return m
}

// eq32 is 1 if a == b, else 0.
func eq32(a, b uint32) uint {
	if a == b {
		return 1
	}
	return 0
}

// sparseAfter is how many searches in a row must find nothing before
// the deep finder searches sparsely (sparseStep).
const sparseAfter = 64

// sparseStep is how far the deep finder moves on after a search that
// found nothing, the misses-th such search in a row (from 0): to the next
// position at first; after sparseAfter, where the data repeats little
// (text in a script of multi-byte characters, base64, data already
// compressed), to the 4th position on, one more for every 32 searches
// more. Skipped positions are not entered in the table. On Chinese,
// Japanese, Korean and Russian text it took 27% of the instructions off
// at quality 6 for 0.3% of output (brotli README, *Text of multi-byte
// characters*); the corpus, whose runs of literals are short, is coded
// as before.
func sparseStep(misses int) int {
	if misses < sparseAfter {
		return 1
	}
	return 4 + (misses-sparseAfter)>>5
}

// findMatchesDeep turns data[start:w.end] into commands for qualities 5
// and up: matches scored by what they save, with up to q.lazySteps
// positions tried ahead, and the decoder's distance ring tracked so that
// its distances can be tried first. Literals are counted later, by
// context (see countContexts).
func findMatchesDeep[B deepBucket](e *encoder, w *window, start int) {
	q := &e.q
	ring := e.ring
	// The entries the encoder does not know (a segment's first commands
	// do not know the ring) set to 0, a distance that no copy has and
	// pushes keep past the known ones: searchDeep then tests all four
	// without asking how many are known. A copy: the ring the decoder
	// sees is e.ring, which the symbol pass tracks.
	for k := ring.known; k < len(ring.d); k++ {
		ring.d[k] = 0
	}
	sc := bucketScan[B]{data: w.data, base: w.base, end: w.end}
	var probe B // the main search looks at every position of a bucket
	lit, i := start, start
	limit := w.end - 8 // searches read 8 bytes at i
	misses := 0
	e.dictOn = e.q.dictDepth > 0 && !w.noDict && e.dictOpen()
	dictEnd := w.dictEnd(e.q.dictSpan)
	for i <= limit {
		if i >= dictEnd {
			// A test without a store: this runs for every search.
			e.dictOn = false
		}
		m := searchDeep(e, w, i, &ring, &sc, len(probe))
		if w.raw != nil {
			m = e.withRaw(w, i, m)
		}
		if m.len < q.dictBelow && e.dictOn && !e.dictFiltered(load32(w.data, i)) {
			m = e.withDict(w, i, m)
		}
		if m.len < minMatch {
			i += sparseStep(misses)
			misses++
			continue
		}
		searched := i
		// A search one position ahead wins about one time in ten: it is
		// made for shorter matches only, and looks at fewer positions.
		for step := 0; step < q.lazySteps && m.len < q.lazyBelow && i+1 <= limit; step++ {
			next := searchDeep(e, w, i+1, &ring, &sc, q.lazyWays)
			// The dictionary stages as after the main search: in a
			// function of their own for both (not inlined) they took
			// 2.1% more instructions on jquery at 6.
			if w.raw != nil {
				next = e.withRaw(w, i+1, next)
			}
			if next.len < q.dictBelow && e.dictOn && !e.dictFiltered(load32(w.data, i+1)) {
				next = e.withDict(w, i+1, next)
			}
			searched = i + 1
			if next.score <= m.score+lazyMargin {
				break
			}
			i++
			m = next
		}
		e.cmds = append(e.cmds, command{insert: uint32(i - lit), copy: uint32(m.len), dist: m.dist, cut: m.word - min(m.word, 1), dict: m.word > 0})
		if m.word == 0 && (ring.known == 0 || m.dist != ring.d[0]) {
			ring.push(m.dist)
		}
		end := min(i+m.len, limit+1)
		stop := min(i+fillHead*4, end)
		fillDeep[B](e, w.data, w.base, searched+1, stop)
		if stop < end {
			// Only a copy longer than the head has a tail of its own: for
			// the others the call alone cost 0.8% of quality 6 on jquery.
			fillDeep[B](e, w.data, w.base, max(stop, end-fillTail), end)
		}
		i += m.len
		lit = i
		misses = 0
	}
	if lit < w.end {
		e.cmds = append(e.cmds, command{insert: uint32(w.end - lit)})
	}
}
