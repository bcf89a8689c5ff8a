package brotli

import (
	"math"
	"math/bits"
)

// encoder is the state shared by the one-shot Encoder and the streaming
// Writer: the match finder's table, the commands of the meta-block being
// built, its histograms and codes, and the output bits.
type encoder struct {
	opts    Options
	q       quality
	lgwin   int
	maxDist uint32
	dist    distParams
	cmode   uint64 // literal context mode written for the literal block type

	table     []uint32
	heads     []uint16 // per bucket, where the next position goes (deep finder)
	hashLeft  uint     // 64 - 8*hashed bytes
	hashShift uint     // 64 - log2(buckets)
	// hashMulLeft is hashMul<<hashLeft, the deep finder's multiplier.
	hashMulLeft uint64
	waysLog     uint
	// next is the absolute position the next stream starts at. Positions
	// only grow, so table entries of earlier streams fall below the new
	// stream's start and need no clearing between streams.
	next uint32

	cmds []command
	// rawCmds is where cutRawCopies rebuilds cmds.
	rawCmds []command
	// raw indexes a raw dictionary for the finders of qualities 4-9.
	raw  rawIndex
	syms []cmdSyms // e.cmds' symbols, chosen by symbolize
	// probe is findFastIn's state for the assembly probe loop, here
	// rather than on findFastIn's stack, where it took a zeroing and moved
	// the [3]byte variant's registers, which do not use it.
	probe probeArgs

	ring distRing
	// The static dictionary's index (qualities with dictDepth), and the
	// searches of it made and the references found in this stream: when
	// fewer than one search in 64 finds one, the rest of the stream
	// searches no more.
	dict                  *dictIndex
	omit                  *omitFirstIndex // quality 11's (getOmitFirstIndex)
	dictSearches, dictHit uint32
	dictOn                bool // dictOpen, as of the last search
	bw                    bitWriter
	hs                    huffScratch

	litHist [256]uint32
	cmdHist [maxAlphabet]uint32
	// cmdUsed marks the symbols cmdHist counts (bit s%64 of word s/64)
	// for storeCodeOf, where codeMetaBlock gathers them.
	cmdUsed [maxAlphabet / 64]uint64
	// cmdZero says cmdHist is all zero: a fast meta-block cleared the
	// words of counts it used (codeMetaBlock), so the next need not
	// clear all 704.
	cmdZero   bool
	distHist  [maxDistAlphabet]uint32
	trialDist [maxDistAlphabet]uint32 // chooseDistParams's counts
	litLens   [256]uint8
	litCodes  [256]uint32
	cmdLens   [maxAlphabet]uint8
	cmdCodes  [maxAlphabet]uint32
	dLens     [maxDistAlphabet]uint8
	dCodes    [maxDistAlphabet]uint32
	lit       prefixCode
	cmd       prefixCode
	dst       prefixCode
	ctx       ctxState // literal context modeling (qualities 5 and up)
	// Scratch for writing context maps.
	mapVals  [64 * maxTrees]uint8
	mapSyms  [64 * maxTrees]uint16
	mapExtra [64 * maxTrees]uint32
	// Block splitting of commands and distances (qualities 5 and up), with
	// a code per block type.
	cmdSplit  blockSplit
	distSplit blockSplit
	litSplit  blockSplit // qualities 10 and up
	seq       []uint16
	// The distance trees: dmap gives the tree of each block type and
	// distance context (type*4+context), dtrees counts them and dhist
	// holds their counts. From quality 10 the contexts of all types are
	// clustered (dcl); below, type t's contexts all take tree t.
	dmap      [4 * maxTrees]uint8
	dtrees    int
	dhist     []uint32
	dcl       clusterer
	cmdLensT  [maxTrees * maxAlphabet]uint8
	cmdCodesT [maxTrees * maxAlphabet]uint32
	// The distance trees' codes, dtrees × the alphabet, grown as needed:
	// at 10-11 NPOSTFIX 3 makes an alphabet of 400 (26 KB of arrays every
	// encoder would carry).
	dLensT  []uint8
	dCodesT []uint32
	// The optimal parser's tree and scratch (qualities 10 and up).
	tree btree
	opt  *optimal
}

// maxDistAlphabet is the largest distance alphabet this encoder uses:
// NPOSTFIX 3 without direct codes (chooseDistParams; font mode's 1 and
// 12 need fewer).
const maxDistAlphabet = numShortCodes + 48<<maxPostfix

// maxPostfix is the largest NPOSTFIX (RFC 7932 section 9.2).
const maxPostfix = 3

// positionLimit bounds absolute positions; past it the table is cleared
// and positions start again, with the next claim, more than a window after
// 0 (the emptied slots).
const positionLimit = 1 << 31

// setup prepares e for a stream or segment of about sizeHint bytes (0 if
// unknown) with window lgwin, whose ring of distances is known (stream
// start) or not (a segment after the first).
func (e *encoder) setup(opts Options, lgwin, sizeHint int, ringKnown bool) {
	e.opts = opts
	e.q = qualities[opts.Quality]
	for _, cl := range []*clusterer{&e.ctx.cl, &e.dcl, &e.cmdSplit.cl, &e.distSplit.cl, &e.litSplit.cl} {
		cl.lookahead = e.q.lookahead
	}
	e.lgwin = lgwin
	e.maxDist = 1<<lgwin - 16
	wide := e.dist.alphabet()
	e.dist = distParams{}
	e.cmode = 0 // LSB6
	switch opts.Mode {
	case ModeText:
		e.cmode = 2 // UTF8
	case ModeFont:
		e.dist = distParams{postfix: 1, direct: 12}
		e.cmode = 3 // signed
	}
	// metaBlock clears the distance counts of the current alphabet only:
	// those past it are kept zero, here when a stream's alphabet is
	// narrower than the last one's.
	if a := e.dist.alphabet(); a < wide {
		clear(e.distHist[a:wide])
	}
	e.ctx.lut = &utf8Lut
	if e.q.deep && opts.Mode != ModeFont {
		e.cmode = 2 // the literal trees follow UTF-8 contexts
	} else if opts.Mode == ModeFont {
		e.ctx.lut = &signedLut
	}
	hb := e.q.hashBits
	if sizeHint > 0 {
		// About two buckets per byte; deep buckets hold many positions, so
		// a bucket per 16 bytes does (a smaller table misses the cache less).
		spare := uint(0)
		if e.q.deep && !e.q.optimal {
			spare = 4
			// Up to 128 KiB, 5-9 scan half the ways in buckets for 8
			// bytes each: jquery and the 95 KB JSON lose 0.15-0.4% of
			// their size at 6-9 for 6-9% of the time, 0.7-0.8% at 5 for
			// 8% of it, where the larger corpus files would lose 1.9-3.3%
			// at 6. A quarter at 6 was 10% faster again on those two
			// files, but 1.5-2% larger than Google's output on other text
			// of that size (brotli README, "Beyond the corpus").
			if sizeHint <= 128<<10 {
				e.q.ways /= 2
				spare = 3
			}
		}
		for hb > 8 && 1<<(hb-1+spare) >= sizeHint {
			hb--
		}
	}
	if e.q.deep && sizeHint >= 1<<20 {
		// Long bodies have more chance matches of 4 bytes far back, which
		// cost more than they save: hash 5 bytes, into at least 2^15
		// buckets, as Google's encoder does.
		e.q.hashLen = 5
		hb = max(hb, 15)
	}
	e.hashLeft = 64 - 8*e.q.hashLen
	e.hashShift = 64 - hb
	e.hashMulLeft = hashMul << (e.hashLeft & 63)
	e.waysLog = 0
	for 1<<e.waysLog < e.q.ways {
		e.waysLog++
	}
	if e.q.lazyWays <= 0 || e.q.lazyWays > e.q.ways {
		// searchDeep takes the depth of its lazy searches as it is.
		e.q.lazyWays = e.q.ways
	}
	if e.q.optimal {
		e.setupTree(hb, sizeHint)
		if e.opt == nil {
			e.opt = new(optimal)
		}
	}
	n := e.q.ways << hb
	if cap(e.table) < n+maxWays {
		e.table = make([]uint32, n, n+maxWays)
		e.restart()
	}
	e.table = e.table[:n]
	if e.q.deep {
		if cap(e.heads) < 1<<hb {
			e.heads = make([]uint16, 1<<hb)
		}
		e.heads = e.heads[:1<<hb]
	}
	e.hs.floors = e.q.optimal
	e.ring.reset(ringKnown)
	e.dictSearches, e.dictHit = 0, 0
	if e.q.dictDepth > 0 && e.dict == nil {
		e.dict = getDictIndex()
	}
	if e.q.omitDepth > 0 && e.omit == nil {
		e.omit = getOmitFirstIndex()
	}
	e.lit = prefixCode{lens: e.litLens[:], codes: e.litCodes[:]}
	e.cmd = prefixCode{lens: e.cmdLens[:], codes: e.cmdCodes[:]}
	e.dst = prefixCode{lens: e.dLens[:e.dist.alphabet()], codes: e.dCodes[:e.dist.alphabet()]}
}

// restart empties the tables and numbers positions from 1 again: the
// next claim starts more than a window after that, where no emptied
// slot (0) is in reach.
func (e *encoder) restart() {
	clear(e.table[:cap(e.table)])
	clear(e.heads[:cap(e.heads)])
	clear(e.tree.roots)
	e.next = 1
}

// claim reserves n absolute positions for a stream and returns the first.
// A gap of more than the window is left before them, so that every
// position of an earlier stream is farther back than any valid distance:
// a match finder may then test a candidate by its distance alone.
func (e *encoder) claim(n int) uint32 {
	gap := uint64(e.maxDist) + 1
	if e.next == 0 || uint64(e.next)+gap+uint64(n) >= positionLimit {
		e.restart()
	}
	a := e.next + uint32(gap)
	e.next = a + uint32(n)
	return a
}

// writeWindow writes the stream header: the window size (RFC 7932 9.1).
func (e *encoder) writeWindow() {
	w := &e.bw
	switch lg := uint64(e.lgwin); {
	case lg == 16:
		w.writeBits(1, 0)
	case lg == 17:
		w.writeBits(7, 1)
	case lg > 17:
		w.writeBits(4, (lg-17)<<1|1)
	default:
		w.writeBits(7, (lg-8)<<4|1)
	}
}

// writeLength writes ISLAST=0, MNIBBLES and MLEN-1 for a meta-block of n
// bytes (1 <= n <= 1<<24), and ISUNCOMPRESSED.
func (e *encoder) writeLength(n int, uncompressed bool) {
	w := &e.bw
	v := uint64(n - 1)
	nib := uint(4)
	for v>>(4*nib) != 0 {
		nib++
	}
	w.writeBits(1, 0)
	w.writeBits(2, uint64(nib-4))
	w.writeBits(4*nib, v)
	if uncompressed {
		w.writeBits(1, 1)
	} else {
		w.writeBits(1, 0)
	}
}

// storeUncompressed writes data as an uncompressed meta-block.
func (e *encoder) storeUncompressed(data []byte) {
	e.writeLength(len(data), true)
	e.bw.align()
	e.bw.buf = append(e.bw.buf, data...)
}

// alignWithMetadata ends a flush: an empty metadata meta-block brings the
// stream to a byte boundary without adding output.
func (e *encoder) alignWithMetadata() {
	if e.bw.aligned() {
		e.bw.align()
		return
	}
	// ISLAST 0, MNIBBLES 11 (metadata), reserved 0, MSKIPBYTES 00.
	e.bw.writeBits(6, 0b000110)
	e.bw.align()
}

// writeLast ends the stream with an empty last meta-block.
func (e *encoder) writeLast() {
	e.bw.writeBits(2, 0b11) // ISLAST, ISLASTEMPTY
	e.bw.align()
}

// compress codes w.data[start:end] as meta-blocks of the quality's length.
func (e *encoder) compress(w *window, start, end int) {
	// Context modeling needs the two bytes before each literal. A segment
	// without them (no prefix) stores its first bytes as they are, so that
	// the rest of it can use context modeling from the start.
	if e.q.deep && w.unknownCtx && start < 2 && end-start >= minClusterLiterals {
		e.storeUncompressed(w.data[start:2])
		start = 2
	}
	for start < end {
		n := min(end-start, 1<<e.q.blockBits)
		w.end = start + n
		e.metaBlock(w, start)
		start += n
	}
}

// metaBlock codes w.data[start:w.end] as one compressed meta-block, or
// stores it when coding would not make it smaller.
func (e *encoder) metaBlock(w *window, start int) {
	clear(e.litHist[:])
	// A small body uses a few of the 704 command symbols: clearing all
	// their counts touched 44 cache lines a call where those few do
	// (brotli README, *Bytes touched a call*).
	if !e.cmdZero {
		clear(e.cmdHist[:])
	}
	e.cmdZero = false
	// Only the distance alphabet of the current parameters is counted and
	// read (64 symbols but in font mode and where chooseDistParams widens
	// it, which clears all 400 then): the counts past it are zero (setup).
	clear(e.distHist[:e.dist.alphabet()])
	// The ring to restore if the meta-block ends up stored.
	saved := e.ring
	e.syms = e.syms[:0]
	switch q := &e.q; {
	case q.fast:
		if q.copyTail == 5 {
			e.codeMetaBlock(w, start, findFast[[5]byte](e, w, start), saved)
		} else {
			e.codeMetaBlock(w, start, findFast[[2]byte](e, w, start), saved)
		}
	case q.lazyLoop:
		if q.ways == 2 {
			e.codeMetaBlock(w, start, findLazy[[2]uint32](e, w, start), saved)
		} else {
			e.codeMetaBlock(w, start, findLazy[[1]uint32](e, w, start), saved)
		}
	default:
		e.findMatches(w, start)
		e.cutRawCopies(w, start)
		e.codeMetaBlock(w, start, unsymbolized, saved)
	}
}

// unsymbolized tells codeMetaBlock that the commands' symbols are yet to
// be chosen (by symbolize); the finders of qualities 0-3 choose them as
// they go.
const unsymbolized = -1

// codeMetaBlock writes the commands e.cmds, which code
// w.data[start:w.end], as one compressed meta-block, or stores the bytes
// when coding would not make them smaller. extraBits is the commands'
// extra bits when their symbols are chosen, else unsymbolized; saved is
// the distance ring before the meta-block, which a stored one leaves as
// it was.
func (e *encoder) codeMetaBlock(w *window, start int, extraBits int, saved distRing) {
	trees := 0 // no context modeling, no block splitting
	if e.q.deep {
		trees = e.clusterLiterals(w, start)
	}
	if extraBits == unsymbolized {
		extraBits = e.symbolize()
		if e.q.distParams && e.opts.Mode != ModeFont && e.chooseDistParams() {
			// Again from the ring the meta-block started with (the
			// finders that leave the symbols to symbolize do not move
			// e.ring).
			clear(e.cmdHist[:])
			clear(e.distHist[:])
			e.ring = saved
			extraBits = e.symbolize()
		}
	}
	if e.q.deep {
		e.splitBlocks()
	}

	// Literal block types: one without context modeling (the state of a
	// stream at another quality may say more).
	ltypes := 1
	if trees > 0 {
		ltypes = e.ctx.ntypes
	}
	mark := e.bw.mark()
	n := w.end - start
	e.writeLength(n, false)
	bw := &e.bw
	body := extraBits
	if trees == 0 {
		bw.writeBits(3, 0) // one block type each for literals, commands, distances
	} else {
		if ltypes > 1 {
			body += e.litSplit.writeHeader(e, bw)
		} else {
			bw.writeBits(1, 0) // one block type for literals
		}
		body += e.cmdSplit.writeHeader(e, bw)
		body += e.distSplit.writeHeader(e, bw)
	}
	bw.writeBits(2, uint64(e.dist.postfix))
	bw.writeBits(4, uint64(e.dist.direct>>e.dist.postfix))
	bw.writeBits(2, e.cmode)
	for range ltypes - 1 {
		bw.writeBits(2, e.cmode)
	}
	if trees == 0 {
		bw.writeBits(1, 0) // one literal tree
		bw.writeBits(1, 0) // one distance tree
		// A meta-block of fewer commands than command symbols (a small
		// body's) finds its used symbols in its commands rather than in
		// all 704 counts: on the 2 KB JSON at quality 1 that took 4,500
		// of 150,000 instructions a call off. Marking them as the finder
		// counts them instead cost more on long bodies than the scan
		// (brotli README, *Quality 0 and 1's used command symbols*).
		var used []uint64
		if e.q.fast && len(e.syms) < maxAlphabet {
			used = e.cmdUsed[:]
			clear(used)
			for k := range e.syms {
				s := e.syms[k].cmd & 1023
				used[s>>6] |= 1 << (s & 63)
			}
		}
		body += e.hs.storeCode(bw, e.litHist[:], &e.lit, 8) +
			e.hs.storeCodeOf(bw, e.cmdHist[:], used, &e.cmd, 10) +
			e.hs.storeCode(bw, e.distHist[:e.dist.alphabet()], &e.dst, e.dist.alphabetBits())
		// The fast finders count a command symbol only with the command
		// (findFastIn), so used marks every count there is: the 64 counts
		// of a word with a mark are cleared, the rest are zero.
		for k, u := range used {
			if u != 0 {
				clear(e.cmdHist[k<<6 : k<<6+64])
			}
		}
		e.cmdZero = used != nil
	} else {
		c := &e.ctx
		e.writeContextMap(bw, c.cmap[:64*c.ntypes], trees)
		e.writeContextMap(bw, e.dmap[:4*e.distSplit.ntypes], e.dtrees)
		for t := range trees {
			pc := prefixCode{lens: c.lens[t*256 : t*256+256], codes: c.codes[t*256 : t*256+256]}
			body += e.hs.storeCode(bw, c.cl.clHist[t*256:t*256+256], &pc, 8)
		}
		for t := range e.cmdSplit.ntypes {
			o := t * maxAlphabet
			pc := prefixCode{lens: e.cmdLensT[o : o+maxAlphabet], codes: e.cmdCodesT[o : o+maxAlphabet]}
			body += e.hs.storeCode(bw, e.cmdSplit.cl.clHist[o:o+maxAlphabet], &pc, 10)
		}
		da := e.dist.alphabet()
		e.dLensT, e.dCodesT = grow(e.dLensT, e.dtrees*da), grow(e.dCodesT, e.dtrees*da)
		for t := range e.dtrees {
			o := t * da
			pc := prefixCode{lens: e.dLensT[o : o+da], codes: e.dCodesT[o : o+da]}
			body += e.hs.storeCode(bw, e.dhist[o:o+da], &pc, e.dist.alphabetBits())
		}
	}
	if bw.bits()-mark.n*8-int(mark.nacc)+body > 8*n+32 {
		bw.rollback(mark)
		e.ring = saved
		e.storeUncompressed(w.data[start:w.end])
		return
	}
	p1, p2 := byte(0), byte(0)
	if trees > 0 {
		p1, p2, _ = w.contextBytes(start)
	}
	if trees == 0 {
		e.writeFlat(w.data[start:w.end], body)
		return
	}
	e.writeCommands(w.data[start:w.end], body, p1, p2)
}

// minCmdChunk is the fewest symbols block splitting gives a histogram,
// minLitChunk for literals.
const (
	minCmdChunk = 128
	minLitChunk = 512
)

// refinement is how the quality refines a split whose switches cost
// switchCost bits.
func (e *encoder) refinement(switchCost float32) refinement {
	return refinement{rounds: e.q.refine, wide: e.q.wide, switchCost: switchCost}
}

// What a block switch is taken to cost, in bits, by kind of symbol
// (refineSplit).
const (
	litSwitchCost  = 20
	cmdSwitchCost  = 10
	distSwitchCost = 14
)

// splitBlocks plans the block types of the insert-and-copy symbols and of
// the distance symbols.
func (e *encoder) splitBlocks() {
	ndists := 0
	if e.q.refine == 0 {
		ndists = e.splitChunks()
	} else {
		// Both sequences in one pass: the command symbols, and after
		// them the distance symbols.
		n := len(e.syms)
		e.seq = grow(e.seq, 2*n)
		cmds, dists := e.seq[:n], e.seq[n:n]
		for k, s := range e.syms {
			cmds[k] = s.cmdSym()
			if ds := s.distSym(); ds != noDist {
				dists = append(dists, ds)
			}
		}
		e.cmdSplit.plan(cmds, maxAlphabet, minCmdChunk, e.q.cmdTypes, e.q.rounds, e.refinement(cmdSwitchCost))
		e.distSplit.plan(dists, e.dist.alphabet(), minCmdChunk, e.q.distTypes, e.q.rounds, e.refinement(distSwitchCost))
		ndists = len(dists)
	}
	nd := e.distSplit.ntypes
	if e.q.refine == 0 || ndists < minClusterDistances {
		// A distance tree per block type: the 4 contexts of type t use
		// tree t.
		for i := range e.dmap[:4*nd] {
			e.dmap[i] = uint8(i / 4)
		}
		e.dtrees, e.dhist = nd, e.distSplit.cl.clHist
		return
	}
	e.clusterDistances()
}

// splitChunks plans the splits of commands and distances at qualities
// 5-9, by chunks, as plan does from the two sequences of symbols, but
// without the sequences: building them and counting them took 0.28M of
// jquery's 21.1M instructions a call at 6. symbolize has counted the
// chunks of commands; the distances' are counted here from e.syms, by a
// loop whose values fit the registers (one loop for both kinds took more
// than the sequences). It returns the number of distance symbols, the
// sum of e.distHist, which sets their chunks.
func (e *encoder) splitChunks() int {
	syms := e.syms
	if len(syms) == 0 {
		e.cmdSplit.empty(maxAlphabet)
	} else {
		e.cmdSplit.group(len(syms), chunkLen(len(syms), minCmdChunk), e.q.cmdTypes, e.q.rounds)
	}
	da := e.dist.alphabet()
	nd := 0
	for _, v := range e.distHist[:da] {
		nd += int(v)
	}
	if nd == 0 {
		e.distSplit.empty(da)
		return 0
	}
	chunk, hist := e.distSplit.chunked(nd, da, minCmdChunk)
	row, left := 0, chunk // where the chunk's counts start, its distances to come
	for k := range syms {
		ds := syms[k].distSym()
		if ds == noDist {
			continue
		}
		if left == 0 {
			row, left = row+da, chunk
		}
		left--
		hist[row+int(ds)]++
	}
	e.distSplit.group(nd, chunk, e.q.distTypes, e.q.rounds)
	return nd
}

// minClusterDistances is the fewest distance symbols whose contexts are
// clustered (quality 10 and up); fewer take a tree per block type.
const minClusterDistances = 1024

// clusterDistances counts the distance symbols by block type and distance
// context and clusters the type-and-context pairs into trees.
func (e *encoder) clusterDistances() {
	da := e.dist.alphabet()
	nd := e.distSplit.ntypes
	hist := e.dcl.prepare(4*nd, da)
	runs := e.distSplit.runs
	left, base := ^uint32(0), 0
	if nd > 1 {
		left, runs = runs[0].n, runs[1:]
	}
	for _, s := range e.syms {
		ds := s.distSym()
		if ds == noDist {
			continue
		}
		if left == 0 {
			left, base = runs[0].n, int(runs[0].typ)*4
			runs = runs[1:]
		}
		left--
		hist[(base+int(distCtx[s.cmdSym()]))*da+int(ds)]++
	}
	// The map costs about 2 bits per pair and tree.
	e.dtrees = e.dcl.run(maxTrees, e.q.rounds, func(k int) float64 { return float64(2 * 4 * nd * bits.Len(uint(k))) })
	copy(e.dmap[:4*nd], e.dcl.assign)
	e.dhist = e.dcl.clHist
}

// A meta-block with fewer than minClusterLiterals literals codes them
// with one tree (on the corpus' 2 KB JSON more trees never paid for their
// descriptions, and choosing them took a tenth of the time); above, it
// tries a tree per minContextLiterals literals, up to q.maxTrees. At
// qualities with q.staticCtx one of minStaticLiterals or more takes the
// fixed map of contexts to trees instead (ctxState.static): below it the
// map's 16 codes cost more than they save (from 1,024 literals the small
// sample beyond the corpus came out 0.4% larger at 6, from 4,096 0.05%).
const (
	minClusterLiterals = 1024
	minContextLiterals = 256
	minStaticLiterals  = 8192
)

// clusterLiterals counts the meta-block's literals by context and groups
// the contexts into trees; it returns the number of trees.
func (e *encoder) clusterLiterals(w *window, start int) int {
	c := &e.ctx
	p1, p2, known := w.contextBytes(start)
	nlits := 0
	for k := range e.cmds {
		nlits += int(e.cmds[k].insert)
	}
	// Block types for literals only where their contexts are clustered.
	clustered := known && nlits >= minClusterLiterals
	var runs []blockRun
	if e.q.litTypes > 1 && clustered {
		e.splitLiterals(w.data, start)
		runs = e.litSplit.runs
	}
	limit := 1
	if clustered {
		limit = min(e.q.maxTrees, 1+nlits/minContextLiterals)
	}
	if e.q.staticCtx && clustered && nlits >= minStaticLiterals && c.lut == &utf8Lut && len(runs) == 0 {
		c.count(e.cmds, w.data, start, p1, p2, nil)
		if !c.static() {
			c.group(limit, e.q.rounds)
		}
		return c.ntrees
	}
	// Context histograms only for clustering; one tree takes the flat
	// counts (group says which it reads).
	if limit > 1 {
		c.count(e.cmds, w.data, start, p1, p2, runs)
	} else {
		c.countFlat(e.cmds, w.data, start)
	}
	c.group(limit, e.q.rounds)
	return c.ntrees
}

// splitLiterals plans the block types of the meta-block's literals, which
// start at data[start].
func (e *encoder) splitLiterals(data []byte, start int) {
	e.seq = e.seq[:0]
	p := start
	for k := range e.cmds {
		c := &e.cmds[k]
		for _, b := range data[p : p+int(c.insert)] {
			e.seq = append(e.seq, uint16(b))
		}
		p += int(c.insert) + int(c.copy)
	}
	e.litSplit.plan(e.seq, 256, minLitChunk, e.q.litTypes, e.q.rounds, e.refinement(litSwitchCost))
}

// contextBytes returns the two bytes before data[i] as the decoder sees
// them, and whether they are known: a stream starts after two zeros (a
// raw dictionary before it in data does not change them), but a segment
// does not know what comes before its prefix.
func (w *window) contextBytes(i int) (p1, p2 byte, known bool) {
	n := i // the stream's bytes before data[i] in data
	if w.rawEnd > w.base {
		n -= int(w.rawEnd - w.base)
	}
	if n >= 2 {
		return w.data[i-1], w.data[i-2], true
	}
	if n == 1 {
		p1 = w.data[i-1]
	}
	return p1, 0, !w.unknownCtx
}

// symbolize chooses each command's symbols and extra bits, updating the
// distance ring as the decoder will, and counts the symbols. It returns
// the extra bits of all commands. At qualities 5-9 the command symbols
// are counted by the chunks of splitChunks (which then groups them), not
// in e.cmdHist, which a meta-block with context modeling does not use:
// a count the loop makes anyway, where a pass over the symbols after it
// took 0.07M of jquery's 20.8M instructions a call at 6.
func (e *encoder) symbolize() int {
	cmds := e.cmds
	if cap(e.syms) < len(cmds) {
		e.syms = make([]cmdSyms, len(cmds), cap(cmds))
	}
	syms := e.syms[:len(cmds)]
	z := e.symbolizer()
	if e.q.deep && e.q.refine == 0 && len(cmds) > 0 {
		chunk, hist := e.cmdSplit.chunked(len(cmds), maxAlphabet, minCmdChunk)
		for i := range e.cmdSplit.cl.n {
			z.cmdHist = (*[maxAlphabet]uint32)(hist[i*maxAlphabet:])
			z.run(cmds[:min((i+1)*chunk, len(cmds))], syms, i*chunk)
		}
	} else {
		z.run(cmds, syms, 0)
	}
	e.syms = syms
	e.ring = z.ring
	return z.extraBits
}

// run chooses the symbols of cmds[k:] into syms[k:].
func (z *symbolizer) run(cmds []command, syms []cmdSyms, k int) {
	plain := z.plain
	for ; k < len(cmds); k++ {
		// The usual commands by a loop without calls; the others here.
		// The font mode's distance code has none: its commands would
		// each pay a call of usual for nothing (0.6% of jquery at 6).
		if plain {
			if k = z.usual(cmds, syms, k); k == len(cmds) {
				break
			}
		}
		c := &cmds[k]
		if c.copy == 0 {
			syms[k] = z.tail(c.insert)
			continue
		}
		syms[k] = z.command(c.insert, c.copy, uint32(int8(c.cut)), c.dist, c.dict)
	}
}

// usual chooses the symbols of cmds[k:] into syms[k:] as command does, up
// to the first command that is not a usual one, whose index it returns
// (len(cmds) if none). A usual command has short lengths (below 256), a
// distance that is the last one or not one the ring codes, with a known
// ring and the plain distance code, which the caller checks (z.plain).
// A loop that calls nothing, so that its values stay in registers: a call
// of command per command, with its arguments stored on entry and its
// result returned in registers, took about 150 instructions a command on
// jquery at quality 6.
func (z *symbolizer) usual(cmds []command, syms []cmdSyms, k int) int {
	if z.ring.known != 4 {
		return k
	}
	syms = syms[:len(cmds)]
	ring, hist, dhist := &z.ring.d, z.cmdHist, z.distHist
	extraBits := 0
	for ; k < len(cmds); k++ {
		c := &cmds[k]
		// n is 0 for the meta-block's tail, which is not a usual command.
		ins, n, d := c.insert, c.copy+uint32(int8(c.cut)), c.dist
		if ins >= uint32(len(insLens)) || n-2 >= uint32(len(copyLens)-2) {
			break
		}
		r0, r1 := ring[0], ring[1]
		ip, cp := insLens[uint8(ins)], copyLens[uint8(n)] // below 256: no bounds checks
		ic, cc := uint8(ip), uint8(cp)
		var sym uint16
		dist := uint64(noDist)
		if d == r0 {
			if ic < 8 && cc < 16 {
				sym = cmdSymbols[1][ic&31][cc&31]
			} else {
				sym = cmdSymbols[0][ic&31][cc&31]
				dist = 0
				dhist[0]++
			}
		} else if d != ring[2] && d != ring[3] && d-r0+3 >= 7 && d-r1+3 >= 7 {
			// (r1 itself fails the last test, as its neighbours do.)
			sym = cmdSymbols[0][ic&31][cc&31]
			ds, db, dx := plainDistCode(d)
			// RFC 7932 section 4: a static dictionary reference does
			// not enter the ring.
			if !c.dict {
				*ring = [4]uint32{d, r0, r1, ring[2]}
			}
			dist = uint64(ds) | uint64(db)<<16 | uint64(dx)<<24
			dhist[ds]++
			extraBits += int(db)
		} else {
			break
		}
		hist[sym]++
		ni := uint8(ip >> 8)
		nb := ni + uint8(cp>>8)
		extraBits += int(nb)
		syms[k] = cmdSyms{cmd: uint64(sym) | uint64(nb)<<10 | (ip>>16|cp>>16<<(ni&63))<<16, dist: dist, insert: ins, copied: c.copy}
	}
	z.extraBits += extraBits
	return k
}

// chooseDistParams (qualities 10-11) sets the meta-block's distance
// parameters, which its header carries, and reports whether they
// changed: the NPOSTFIX of 0-3 (no direct codes) that codes the
// distances of e.syms that the ring does not (which the parameters do
// not change) in the fewest bits by histBits, extra bits included. A
// postfix puts the low bits of a distance in its symbol, where the
// distances share them: base64 of binary data with 4-byte fields,
// tables of fixed-width records. The parse priced distances with the
// parameters of the meta-block before; Google's encoder chooses the same
// way, after its parse.
func (e *encoder) chooseDistParams() bool {
	best, bestBits := e.dist, math.Inf(1)
	for p := range uint(maxPostfix + 1) {
		d := distParams{postfix: p}
		h := e.trialDist[:d.alphabet()]
		clear(h)
		extra, total := 0, uint32(0)
		for k, sy := range e.syms {
			if sy.dist == noDist || sy.distSym() < numShortCodes {
				continue
			}
			ds, db, _ := d.code(e.cmds[k].dist)
			h[ds]++
			extra += int(db)
			total++
		}
		if total == 0 {
			// Nothing to code: the smallest alphabet, no symbol changes.
			best = distParams{}
			break
		}
		if b := histBits(h, total) + float64(extra); b < bestBits {
			best, bestBits = d, b
		}
	}
	// Without explicit distances (best is then NPOSTFIX 0) no symbol
	// changes.
	changed := best != e.dist && !math.IsInf(bestBits, 1)
	e.dist = best
	// setup sized the code of one distance tree for the stream's first
	// parameters.
	e.dst = prefixCode{lens: e.dLens[:best.alphabet()], codes: e.dCodes[:best.alphabet()]}
	return changed
}

// symbolizer chooses the symbols of a meta-block's commands in order,
// moving a copy of the decoder's distance ring as it goes and counting
// the symbols in the encoder's histograms.
type symbolizer struct {
	ring      distRing
	dist      distParams
	plain     bool // dist is distParams{}
	extraBits int  // of the commands so far
	cmdHist   *[maxAlphabet]uint32
	distHist  *[maxDistAlphabet]uint32
}

func (e *encoder) symbolizer() symbolizer {
	return symbolizer{ring: e.ring, dist: e.dist, plain: e.dist == distParams{},
		cmdHist: &e.cmdHist, distHist: &e.distHist}
}

// tail is the command of the literals that end a meta-block: no copy, no
// distance.
func (z *symbolizer) tail(insert uint32) cmdSyms {
	ip := insLength(insert)
	sym := cmdSymbols[1][uint8(ip)][0]
	z.cmdHist[sym]++
	z.extraBits += int(uint8(ip >> 8))
	return cmdSyms{cmd: uint64(sym) | ip>>8&255<<10 | ip>>16<<16, dist: noDist, insert: insert}
}

// command is the command that inserts insert literals and copies copied
// bytes from d back; a static dictionary reference (dict) codes the length
// of its word, copied+cut.
func (z *symbolizer) command(insert, copied, cut, d uint32, dict bool) cmdSyms {
	ip, cp := insLength(insert), copyLength(copied+cut)
	ic, ni, cc := uint8(ip), uint8(ip>>8), uint8(cp)
	nb := ni + uint8(cp>>8)
	extra := ip>>16 | cp>>16<<(ni&63)
	z.extraBits += int(nb)
	ring := &z.ring
	sc := 0
	// The usual case, a distance the ring cannot express, with a known
	// ring: six comparisons instead of a call.
	if d != ring.d[0] || ring.known == 0 {
		if ring.known == 4 && d != ring.d[1] && d != ring.d[2] && d != ring.d[3] &&
			d-ring.d[0]+3 >= 7 && d-ring.d[1]+3 >= 7 {
			sc = -1
		} else {
			sc = ring.short(d)
		}
	}
	table := &cmdSymbols[0][ic&31]
	dist := uint64(noDist)
	if sc == 0 && ic < 8 && cc < 16 {
		table = &cmdSymbols[1][ic&31]
	} else {
		ds, db, dx := uint16(sc), uint8(0), uint32(0)
		switch {
		case sc >= 0:
		case z.plain:
			ds, db, dx = plainDistCode(d)
		default:
			ds, db, dx = z.dist.code(d)
		}
		// RFC 7932 section 4: neither distance code 0 nor a static
		// dictionary reference enters the ring.
		if sc != 0 && !dict {
			ring.push(d)
		}
		dist = uint64(ds) | uint64(db)<<16 | uint64(dx)<<24
		z.distHist[ds]++
		z.extraBits += int(db)
	}
	sym := table[cc&31]
	z.cmdHist[sym]++
	return cmdSyms{cmd: uint64(sym) | uint64(nb)<<10 | extra<<16, dist: dist, insert: insert, copied: copied}
}

// writeCommands writes the commands of a meta-block with literal context
// modeling and block types (qualities 5 and up) with its codes; they take
// nbits bits. The bit accumulator lives in locals here, and the output has
// room for every bit before the loop starts, so each flush is one 8-byte
// store: this loop runs for every command and literal.
func (e *encoder) writeCommands(data []byte, nbits int, p1, p2 byte) {
	if e.cmdSplit.ntypes > 1 || e.distSplit.ntypes > 1 || e.ctx.ntypes > 1 || e.dtrees > 1 {
		writeCommandsIn[[1]byte](e, data, nbits, p1, p2)
		return
	}
	writeCommandsIn[[0]byte](e, data, nbits, p1, p2)
}

// writeCommandsIn is writeCommands compiled for meta-blocks with block
// switches or several distance trees ([1]byte) and for those with one
// block type of each kind and one distance tree ([0]byte), most of those
// of qualities 5-9: without the switches' counts and runs, the loop's
// values fit the registers (2% fewer instructions on jquery at 6).
func writeCommandsIn[S variant](e *encoder, data []byte, nbits int, p1, p2 byte) {
	var mode S
	split := len(mode) == 1
	syms := e.syms
	cmdCodes, dCodes := e.cmdCodesT[:], e.dCodesT
	// Literal trees by context, and block types for commands and
	// distances, each block announced before its first symbol (cmdLeft
	// and dLeft count down to it).
	ctxCodes, lut := &e.ctx.codes, e.ctx.lut
	_ = lut[0] // lut is not nil: the literal loop then tests it no more
	lookup := (*[64]uint16)(e.ctx.lookup[:64])
	cmdLeft, dLeft, litLeft := ^uint32(0), ^uint32(0), ^uint32(0)
	var cmdRuns, dRuns, litRuns []blockRun
	cmdOff, dBase := 0, 0
	dmap := &e.dmap
	da := e.dist.alphabet()
	if e.cmdSplit.ntypes > 1 {
		cmdRuns = e.cmdSplit.runs
		cmdLeft, cmdRuns = cmdRuns[0].n, cmdRuns[1:]
	}
	if e.distSplit.ntypes > 1 {
		dRuns = e.distSplit.runs
		dLeft, dRuns = dRuns[0].n, dRuns[1:]
	}
	if e.ctx.ntypes > 1 {
		litRuns = e.litSplit.runs
		litLeft, litRuns = litRuns[0].n, litRuns[1:]
	}
	bs := e.bw.sink(nbits)
	bs.flush()
	p := 0
	for k := range syms {
		s := &syms[k]
		if split && cmdLeft == 0 {
			r := &cmdRuns[0]
			cmdRuns = cmdRuns[1:]
			bs = bs.switchBlock(r)
			cmdLeft, cmdOff = r.n, int(r.typ)*maxAlphabet
		}
		cmdLeft--
		bs.put(cmdCodes[cmdOff+int(s.cmdSym())])
		if s.extraBits() > 40 {
			bs.flush()
		}
		bs.bits(s.extra(), s.extraBits())
		bs.flush()
		// Each literal's tree follows from the two bytes before it.
		for end := p + int(s.insert); p < end; p++ {
			if split && litLeft == 0 {
				r := &litRuns[0]
				litRuns = litRuns[1:]
				bs = bs.switchBlock(r)
				litLeft = r.n
				lookup = (*[64]uint16)(e.ctx.lookup[int(r.typ)*64:])
			}
			litLeft--
			b := data[p]
			// Masked indexes, which need no bounds checks: a context id
			// is below 64, a tree's offset below maxTrees*256.
			bs.put(ctxCodes[(lookup[(lut[0][p1]|lut[1][p2])&63]|uint16(b))&(maxTrees*256-1)])
			p2, p1 = p1, b
			if p&1 == 1 {
				bs.flush()
			}
		}
		if s.copied > 0 {
			p += int(s.copied)
			p2, p1 = data[p-2], data[p-1]
		}
		if s.distSym() != noDist {
			if split && dLeft == 0 {
				r := &dRuns[0]
				dRuns = dRuns[1:]
				bs = bs.switchBlock(r)
				dLeft, dBase = r.n, int(r.typ)*4
			}
			dLeft--
			// Up to two literals are pending: flush only if the distance
			// might not fit (a 15-bit code and its extra bits).
			if bs.nacc+s.distBits() > 64-15 {
				bs.flush()
			}
			dOff := 0
			if split {
				dOff = int(dmap[dBase+int(distCtx[s.cmdSym()])]) * da
			}
			bs.put(dCodes[dOff+int(s.distSym())])
			bs.bits(s.distExtra(), s.distBits())
		}
		bs.flush()
	}
	e.bw.done(&bs)
}
