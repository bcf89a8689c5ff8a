package brotli

import (
	"encoding/binary"
	"slices"
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
	hashLeft  uint // 64 - 8*hashed bytes
	hashShift uint // 64 - log2(buckets)
	waysLog   uint
	// next is the absolute position the next stream starts at. Positions
	// only grow, so table entries of earlier streams fall below the new
	// stream's start and need no clearing between streams.
	next uint32

	cmds []command
	ring distRing
	bw   bitWriter
	hs   huffScratch

	litHist  [256]uint32
	cmdHist  [maxAlphabet]uint32
	distHist [maxDistAlphabet]uint32
	litLens  [256]uint8
	litCodes [256]uint32
	cmdLens  [maxAlphabet]uint8
	cmdCodes [maxAlphabet]uint32
	dLens    [maxDistAlphabet]uint8
	dCodes   [maxDistAlphabet]uint32
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
	last := uint32(0)
	if e.ring.known > 0 {
		last = e.ring.d[0]
	}
	// Room for a command per 8 bytes, so that the list rarely grows inside
	// the match finder's loop.
	if n := w.end - start; cap(e.cmds) < n/8+2 {
		e.cmds = make([]command, 0, n/8+2)
	}
	e.findMatches(w, start, last)
	extraBits := e.symbolize()

	mark := e.bw.mark()
	n := w.end - start
	e.writeLength(n, false)
	bw := &e.bw
	bw.writeBits(3, 0) // one block type each for literals, commands, distances
	bw.writeBits(2, uint64(e.dist.postfix))
	bw.writeBits(4, uint64(e.dist.direct>>e.dist.postfix))
	bw.writeBits(2, e.cmode)
	bw.writeBits(2, 0) // one literal tree, one distance tree
	body := extraBits +
		e.hs.storeCode(bw, e.litHist[:], &e.lit, 8) +
		e.hs.storeCode(bw, e.cmdHist[:], &e.cmd, 10) +
		e.hs.storeCode(bw, e.distHist[:e.dist.alphabet()], &e.dst, e.dist.alphabetBits())
	if bw.bits()-mark.n*8-int(mark.nacc)+body > 8*n+32 {
		bw.rollback(mark)
		e.ring = saved
		e.storeUncompressed(w.data[start:w.end])
		return
	}
	e.writeCommands(w.data[start:w.end], body)
}

// symbolize chooses each command's symbols and extra bits, updating the
// distance ring as the decoder will, and counts the symbols. It returns
// the extra bits of all commands. A pass of its own rather than work
// inside the match finder: the finder's loop stays small, and this loop
// keeps its state in locals.
func (e *encoder) symbolize() int {
	cmds := e.cmds
	cmdHist, distHist := &e.cmdHist, &e.distHist
	ring := e.ring
	dp := e.dist
	plain := dp == distParams{}
	extraBits := 0
	for k := range cmds {
		c := &cmds[k]
		ip := insLength(c.insert)
		ic, ni, iv := uint8(ip), uint8(ip>>8), ip>>16
		if c.copy == 0 {
			// The decoder reads neither a copy nor a distance.
			sym := cmdSymbols[1][ic][0]
			c.cmdSym, c.distSym = sym, noDist
			c.extra, c.extraBits = iv, ni
			cmdHist[sym]++
			extraBits += int(ni)
			continue
		}
		cp := copyLength(c.copy)
		cc := uint8(cp)
		nb := ni + uint8(cp>>8)
		c.extra = iv | cp>>16<<(ni&63)
		c.extraBits = nb
		extraBits += int(nb)
		d := c.dist
		sc := 0
		// The usual case, a distance the ring cannot express, with a
		// known ring: six comparisons instead of a call.
		if d != ring.d[0] || ring.known == 0 {
			if ring.known == 4 && d != ring.d[1] && d != ring.d[2] && d != ring.d[3] &&
				d-ring.d[0]+3 >= 7 && d-ring.d[1]+3 >= 7 {
				sc = -1
			} else {
				sc = ring.short(d)
			}
		}
		syms := &cmdSymbols[0][ic]
		if sc == 0 && ic < 8 && cc < 16 {
			syms = &cmdSymbols[1][ic]
			c.distSym = noDist
		} else {
			ds := uint16(sc)
			switch {
			case sc >= 0:
				c.distBits, c.distExtra = 0, 0
			case plain:
				ds, c.distBits, c.distExtra = plainDistCode(d)
			default:
				ds, c.distBits, c.distExtra = dp.code(d)
			}
			if sc != 0 {
				ring.push(d)
			}
			c.distSym = ds
			distHist[ds]++
			extraBits += int(c.distBits)
		}
		sym := syms[cc]
		c.cmdSym = sym
		cmdHist[sym]++
	}
	e.ring = ring
	return extraBits
}

// writeCommands writes the commands with the meta-block's codes; they take
// nbits bits. The bit accumulator lives in locals here, and the output has
// room for every bit before the loop starts, so each flush is one 8-byte
// store: this loop runs for every command and literal.
func (e *encoder) writeCommands(data []byte, nbits int) {
	cmds := e.cmds
	litCodes, cmdCodes, dCodes := &e.litCodes, &e.cmdCodes, &e.dCodes
	bw := &e.bw
	out := slices.Grow(bw.buf, nbits/8+16)
	pos := len(out)
	out = out[:cap(out)]
	acc, nacc := bw.acc, bw.nacc
	// flush moves the whole bytes of acc to out, leaving at most 7 bits,
	// so that up to 57 bits can follow before the next flush.
	flush := func() {
		binary.LittleEndian.PutUint64(out[pos:pos+8], acc)
		pos += int(nacc >> 3)
		acc >>= nacc &^ 7 & 63
		nacc &= 7
	}
	// put appends a packed code (code<<4 | length).
	put := func(v uint32) {
		acc |= uint64(v>>4) << (nacc & 63)
		nacc += uint(v & 15)
	}
	flush()
	p := 0
	for k := range cmds {
		c := &cmds[k]
		put(cmdCodes[c.cmdSym])
		if c.extraBits > 40 {
			flush()
		}
		acc |= c.extra << (nacc & 63)
		nacc += uint(c.extraBits)
		flush()
		// Three literals of at most 15 bits each fit after a flush.
		end := p + int(c.insert)
		for ; p+3 <= end; p += 3 {
			put(litCodes[data[p]])
			put(litCodes[data[p+1]])
			put(litCodes[data[p+2]])
			flush()
		}
		for ; p < end; p++ {
			put(litCodes[data[p]])
		}
		p += int(c.copy)
		if c.distSym != noDist {
			// Up to two literals are pending: flush only if the distance
			// might not fit (a 15-bit code and its extra bits).
			if nacc+uint(c.distBits) > 64-15 {
				flush()
			}
			put(dCodes[c.distSym])
			acc |= uint64(c.distExtra) << (nacc & 63)
			nacc += uint(c.distBits)
		}
		flush()
	}
	bw.buf = out[:pos]
	bw.acc, bw.nacc = acc, nacc
}
