package zstdenc

import (
	"encoding/binary"
	"math/bits"
)

// minMatch is the shortest match the finder reports; its hash covers as
// many bytes.
const minMatch = 5

// matcher finds matches with hash chains: head holds the latest position
// (plus one) of each hash, chain the previous position of the same hash
// for each position, in a ring as long as the window, or the input if
// shorter. Positions are indices into Encoder.buf.
type matcher struct {
	// head's first 2^(maxHashLog-hashDrop) entries are the table in use.
	head      *[1 << maxHashLog]int32
	hashDrop  uint
	chain     []int32
	chainMask int
	window    int
	next      int // the first position not entered yet
}

// reset prepares the tables for a buffer whose input starts at start: the
// history before it within the window is entered as the search reaches
// it.
func (m *matcher) reset(e *Encoder, wlog, start int) {
	n := len(e.buf)
	m.window = 1 << wlog
	clog := min(wlog, max(10, bits.Len(uint(n-1))))
	if cap(m.chain) < 1<<clog {
		m.chain = make([]int32, 1<<clog)
	}
	m.chain = m.chain[:1<<clog]
	m.chainMask = 1<<clog - 1
	// 2^18 heads: on react-dom the same output as 2^20 (and as 2^19 within
	// 18 bytes), at a median 94 CPU ms against 108 (six rounds): a table
	// of a quarter the size misses the caches less.
	hlog := min(maxHashLog, max(12, bits.Len(uint(n))))
	if m.head == nil {
		m.head = new([1 << maxHashLog]int32)
	}
	clear(m.head[:1<<hlog])
	m.hashDrop = uint(maxHashLog - hlog)
	m.next = max(0, start-m.window)
}

const hashMul = 0xcf1bbcdcb7a56463

// maxHashLog bounds the table of chain heads: 2^18 entries (reset).
const maxHashLog = 18

// hashAt hashes the minMatch bytes at buf[i:] for a table of
// 2^(maxHashLog-drop) heads: the product's top bits, which every byte
// reaches (its low bits see only the first bytes: a table of 2^12 heads
// indexed by them hashed four bytes and two bits of the fifth). The
// constant shift bounds the index by maxHashLog bits, which head's array
// type lets the compiler see.
func hashAt(buf []byte, i int, drop uint) uint {
	return uint(((binary.LittleEndian.Uint64(buf[i:])<<(64-8*minMatch))*hashMul)>>(64-maxHashLog)) >> (drop & 31)
}

// insert enters positions up to p (excluded), never one whose hash would
// read past the buffer. The tables are held in locals: through m the loop
// reloaded them at every position (45 instructions a position, 48M of
// react-dom's 269M; now 33, 36M).
func (m *matcher) insert(buf []byte, p int) {
	p = min(p, len(buf)-8)
	if m.next >= p {
		return
	}
	head, chain, drop := m.head, m.chain, m.hashDrop
	for i := uint(m.next); i < uint(p); i++ {
		h := hashAt(buf, int(i), drop)
		chain[i&uint(len(chain)-1)] = head[h]
		head[h] = int32(i + 1)
	}
	m.next = p
}

// matchLen is how many bytes from a and b agree, at most n; a < b.
func matchLen(buf []byte, a, b, n int) int {
	l := 0
	for l+8 <= n {
		x := binary.LittleEndian.Uint64(buf[a+l:]) ^ binary.LittleEndian.Uint64(buf[b+l:])
		if x != 0 {
			return l + bits.TrailingZeros64(x)>>3
		}
		l += 8
	}
	for l < n && buf[a+l] == buf[b+l] {
		l++
	}
	return l
}

// search returns the longest match at p found in depth candidates, and
// its offset, of at most n bytes; a length below minMatch is none. The
// positions before p must be entered (insert).
func (m *matcher) search(buf []byte, p, n, depth int) (int, int) {
	if n < minMatch || p+8 > len(buf) {
		return 0, 0
	}
	chain := m.chain
	lowest := max(0, p-m.window, p-m.chainMask)
	best, off := minMatch-1, 0
	// A candidate longer than best agrees with p's bytes at best: one
	// byte rejects most.
	want := buf[p+best]
	cand := int(m.head[hashAt(buf, p, m.hashDrop)]) - 1
	for ; cand >= lowest && depth > 0; depth-- {
		if buf[cand+best] == want {
			if l := matchLen(buf, cand, p, n); l > best {
				best, off = l, p-cand
				if l == n {
					break
				}
				want = buf[p+best]
			}
		}
		cand = int(chain[uint(cand)&uint(len(chain)-1)]) - 1
	}
	if off == 0 {
		return 0, 0
	}
	return best, off
}

// lazyEnough is the match length from which parse takes a match without
// searching one and two bytes on for a better one. On react-dom those
// searches after matches of 16 bytes or more were 10% of the encoder's
// instructions for 0.17% of its output; after matches of 12 or more,
// 14% for 0.34%, which takes joined 256k segments over 1% of serial
// compression (README, *Speed*).
const lazyEnough = 16

// gain weighs a match for the lazy choice, as zstd's lazy strategies do:
// four per byte copied, less the offset's bit count.
func gain(l int, offBase uint32) int { return 4*l - int(highBit(offBase)) }

// parse covers buf[bs:be] with sequences and literals, appended to lits
// and seqs, updating e.rep as the decoder will.
func (m *matcher) parse(e *Encoder, bs, be int, lits []byte, seqs []seq) ([]byte, []seq) {
	buf := e.buf
	anchor := bs
	lowest := max(0, bs-m.window)
	for p := bs; p < be; {
		l, off := m.best(e, p, be, anchor)
		if l == 0 {
			p += 1 + (p-anchor)>>8
			continue
		}
		g := gain(l, e.offBase(uint32(off), p > anchor))
		// Lazy: a better match one or two bytes on is worth the literals,
		// unless this one is long enough (lazyEnough).
		for bias := 4; bias <= 7 && p+1 < be && l < lazyEnough; bias += 3 {
			l2, off2 := m.best(e, p+1, be, anchor)
			if l2 == 0 {
				break
			}
			g2 := gain(l2, e.offBase(uint32(off2), true))
			if g2 <= g+bias {
				break
			}
			p, l, off, g = p+1, l2, off2, g2
		}
		for p > anchor && p-off > lowest && buf[p-1] == buf[p-off-1] {
			p--
			l++
		}
		ll := uint32(p - anchor)
		ob := e.offBase(uint32(off), ll > 0)
		e.updateRep(ob, ll > 0, uint32(off))
		lits = append(lits, buf[anchor:p]...)
		seqs = append(seqs, seq{litLen: ll, matchLen: uint32(l), offBase: ob})
		p += l
		anchor = p
	}
	lits = append(lits, buf[anchor:be]...)
	return lits, seqs
}

// best is the better of the chain's longest match at p and the repeat
// offsets' matches there.
func (m *matcher) best(e *Encoder, p, be, anchor int) (int, int) {
	n := be - p
	buf := e.buf
	m.insert(buf, p)
	l, off := m.search(buf, p, n, e.depth)
	if n < minMatch {
		return l, off
	}
	g := 0
	if l > 0 {
		g = gain(l, uint32(off)+3)
	}
	// A repeat offset reaches back at most to the buffer's start and a
	// window; its first four bytes reject most before matchLen.
	reach := uint32(min(p, m.window))
	cur := binary.LittleEndian.Uint32(buf[p:])
	for _, r := range e.rep {
		if r == 0 || r > reach || binary.LittleEndian.Uint32(buf[p-int(r):]) != cur {
			continue
		}
		lr := matchLen(buf, p-int(r), p, n)
		if lr < minMatch {
			continue
		}
		if gr := gain(lr, e.offBase(r, p > anchor)); gr > g {
			l, off, g = lr, int(r), gr
		}
	}
	return l, off
}

// offBase codes offset off for a sequence with (or without) literals
// before its match: a repeat code when the decoder holds off as one.
func (e *Encoder) offBase(off uint32, lits bool) uint32 {
	r := e.rep
	if lits {
		switch off {
		case r[0]:
			return 1
		case r[1]:
			return 2
		case r[2]:
			return 3
		}
		return off + 3
	}
	switch {
	case off == r[1]:
		return 1
	case off == r[2]:
		return 2
	case r[0] > 1 && off == r[0]-1:
		return 3
	}
	return off + 3
}

// updateRep moves the repeat offsets as the decoder does after a sequence
// coded with ob.
func (e *Encoder) updateRep(ob uint32, lits bool, off uint32) {
	r := &e.rep
	if ob > 3 {
		r[0], r[1], r[2] = off, r[0], r[1]
		return
	}
	i := ob - 1
	if !lits {
		i++
	}
	switch i {
	case 1:
		r[0], r[1] = r[1], r[0]
	case 2, 3:
		r[0], r[1], r[2] = off, r[0], r[1]
	}
}
