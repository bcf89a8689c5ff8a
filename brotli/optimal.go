package brotli

import (
	"math"
	"math/bits"
)

// Qualities 10 and 11 parse each meta-block for the fewest bits rather
// than greedily: every position's matches are found first (a binary tree
// of the window's positions per hash of 4 bytes), then a shortest-path
// pass over the positions chooses the commands under a model of what
// literals, insert-and-copy symbols and distances cost. Quality 11 runs
// the pass again with the costs of the first pass's commands and keeps
// more starts of the literal run before each copy.

// btree is the match finder of the optimal parser: for each bucket of
// 4-byte hashes a binary search tree of positions, ordered by the bytes
// that follow them, newest at the root. kids holds a position's two
// subtrees at 2*(position&mask); a walk stops at a position farther back
// than the window, so neither array needs clearing between streams.
type btree struct {
	roots []uint32
	kids  []uint32
	mask  uint32
	shift uint
}

// optMatch is a match the finder reports at a position: len bytes from
// dist back, or a static dictionary reference (dict) of len bytes whose
// word is len+cut bytes long (cut is signed: negative where the transform
// adds text).
type optMatch struct {
	len, dist uint32
	cut       uint8
	dict      bool
}

// optNode is the command that ends the cheapest way found so far to
// reach a position of the meta-block; the way's cost in bits is in
// optimal.reached, apart: the parse compares costs at many more
// positions than it writes commands to, and 8 bytes a position read for
// a compare instead of a 24-byte node's keep more of them in the cache
// (2.8% fewer instructions on the 95 KB JSON at quality 11 as well).
type optNode struct {
	insert, copy, dist uint32
	cut                uint8
	dict               bool
}

// optStart is a position where a run of literals may begin: a node
// reached, ranked by its cost less what its literals have cost so far,
// with the ring of distances the decoder has there.
type optStart struct {
	pos   int
	key   float64
	dists [16]uint32 // the distances of the short codes (0: none)
}

// optimal is the optimal parser's scratch, kept by an encoder for reuse.
type optimal struct {
	nodes   []optNode
	reached []float64 // reached[k]: the cost of nodes[k]'s way (+Inf: none yet)
	starts  []optStart
	first   []uint32 // per position of the meta-block, its first match in matches
	matches []optMatch
	lit     []float64 // lit[k]: the cost of the meta-block's first k bytes as literals
	cmdCost [maxAlphabet]float64
	dstCost [maxDistAlphabet]float64
	// copyCost[ic][cc] is what the insert-and-copy symbol of insert code
	// ic and copy code cc costs with the copy's extra bits; lastCost the
	// same for a copy at the last distance, whose symbol may imply it.
	// Rows of 32 (codes go up to 23) let the parse's length loops index
	// them with the code & 31, which needs no bound checked per length.
	copyCost, lastCost [24][32]float64
	cmds               []command // findOptimal's commands of the pieces parsed
	counts             [256]uint32
	total              int // of counts
	cmdHist            [maxAlphabet]uint32
	dstHist            [maxDistAlphabet]uint32
	refs               refLengths // collect's, per position
	// rings[p % 1024] is the ring of distances at start p of the parse
	// (ringAt): a table of every position's took 16 bytes a position,
	// 4 MiB more for an encoder that keeps its memory idle.
	rings [1 << 10]ringEntry
}

// ringEntry is a start's ring of distances in optimal.rings; at is its
// position + 1 (0: none).
type ringEntry struct {
	at   uint32
	ring [4]uint32
}

// maxPosMatches bounds the matches kept per position (the longest).
const maxPosMatches = 32

// setupTree sizes the tree for a body of about sizeHint bytes (0 if
// unknown) in a window of maxDist: to the body, or to startSpan for a
// stream of unknown length, which ensureTree then grows with the stream.
func (e *encoder) setupTree(hashBits uint, sizeHint int) {
	t := &e.tree
	span := startSpan
	if sizeHint > 0 {
		span = sizeHint
	}
	t.size(min(span, int(e.maxDist)))
	if cap(t.roots) < 1<<hashBits {
		t.roots = make([]uint32, 1<<hashBits)
	}
	t.roots = t.roots[:1<<hashBits]
	t.shift = 32 - hashBits
}

// startSpan is the distance a tree first reaches in a stream of unknown
// length: a window of 16 MiB would take 128 MiB at once.
const startSpan = 1 << 18

// size makes room for distances up to span: a position's slot is not
// reused within reach.
func (t *btree) size(span int) {
	n := 1 << bits.Len(uint(span))
	if len(t.kids) < 2*n {
		t.kids = make([]uint32, 2*n)
	}
	t.mask = uint32(n - 1)
}

// ensureTree grows the tree before the positions of w up to w.end are
// searched, if they reach farther back than it holds, and enters again
// the positions before start that the larger tree reaches.
func (e *encoder) ensureTree(w *window, start int) {
	t := &e.tree
	need := min(uint64(e.maxDist), uint64(w.base)+uint64(w.end)-uint64(w.streamA))
	if need <= uint64(t.mask) {
		return
	}
	t.size(int(need))
	clear(t.roots)
	from := max(0, int(int64(w.streamA)-int64(w.base)), start-int(t.mask))
	for k := from; k < start && k+8 <= len(w.data); k++ {
		abs := w.base + uint32(k)
		e.treeInsert(w.data, k, abs, min(abs-w.streamA, e.maxDist), 0, e.q.niceLen, e.q.treeDepth, 0, nil)
	}
}

// treeInsert enters position i of data (absolute position abs) in its
// tree and appends to out the matches passed on the way, each longer than
// the one before and than best; reach bounds their distance, maxLen their
// length. A match of limit bytes ends the walk: the new position takes
// the place of the one it matched.
func (e *encoder) treeInsert(data []byte, i int, abs, reach uint32, maxLen, limit, depth, best int, out []optMatch) []optMatch {
	t := &e.tree
	kids, mask := t.kids, t.mask
	reach = min(reach, mask) // a slot farther back may hold a newer position
	h := load32(data, i) * dictMul >> (t.shift & 31)
	cand := t.roots[h]
	t.roots[h] = abs
	limit = min(limit, len(data)-i)
	left, right := 2*int(abs&mask), 2*int(abs&mask)+1 // where the next smaller and larger node go
	lenL, lenR := 0, 0
	for ; depth > 0; depth-- {
		delta := abs - cand
		if delta-1 >= reach { // also cand == abs, never entered twice
			break
		}
		j := i - int(delta)
		c := 2 * int(cand&mask)
		l := min(lenL, lenR)
		// Most candidates differ within the next 8 bytes: compared here,
		// without matchLen's call, around which every value the walk
		// holds in a register went to the stack and back.
		x := uint64(0)
		if l+8 <= limit {
			x = load64(data, j+l) ^ load64(data, i+l)
		}
		if x != 0 {
			l += bits.TrailingZeros64(x) / 8
		} else {
			l += matchLen(data, j+l, i+l, limit-l)
		}
		if l > best {
			// Counted again from the start: the length goes past the
			// tree's limit, and the prefix the tree implies is checked (a
			// tree built over a stream whose end has since moved was
			// ordered on fewer bytes at its last positions).
			if v := matchLen(data, j, i, maxLen); v > best {
				best = v
				out = append(out, optMatch{len: uint32(v), dist: delta})
			}
		}
		if l >= limit {
			kids[left], kids[right] = kids[c], kids[c+1]
			return out
		}
		if data[j+l] < data[i+l] {
			kids[left] = cand
			left = c + 1
			cand = kids[left]
			lenL = l
		} else {
			kids[right] = cand
			right = c
			cand = kids[right]
			lenR = l
		}
	}
	kids[left], kids[right] = 0, 0
	return out
}

// findOptimal turns data[start:w.end] into the commands of the cheapest
// parse it finds (qualities 10 and 11).
func (e *encoder) findOptimal(w *window, start int) {
	end := w.end
	if end-start <= parseSpan {
		e.parsePiece(w, start)
		return
	}
	// A meta-block longer than parseSpan is parsed a piece at a time; the
	// literals that end a piece join the next piece's first command,
	// since only a meta-block's last command may lack a copy. Each piece
	// prices its first copies with the meta-block's ring of distances
	// (the ring the piece before leaves made react-dom 11 bytes larger).
	o := e.opt
	o.cmds = o.cmds[:0]
	carry := uint32(0)
	for s := start; s < end; s = w.end {
		w.end = min(s+parseSpan, end)
		e.parsePiece(w, s)
		e.cmds[0].insert += carry
		carry = 0
		if last := e.cmds[len(e.cmds)-1]; last.copy == 0 && w.end < end {
			carry = last.insert
			e.cmds = e.cmds[:len(e.cmds)-1]
		}
		o.cmds = append(o.cmds, e.cmds...)
	}
	e.cmds = append(e.cmds[:0], o.cmds...)
}

// parseSpan is the most bytes parsed at once: the parse takes 24 bytes
// per position besides the matches found, while a meta-block may be
// longer (blockBits), which saves codes and gives block splitting more
// to choose from.
const parseSpan = 1 << 18

// parsePiece turns data[start:w.end] into the commands of the cheapest
// parse it finds, in e.cmds.
func (e *encoder) parsePiece(w *window, start int) {
	o := e.opt
	o.collect(e, w, start)
	if e.q.passes == 1 {
		// One pass takes its costs from a quick parse of the matches
		// found: 1% smaller over the corpus than from the guess alone
		// (at 11, whose first pass gives the second its costs, the guess
		// does better: the CSS file 1.7% smaller).
		o.greedy(e, w.end-start)
		o.learn(e, w, start)
	} else {
		o.prior(w, start)
	}
	// A pass that gives the next its costs tries one start: that serves
	// as well as more (45 bytes over the corpus at 11) in 15% less time.
	// Only the last pass tries q.starts.
	for pass := 1; ; pass++ {
		if pass == e.q.passes {
			o.parse(e, w, start, e.q.starts)
			return
		}
		o.parse(e, w, start, 1)
		o.learn(e, w, start)
	}
}

// collect finds the matches at every position of data[start:w.end] and
// enters the positions in the tree.
func (o *optimal) collect(e *encoder, w *window, start int) {
	e.ensureTree(w, start)
	data := w.data
	o.first = o.first[:0]
	o.matches = o.matches[:0]
	limit := w.end - 8 // searches read 8 bytes
	e.dictOn = e.q.dictDepth > 0 && !w.noDict && e.dictOpen()
	dictEnd := w.dictEnd(e.q.dictSpan)
	nice := e.q.niceLen
	near := 0
	if e.q.nearPairs > 0 && multiByteText(data[start:w.end]) {
		near = e.q.nearPairs
	}
	skipTo := 0
	for i := start; i < w.end; i++ {
		o.first = append(o.first, uint32(len(o.matches)))
		if i > limit {
			continue
		}
		abs := w.base + uint32(i)
		reach := min(abs-w.streamA, e.maxDist)
		if i < skipTo {
			// Inside a copy longer than nice, which the parse takes
			// whole: entered, not searched.
			e.treeInsert(data, i, abs, reach, 0, nice, e.q.treeDepth, 0, nil)
			continue
		}
		k := len(o.matches)
		// The tree's copies (of 4 bytes and more: it holds 4-byte
		// hashes). Shorter ones come from the ring's distances in the
		// parse: comparing the nearest 16 or 64 distances here as well
		// found copies of 2 and 3 bytes that the parse never took at 10
		// and that saved 0.04% at 11, for 5% and 11-18% of the time.
		best := 0
		o.matches = e.treeInsert(data, i, abs, reach, w.end-i, nice, e.q.treeDepth, minMatch-1, o.matches)
		if n := len(o.matches) - k; n > maxPosMatches {
			o.matches = append(o.matches[:k], o.matches[k+n-maxPosMatches:]...)
		}
		if len(o.matches) > k {
			best = int(o.matches[len(o.matches)-1].len)
		}
		if near > 0 && best < minMatch-1 {
			if l, d := nearCopy(data, i, w.end-i, min(uint32(near), reach)); l > 0 {
				o.matches = append(o.matches, optMatch{len: uint32(l), dist: d})
				best = l
			}
		}
		if best > nice {
			skipTo = i + best
		}
		e.dictOn = e.dictOn && i < dictEnd
		if e.dictOn && best < e.q.dictBelow {
			dreach := w.dictReach(i, e.maxDist)
			o.refs.minLen = best + 1
			if e.q.allRefs {
				e.offerWords(data, i, w.end-i, dreach, &o.refs)
				if e.q.omitDepth > 0 {
					e.offerOmitFirst(data, i, w.end-i, dreach, &o.refs)
				}
			} else if l, d, _, cut := e.searchDict(data, i, w.end-i, dreach, 16, 0); l > best {
				best = l
				o.matches = append(o.matches, optMatch{len: uint32(l), dist: d, cut: uint8(cut), dict: true})
			}
			e.searchWords(data, i, w.end-i, dreach, &o.refs)
			o.matches = o.refs.appendTo(o.matches, best+1, e.q.allRefs)
		}
	}
	o.first = append(o.first, uint32(len(o.matches)))
}

// multiByteText reports whether at least a quarter of block's bytes are
// the second to fourth bytes of UTF-8 sequences (a lead byte followed by
// as many continuation bytes as it announces): text mostly in scripts
// whose characters take two to four bytes, such as Chinese, Japanese,
// Korean or Cyrillic. Characters near each other in such text often
// share their first bytes (a run of kana or of the characters of a code
// table differs in the last byte), which copies of 2 bytes from a few
// characters back can code in fewer bits than literals: the parse
// learns so at quality 11, where Google's encoder codes such a file up
// to a fifth smaller than with literals alone (brotli README, *Text of
// multi-byte characters*). Counting the continuation bytes alone would
// take random or compressed data for such text half the time (a quarter
// of all byte values are continuation bytes); whole sequences are about
// 7% of random bytes.
func multiByteText(block []byte) bool {
	n := 0
	for i := 0; i < len(block); {
		c := block[i]
		tail := 0
		switch {
		case c >= 0xc2 && c <= 0xdf:
			tail = 1
		case c >= 0xe0 && c <= 0xef:
			tail = 2
		case c >= 0xf0 && c <= 0xf4:
			tail = 3
		}
		k := 1
		for k <= tail && i+k < len(block) && block[i+k]&0xc0 == 0x80 {
			k++
		}
		if tail > 0 && k == tail+1 {
			n += tail
			i += k
			continue
		}
		i++
	}
	return n > 0 && n >= len(block)/4
}

// nearCopy returns the longest copy (up to maxLen bytes) from the
// nearest of the back positions before data[i] that has data[i]'s next
// 2 bytes, with its distance; 0, 0 when there is none.
func nearCopy(data []byte, i, maxLen int, back uint32) (int, uint32) {
	x := load16(data, i)
	for d := uint32(1); d <= back; d++ {
		if load16(data, i-int(d)) == x {
			return 2 + matchLen(data, i-int(d)+2, i+2, maxLen-2), d
		}
	}
	return 0, 0
}

// prior sets the costs of the first pass: literals by their frequency in
// the meta-block, symbols by a guess that grows with the symbol (short
// lengths and near distances have the small symbols and are the common
// ones).
func (o *optimal) prior(w *window, start int) {
	block := w.data[start:w.end]
	clear(o.counts[:])
	for _, c := range block {
		o.counts[c]++
	}
	o.literalCosts(block)
	for s := range o.cmdCost {
		o.cmdCost[s] = cmdPrior(s)
	}
	for s := range o.dstCost {
		o.dstCost[s] = dstPrior(s)
	}
	o.lengthCosts()
}

// literalCosts fills the prefix sums of the literals' costs, each by its
// frequency in o.counts. (Costs by the literal's context, as the trees
// code them, made the parse leave too many literals: Design, in the
// README.)
func (o *optimal) literalCosts(block []byte) {
	total := 0
	for _, n := range o.counts {
		total += int(n)
	}
	var cost [256]float64
	lt := math.Log2(float64(total) + 128)
	for c, n := range o.counts {
		cost[c] = lt - math.Log2(float64(n)+0.5)
	}
	if cap(o.lit) < len(block)+1 {
		o.lit = make([]float64, len(block)+1)
	}
	o.lit = o.lit[:len(block)+1]
	sum := 0.0
	o.lit[0] = 0
	for k, c := range block {
		sum += cost[c]
		o.lit[k+1] = sum
	}
}

// typeBlend is how many literals' worth the frequencies of all literals
// count for beside a type's own (typedLiteralCosts): over the corpus at
// 10, 64 and 1,024 came out 0.02% and 0.07% larger than 256.
const typeBlend = 256

// typedLiteralCosts fills the prefix sums of the literals' costs from the
// block types that the last pass's literals split into (splitLiterals):
// each literal by its frequency in its type, and each byte of a copy as
// the literal before it. The literal blocks' codes differ most where the
// content does (an embedded image, a table of numbers), and a global
// frequency prices literals there by the rest of the block.
func (o *optimal) typedLiteralCosts(e *encoder, block []byte) {
	e.splitLiterals(block, 0)
	b := &e.litSplit
	if b.ntypes < 2 {
		o.literalCosts(block)
		return
	}
	var cost [maxTrees][256]float64
	for t := range b.ntypes {
		h := b.cl.clHist[t*256 : (t+1)*256]
		// Blended with the frequencies of all the literals, so that a
		// byte its type has not seen costs about what it does elsewhere.
		lt := math.Log2(float64(b.cl.clTotal[t]) + typeBlend)
		for c, n := range h {
			g := float64(o.counts[c]+1) / float64(o.total+256)
			cost[t][c] = lt - math.Log2(float64(n)+typeBlend*g)
		}
	}
	if cap(o.lit) < len(block)+1 {
		o.lit = make([]float64, len(block)+1)
	}
	o.lit = o.lit[:len(block)+1]
	runs := b.runs
	left, t := runs[0].n, int(runs[0].typ)
	runs = runs[1:]
	sum := 0.0
	o.lit[0] = 0
	k := 0
	for _, c := range e.cmds {
		for _, x := range block[k : k+int(c.insert)] {
			if left == 0 {
				left, t = runs[0].n, int(runs[0].typ)
				runs = runs[1:]
			}
			left--
			sum += cost[t][x]
			k++
			o.lit[k] = sum
		}
		for _, x := range block[k : k+int(c.copy)] {
			sum += cost[t][x]
			k++
			o.lit[k] = sum
		}
	}
}

// priorWeight is how many symbols' worth the first pass's guess counts
// for beside a pass's own counts: a meta-block with few commands (most of
// it literals) would otherwise make every symbol it did not use look
// almost free to the next pass, which then fills it with short copies.
const priorWeight = 64

// learnCosts sets cost from counts blended with the probabilities that
// the guessed costs prior imply.
func learnCosts(cost []float64, counts []uint32, prior func(int) float64) {
	total := 0
	for _, n := range counts {
		total += int(n)
	}
	norm := 0.0
	for s := range counts {
		norm += math.Exp2(-prior(s))
	}
	for s, n := range counts {
		p := (float64(n) + priorWeight*math.Exp2(-prior(s))/norm) / float64(total+priorWeight)
		cost[s] = -math.Log2(p)
	}
}

// cmdPrior and dstPrior are the first pass's guesses of a symbol's bits.
func cmdPrior(s int) float64 { return math.Log2(float64(11 + s)) }
func dstPrior(s int) float64 { return math.Log2(float64(20 + s)) }

// learn sets the costs of the next pass from the commands of the last.
func (o *optimal) learn(e *encoder, w *window, start int) {
	clear(o.counts[:])
	clear(o.cmdHist[:])
	clear(o.dstHist[:])
	o.total = 0
	z := e.symbolizer()
	z.cmdHist, z.distHist = &o.cmdHist, &o.dstHist
	block := w.data[start:w.end]
	p := 0
	for _, c := range e.cmds {
		for _, b := range block[p : p+int(c.insert)] {
			o.counts[b]++
		}
		o.total += int(c.insert)
		p += int(c.insert + c.copy)
		if c.copy == 0 {
			z.tail(c.insert)
			continue
		}
		z.command(c.insert, c.copy, uint32(int8(c.cut)), c.dist, c.dict)
	}
	if e.q.typedCosts {
		o.typedLiteralCosts(e, block)
	} else {
		o.literalCosts(block)
	}
	learnCosts(o.cmdCost[:], o.cmdHist[:], cmdPrior)
	learnCosts(o.dstCost[:e.dist.alphabet()], o.dstHist[:e.dist.alphabet()], dstPrior)
	o.lengthCosts()
}

// lengthCosts fills copyCost and lastCost from the symbol costs.
func (o *optimal) lengthCosts() {
	for ic := range 24 {
		for cc := range 24 {
			c := float64(cpExtra[cc]) + o.cmdCost[cmdSymbols[0][ic][cc]]
			o.copyCost[ic][cc] = c
			o.lastCost[ic][cc] = c + o.dstCost[0]
			if ic < 8 && cc < 16 {
				o.lastCost[ic][cc] = float64(cpExtra[cc]) + o.cmdCost[cmdSymbols[1][ic][cc]]
			}
		}
	}
}

// ringDistances fills out with the distances that the 16 short codes
// mean with ring r, 0 where r lacks the entry: the ring itself, then
// its first two distances less and more 1, 2 and 3. The parse refills a
// start's 16 at nearly every position it reaches, so the codes are
// spelled out here rather than derived from the code's number (which
// took 100 instructions a start, 6% of quality 11's on the 95 KB JSON).
func ringDistances(r *[4]uint32, out *[16]uint32) {
	*(*[4]uint32)(out[:4]) = *r
	for b := range 2 {
		d := out[4+6*b : 10+6*b : 10+6*b]
		base := r[b]
		if base == 0 {
			clear(d)
			continue
		}
		// Below 1 a distance wraps to a huge one: out of reach.
		d[0], d[1] = base-1, base+1
		d[2], d[3] = base-2, base+2
		d[4], d[5] = base-3, base+3
	}
}

// parse chooses the commands of data[start:w.end] that cost the fewest
// bits under the current costs, into e.cmds.
func (o *optimal) parse(e *encoder, w *window, start, starts int) {
	data := w.data
	n := w.end - start
	if cap(o.nodes) < n+1 {
		o.nodes = make([]optNode, n+1)
		o.reached = make([]float64, n+1)
	}
	nodes, reached := o.nodes[:n+1], o.reached[:n+1]
	for k := range reached {
		reached[k] = math.Inf(1)
	}
	nodes[0], reached[0] = optNode{}, 0
	o.starts = o.starts[:0]
	clear(o.rings[:]) // (the rings of the pass before)
	lit := o.lit
	plain := e.dist == distParams{}
	limit := n - 8
	nice := e.q.niceLen
	skipTo := 0
	for p := 0; p <= n; p++ {
		if p < skipTo {
			continue
		}
		if c := reached[p]; !math.IsInf(c, 1) {
			o.addStart(e, nodes, p, c-lit[p], starts)
		}
		if p > limit {
			continue
		}
		i := start + p
		abs := w.base + uint32(i)
		reach := min(abs-w.streamA, e.maxDist)
		maxLen := n - p
		ms := o.matches[o.first[p]:o.first[p+1]]
		x16 := load16(data, i)
		longest := 0
		for k := range o.starts {
			st := &o.starts[k]
			ins := uint32(p - st.pos)
			ip := insLength(ins)
			ic := uint8(ip)
			base := reached[st.pos] + lit[p] - lit[st.pos] + float64(uint8(ip>>8))
			// The ring's distances, each for the lengths the ones before
			// it did not reach.
			// Most entries match no 2 bytes here: a loop without calls
			// tests them all first (with a call in it, its values went to
			// the stack and back at every entry), and the costs are left
			// to the entries that match.
			hits := ringHits(data, i, reach, x16, &st.dists)
			best := 1
			for ; hits != 0; hits &= hits - 1 {
				j := bits.TrailingZeros32(hits)
				d := st.dists[j&15]
				costs, dc := &o.copyCost[ic], base+o.dstCost[j]
				if j == 0 {
					costs, dc = &o.lastCost[ic], base
				}
				l := matchLen(data, i-int(d), i, maxLen)
				if best < l {
					relax(reached, nodes, p, best+1, l, 0, dc, costs, optNode{insert: ins, dist: d})
					best = l
				}
				if best >= maxLen {
					break
				}
			}
			longest = max(longest, best)
			if k >= 2 {
				continue // more starts pay for ring distances only
			}
			l := uint32(2)
			for _, m := range ms {
				var ds uint16
				var db uint8
				if plain {
					ds, db, _ = plainDistCode(m.dist)
				} else {
					ds, db, _ = e.dist.code(m.dist)
				}
				dc := base + float64(db) + o.dstCost[ds]
				if m.dict || m.len > uint32(nice) {
					l = m.len // a word has one length; a long copy is taken whole
				}
				if l <= m.len {
					relax(reached, nodes, p, int(l), int(m.len), int(int8(m.cut)), dc, &o.copyCost[ic], optNode{insert: ins, dist: m.dist, cut: m.cut, dict: m.dict})
					l = m.len + 1
				}
				longest = max(longest, int(m.len))
			}
		}
		if longest > nice {
			skipTo = p + longest
		}
	}
	// The cheapest start of the literals that end the meta-block.
	s := o.starts[0].pos
	e.cmds = e.cmds[:0]
	if s < n {
		e.cmds = append(e.cmds, command{insert: uint32(n - s)})
	}
	for p := s; p > 0; {
		nd := &nodes[p]
		e.cmds = append(e.cmds, command{insert: nd.insert, copy: nd.copy, dist: nd.dist, cut: nd.cut, dict: nd.dict})
		p -= int(nd.insert + nd.copy)
	}
	for a, b := 0, len(e.cmds)-1; a < b; a, b = a+1, b-1 {
		e.cmds[a], e.cmds[b] = e.cmds[b], e.cmds[a]
	}
}

// relax lowers reached[p+l], for each copy length l from lo to hi, to
// dc plus what costs asks for the code of the length l+cut (the length a
// dictionary reference codes), and then sets nodes[p+l] to nd with that
// copy length. It is the parse's innermost loop: the codes come from a
// table of bytes, and both slices are cut to the run first, so that a
// length costs a load, an add and a compare and no bound is checked.
func relax(reached []float64, nodes []optNode, p, lo, hi, cut int, dc float64, costs *[32]float64, nd optNode) {
	if hi+cut >= len(copyCodes) {
		// The lengths whose code is the last, 23 (2,118 bytes and more),
		// at one cost.
		from := max(lo, len(copyCodes)-cut)
		c := dc + costs[23]
		for l := from; l <= hi; l++ {
			if c < reached[p+l] {
				reached[p+l] = c
				nd.copy = uint32(l)
				nodes[p+l] = nd
			}
		}
		hi = from - 1
		if lo > hi {
			return
		}
	}
	codes := copyCodes[lo+cut : hi+cut+1]
	rs := reached[p+lo : p+hi+1]
	rs = rs[:len(codes)]
	cs := costs[:]
	for k, cc := range codes {
		if c := dc + cs[cc&31]; c < rs[k] {
			rs[k] = c
			nd.copy = uint32(lo + k)
			nodes[p+lo+k] = nd
		}
	}
}

// copyCodes[n] is the code of a copy of n bytes for n below 2,118, from
// which every length has code 23.
var copyCodes = func() (t [2118]uint8) {
	for n := 2; n < len(t); n++ {
		t[n] = copyCodeOf(uint32(n))
	}
	return t
}()

// ringHits has bit j set for each distance ds[j] within reach whose 2
// bytes before data[i] are x16, data[i:i+2]. ds is a start's 16 short
// codes (ringDistances): the ring, then its first two distances b less
// and more 1, 2 and 3, whose 7 distances b-3..b+3 take their 2 bytes
// from the 8 at data[i-b-3:]; one load and a few word operations test
// them all (nearHits). It is a function of its own, and not inlined, so
// that it keeps its values in registers: inlined in the parse's loop,
// which calls relax and matchLen, they went to the stack and back at
// every entry.
//
//go:noinline
func ringHits(data []byte, i int, reach uint32, x16 uint16, ds *[16]uint32) uint32 {
	hits := uint32(0)
	// x16's bytes in every byte, for nearHits: once a call, where the
	// compiler made them again for each ring entry.
	const ones = 0x0101010101010101
	lo, hi := uint64(x16&255)*ones, uint64(x16>>8)*ones
	for j := range 4 {
		d := ds[j]
		if j < 2 && d >= 4 && d+3 <= reach && d+3 <= uint32(i) {
			// Every distance of the group is in reach, and the 8 bytes
			// lie in data.
			g := nearHits(load64(data, i-int(d)-3), lo, hi)
			hits |= uint32(ringNear[j][g])
			continue
		}
		if d-1 < reach && load16(data, i-int(d)) == x16 {
			hits |= 1 << j
		}
		if j < 2 {
			for k := 4 + 6*j; k < 10+6*j; k++ {
				// d-1 wraps for d == 0: no such entry.
				if d := ds[k]; d-1 < reach && load16(data, i-int(d)) == x16 {
					hits |= 1 << k
				}
			}
		}
	}
	return hits
}

// nearHits has bit o set (o from 0 to 6) where bytes o and o+1 of y,
// little-endian, are lo's and hi's byte (each in all eight bytes).
func nearHits(y, lo, hi uint64) uint8 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	zero := func(v uint64) uint64 { // 0x80 in each byte of v that is 0
		return ^((v&low7 + low7) | v | low7)
	}
	m := zero(y^lo) & (zero(y^hi) >> 8)
	// The top bits of bytes 0..6 gathered into bits 0..6.
	return uint8((m & 0x0080808080808080) * 0x0002040810204081 >> 56)
}

// ringNear[b][g] are the bits of ringHits for the near distances of
// ring entry b (0 or 1) whose 2 bytes nearHits found (g): the 2 bytes at
// bit o of g are the distance b+3-o back.
var ringNear = func() (t [2][128]uint16) {
	for b := range 2 {
		// The codes of the distances b+3, b+2, ..., b-3: ringDistances'
		// order is b (code b), then b-1, b+1, b-2, b+2, b-3, b+3.
		at := [7]int{9, 7, 5, 0, 4, 6, 8}
		for g := range 128 {
			for o, j := range at {
				if g>>o&1 != 0 {
					if j != 0 {
						j += 6 * b
					} else {
						j = b
					}
					t[b][g] |= 1 << j
				}
			}
		}
	}
	return t
}()

// addStart offers position p, reached at cost key (less its literals'
// costs), as a start of literals; o.starts keeps the best starts in
// order.
func (o *optimal) addStart(e *encoder, nodes []optNode, p int, key float64, starts int) {
	k := len(o.starts)
	if k == starts {
		if key >= o.starts[k-1].key {
			return
		}
		k--
	} else {
		o.starts = append(o.starts, optStart{})
	}
	for k > 0 && o.starts[k-1].key > key {
		o.starts[k] = o.starts[k-1]
		k--
	}
	st := &o.starts[k]
	st.pos, st.key = p, key
	ring := o.ringAt(e, nodes, p)
	o.rings[p&(len(o.rings)-1)] = ringEntry{uint32(p) + 1, ring}
	ringDistances(&ring, &st.dists)
}

// ringAt is the decoder's ring of distances after the commands that reach
// position p: the distances of the commands back from p, each once per
// run of equal ones (a repeated last distance is not pushed), then the
// ring the meta-block started with. Entries the encoder cannot know are
// 0.
//
// The command that reaches p began its literals at a start, whose ring
// o.rings keeps unless a start 1,024 or more bytes later took its slot:
// p's ring is that one with the command's distance pushed, where walking
// the commands back took 19 nodes a start on the 95 KB JSON at 11.
func (o *optimal) ringAt(e *encoder, nodes []optNode, p int) (r [4]uint32) {
	if p > 0 {
		nd := &nodes[p]
		from := p - int(nd.insert+nd.copy)
		if c := &o.rings[from&(len(o.rings)-1)]; c.at == uint32(from)+1 {
			r = c.ring
			if !nd.dict && nd.dist != r[0] {
				r = [4]uint32{nd.dist, r[0], r[1], r[2]}
			}
			return r
		}
	}
	return ringWalk(e, nodes, p)
}

// ringWalk is ringAt found by walking the commands back from p.
func ringWalk(e *encoder, nodes []optNode, p int) (r [4]uint32) {
	k := 0
	last := uint32(0)
	for p > 0 && k < 4 {
		nd := &nodes[p]
		if !nd.dict && nd.dist != last {
			r[k], last = nd.dist, nd.dist
			k++
		}
		p -= int(nd.insert + nd.copy)
	}
	for j := 0; j < e.ring.known && k < 4; j++ {
		if d := e.ring.d[j]; d != last {
			r[k], last = d, d
			k++
		}
	}
	return r
}

// greedy fills e.cmds with a quick parse of the stored matches: the
// longest at each position, unless the next position has one longer by
// two bytes or more.
func (o *optimal) greedy(e *encoder, n int) {
	e.cmds = e.cmds[:0]
	lit := 0
	for p := 0; p < n; {
		ms := o.matches[o.first[p]:o.first[p+1]]
		if len(ms) == 0 || ms[len(ms)-1].len < minMatch {
			p++
			continue
		}
		m := ms[len(ms)-1]
		if p+1 < n {
			if next := o.matches[o.first[p+1]:o.first[p+2]]; len(next) > 0 && next[len(next)-1].len > m.len+1 {
				p++
				continue
			}
		}
		e.cmds = append(e.cmds, command{insert: uint32(p - lit), copy: m.len, dist: m.dist, cut: m.cut, dict: m.dict})
		p += int(m.len)
		lit = p
	}
	if lit < n {
		e.cmds = append(e.cmds, command{insert: uint32(n - lit)})
	}
}
