package brotli

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
	hashLeft  uint // 64 - 8*hashed bytes
	hashShift uint // 64 - log2(buckets)
	waysLog   uint
	// next is the absolute position the next stream starts at. Positions
	// only grow, so table entries of earlier streams fall below the new
	// stream's start and need no clearing between streams.
	next uint32

	cmds      []command
	extraBits int // extra bits of the commands so far in the meta-block
	ring      distRing
	bw        bitWriter
	hs        huffScratch

	litHist  [256]uint32
	cmdHist  [maxAlphabet]uint32
	distHist [maxDistAlphabet]uint32
	litLens  [256]uint8
	litCodes [256]uint16
	cmdLens  [maxAlphabet]uint8
	cmdCodes [maxAlphabet]uint16
	dLens    [maxDistAlphabet]uint8
	dCodes   [maxDistAlphabet]uint16
	lit      prefixCode
	cmd      prefixCode
	dst      prefixCode
}

// maxDistAlphabet is the distance alphabet for the largest NPOSTFIX and
// NDIRECT this encoder uses (font mode: 1 and 12).
const maxDistAlphabet = 16 + 12 + 48<<1

// positionLimit bounds absolute positions; past it the table is cleared
// and positions start again at 1.
const positionLimit = 1 << 31

// setup prepares e for a stream or segment of about sizeHint bytes (0 if
// unknown) with window lgwin, whose ring of distances is known (stream
// start) or not (a segment after the first).
func (e *encoder) setup(opts Options, lgwin, sizeHint int, ringKnown bool) {
	e.opts = opts
	e.q = qualities[opts.Quality]
	e.lgwin = lgwin
	e.maxDist = 1<<lgwin - 16
	e.dist = distParams{}
	e.cmode = 0 // LSB6
	switch opts.Mode {
	case ModeText:
		e.cmode = 2 // UTF8
	case ModeFont:
		e.dist = distParams{postfix: 1, direct: 12}
		e.cmode = 3 // signed
	}
	hb := e.q.hashBits
	if sizeHint > 0 {
		for hb > 8 && 1<<(hb-1) >= sizeHint {
			hb--
		}
	}
	e.hashLeft = 64 - 8*e.q.hashLen
	e.hashShift = 64 - hb
	e.waysLog = 0
	for 1<<e.waysLog < e.q.ways {
		e.waysLog++
	}
	n := e.q.ways << hb
	if cap(e.table) < n {
		e.table = make([]uint32, n)
		e.next = 1
	}
	e.table = e.table[:n]
	e.ring.reset(ringKnown)
	e.lit = prefixCode{lens: e.litLens[:], codes: e.litCodes[:]}
	e.cmd = prefixCode{lens: e.cmdLens[:], codes: e.cmdCodes[:]}
	e.dst = prefixCode{lens: e.dLens[:e.dist.alphabet()], codes: e.dCodes[:e.dist.alphabet()]}
}

// claim reserves n absolute positions for a stream and returns the first.
func (e *encoder) claim(n int) uint32 {
	if e.next == 0 || uint64(e.next)+uint64(n) >= positionLimit {
		clear(e.table[:cap(e.table)])
		e.next = 1
	}
	a := e.next
	e.next += uint32(n)
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
	saved := e.ring
	e.cmds = e.cmds[:0]
	clear(e.litHist[:])
	clear(e.cmdHist[:])
	clear(e.distHist[:])
	e.extraBits = 0
	last := uint32(0)
	if e.ring.known > 0 {
		last = e.ring.d[0]
	}
	e.findMatches(w, start, last)
	extraBits := e.extraBits

	mark := e.bw.mark()
	n := w.end - start
	e.writeLength(n, false)
	bw := &e.bw
	bw.writeBits(3, 0) // one block type each for literals, commands, distances
	bw.writeBits(2, uint64(e.dist.postfix))
	bw.writeBits(4, uint64(e.dist.direct>>e.dist.postfix))
	bw.writeBits(2, e.cmode)
	bw.writeBits(2, 0) // one literal tree, one distance tree
	e.hs.storeCode(bw, e.litHist[:], &e.lit, 8)
	e.hs.storeCode(bw, e.cmdHist[:], &e.cmd, 10)
	e.hs.storeCode(bw, e.distHist[:e.dist.alphabet()], &e.dst, e.dist.alphabetBits())
	total := bw.bits() - mark.n*8 - int(mark.nacc) + extraBits +
		costBits(e.litHist[:], e.lit.lens) + costBits(e.cmdHist[:], e.cmd.lens) +
		costBits(e.distHist[:e.dist.alphabet()], e.dst.lens)
	if total > 8*n+32 {
		bw.rollback(mark)
		e.ring = saved
		e.storeUncompressed(w.data[start:w.end])
		return
	}
	e.writeCommands(w.data[start:w.end])
}

// addCommand records a command of insert literals from data[lit:], then
// a copy of copy bytes from dist back (copy 0: the meta-block ends in the
// literals). It picks the command's symbols as it goes, updating the
// distance ring as the decoder will, and counts them, so that the
// literals are counted while the match finder still has them in cache.
func (e *encoder) addCommand(data []byte, lit, insert, copy int, dist uint32) {
	lh := &e.litHist
	for _, b := range data[lit : lit+insert] {
		lh[b]++
	}
	c := command{insert: uint32(insert), copy: uint32(copy), distSym: noDist}
	ic := insCode(c.insert)
	cc := uint8(0)
	if copy == 0 {
		// The decoder reads neither a copy nor a distance.
		c.cmdSym = cmdSymbol(ic, 0, true)
	} else {
		cc = copyCode(c.copy)
		sc := e.ring.short(dist)
		if sc == 0 && ic < 8 && cc < 16 {
			c.cmdSym = cmdSymbol(ic, cc, true)
		} else {
			c.cmdSym = cmdSymbol(ic, cc, false)
			if sc >= 0 {
				c.distSym = uint16(sc)
			} else {
				c.distSym, c.distBits, c.distExtra = e.dist.code(dist)
			}
			if sc != 0 {
				e.ring.push(dist)
			}
			e.distHist[c.distSym]++
		}
	}
	ni, nc := insExtra[ic], cpExtra[cc]
	c.extraBits = ni + nc
	c.extra = uint64(c.insert - insBase[ic])
	if copy != 0 {
		c.extra |= uint64(c.copy-cpBase[cc]) << ni
	}
	e.cmdHist[c.cmdSym]++
	e.extraBits += int(c.extraBits) + int(c.distBits)
	e.cmds = append(e.cmds, c)
}

// writeCommands writes the commands with the meta-block's codes.
func (e *encoder) writeCommands(data []byte) {
	bw := &e.bw
	pos := 0
	for k := range e.cmds {
		c := &e.cmds[k]
		bw.writeBits(uint(e.cmd.lens[c.cmdSym]), uint64(e.cmd.codes[c.cmdSym]))
		if n := uint(c.extraBits); n > 32 {
			bw.writeBits(24, c.extra&(1<<24-1))
			bw.writeBits(n-24, c.extra>>24)
		} else if n != 0 {
			bw.writeBits(n, c.extra)
		}
		lits := data[pos : pos+int(c.insert)]
		// Two literals of at most 15 bits each fit one write.
		for len(lits) >= 2 {
			a, b := lits[0], lits[1]
			la := uint(e.litLens[a])
			bw.writeBits(la+uint(e.litLens[b]), uint64(e.litCodes[a])|uint64(e.litCodes[b])<<la)
			lits = lits[2:]
		}
		if len(lits) == 1 {
			bw.writeBits(uint(e.litLens[lits[0]]), uint64(e.litCodes[lits[0]]))
		}
		pos += int(c.insert + c.copy)
		if c.distSym != noDist {
			bw.writeBits(uint(e.dLens[c.distSym]), uint64(e.dCodes[c.distSym]))
			if c.distBits != 0 {
				bw.writeBits(uint(c.distBits), uint64(c.distExtra))
			}
		}
	}
}
