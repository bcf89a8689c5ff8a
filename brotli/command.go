package brotli

import "math/bits"

// The insert and copy length codes of RFC 7932 section 5: code i stands
// for base[i] plus extra[i] bits.
var (
	insBase  = [24]uint32{0, 1, 2, 3, 4, 5, 6, 8, 10, 14, 18, 26, 34, 50, 66, 98, 130, 194, 322, 578, 1090, 2114, 6210, 22594}
	insExtra = [24]uint8{0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7, 8, 9, 10, 12, 14, 24}
	cpBase   = [24]uint32{2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 18, 22, 30, 38, 54, 70, 102, 134, 198, 326, 582, 1094, 2118}
	cpExtra  = [24]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7, 8, 9, 10, 24}
)

// cellBase is the first insert-and-copy symbol of the 64-symbol cell for
// insert code group i>>3 and copy code group c>>3 when a distance symbol
// follows; symbols 0..127 are the cells whose distance is the last one.
var cellBase = [3][3]uint16{{128, 192, 384}, {256, 320, 512}, {448, 576, 640}}

func log2(x uint32) int { return bits.Len32(x) - 1 }

// A length's code, its number of extra bits and their value, packed as
// code | bits<<8 | value<<16. insLens and copyLens hold them for the short
// lengths most commands have, so that those cost one load.
var (
	insLens  = lengthTable(insCodeOf, &insBase, &insExtra, 0)
	copyLens = lengthTable(copyCodeOf, &cpBase, &cpExtra, 2)
)

// lengthTable packs the lengths below 256, from the shortest that occurs.
func lengthTable(code func(uint32) uint8, base *[24]uint32, extra *[24]uint8, shortest int) (t [256]uint64) {
	for n := shortest; n < len(t); n++ {
		t[n] = packLength(code, base, extra, uint32(n))
	}
	return t
}

func packLength(code func(uint32) uint8, base *[24]uint32, extra *[24]uint8, n uint32) uint64 {
	c := code(n)
	return uint64(c) | uint64(extra[c])<<8 | uint64(n-base[c])<<16
}

// insLength is the packed code of an insert of n literals.
func insLength(n uint32) uint64 {
	if n < uint32(len(insLens)) {
		return insLens[n]
	}
	return packLength(insCodeOf, &insBase, &insExtra, n)
}

// copyLength is the packed code of a copy of n >= 2 bytes.
func copyLength(n uint32) uint64 {
	if n < uint32(len(copyLens)) {
		return copyLens[n]
	}
	return packLength(copyCodeOf, &cpBase, &cpExtra, n)
}

func insCodeOf(n uint32) uint8 {
	switch {
	case n < 6:
		return uint8(n)
	case n < 130:
		m := n - 2
		h := log2(m)
		return uint8(2 + 2*h + int(m>>((h-1)&31)&1))
	case n < 2114:
		return uint8(log2(n-66) + 10)
	case n < 6210:
		return 21
	case n < 22594:
		return 22
	}
	return 23
}

func copyCodeOf(n uint32) uint8 {
	switch {
	case n < 10:
		return uint8(n - 2)
	case n < 134:
		m := n - 6
		h := log2(m)
		return uint8(4 + 2*h + int(m>>((h-1)&31)&1))
	case n < 2118:
		return uint8(log2(n-70) + 12)
	}
	return 23
}

// cmdSymbols[l][ic][cc] is cmdSymbol(ic, cc, l == 1). Codes go up to 23;
// rows of 32 let the hot paths index with ic&31 and cc&31, which the
// compiler knows to be in range, so that no bound is checked per command.
var cmdSymbols = func() (t [2][32][32]uint16) {
	for ic := range 24 {
		for cc := range 24 {
			t[0][ic][cc] = cmdSymbol(uint8(ic), uint8(cc), false)
			t[1][ic][cc] = cmdSymbol(uint8(ic), uint8(cc), true)
		}
	}
	return t
}()

// distCtx is the distance context (RFC 7932 section 7.2) of each
// insert-and-copy symbol: 0, 1 and 2 for copies of 2, 3 and 4 bytes, 3
// for longer ones.
var distCtx = func() (t [maxAlphabet]uint8) {
	for ic := range uint8(24) {
		for cc := range uint8(24) {
			t[cmdSymbol(ic, cc, false)] = min(cc, 3)
			t[cmdSymbol(ic, cc, true)] = min(cc, 3)
		}
	}
	return t
}()

// cmdSymbol combines an insert and a copy code into an insert-and-copy
// symbol; lastDist asks for the cells that imply distance code 0, which
// exist only for insert codes below 8 and copy codes below 16.
func cmdSymbol(ic, cc uint8, lastDist bool) uint16 {
	low := uint16(cc&7) | uint16(ic&7)<<3
	if lastDist && ic < 8 && cc < 16 {
		return low | uint16(cc>>3)<<6
	}
	return cellBase[ic>>3][cc>>3] + low
}

// distParams are NPOSTFIX and NDIRECT of a meta-block.
type distParams struct {
	postfix uint
	direct  uint32
}

// numShortCodes is how many distance symbols code the ring's distances
// and their neighbours, before any direct or postfix code (RFC 7932
// section 4).
const numShortCodes = 16

// alphabet is the size of the distance alphabet (RFC 7932 section 4).
func (p distParams) alphabet() int { return numShortCodes + int(p.direct) + 48<<p.postfix }

// alphabetBits is the width of a distance symbol in a simple prefix code.
func (p distParams) alphabetBits() uint { return uint(bits.Len(uint(p.alphabet() - 1))) }

// code returns the distance symbol and extra bits that express distance d
// without the ring buffer.
func (p distParams) code(d uint32) (sym uint16, nbits uint8, extra uint32) {
	if d <= p.direct {
		return uint16(15 + d), 0, 0
	}
	y := d - p.direct - 1
	lcode := y & (1<<(p.postfix&31) - 1)
	z := y>>(p.postfix&31) + 4
	h := log2(z)
	ndist := h - 1
	bit := z >> ((h - 1) & 31) & 1
	hcode := uint32(2*(h-2)) + bit
	sym = uint16(16 + p.direct + hcode<<(p.postfix&31) + lcode)
	return sym, uint8(ndist), z - (2+bit)<<(ndist&31)
}

// distance is the distance that symbol sym with nbits extra bits of value
// extra codes without the ring buffer: the inverse of code, for sym >= 16.
func (p distParams) distance(sym uint16, nbits uint8, extra uint32) uint32 {
	c := uint32(sym) - numShortCodes
	if c < p.direct {
		return c + 1
	}
	c -= p.direct
	pf := p.postfix & 31
	hcode, lcode := c>>pf, c&(1<<pf-1)
	z := extra + (2+hcode&1)<<(nbits&31)
	return (z-4)<<pf + lcode + p.direct + 1
}

// packDist is a distance code as cmdSyms.dist holds it: the symbol, its
// number of extra bits and their value.
func packDist(sym uint16, nbits uint8, extra uint32) uint64 {
	return uint64(sym) | uint64(nbits)<<16 | uint64(extra)<<24
}

// plainDistCode is distParams{}.code(d) (NPOSTFIX and NDIRECT 0, what
// every mode but font uses), without the shifts by parameters.
func plainDistCode(d uint32) (sym uint16, nbits uint8, extra uint32) {
	z := d + 3
	h := uint32(log2(z)) & 31
	bit := z >> ((h - 1) & 31) & 1
	return uint16(16 + 2*(h-2) + bit), uint8(h - 1), z - (2+bit)<<((h-1)&31)
}

// distRing is the decoder's ring of the last four distances, with how
// many of its entries the encoder knows: a segment compressed apart from
// the ones before it cannot use entries it did not push itself.
type distRing struct {
	d     [4]uint32
	known int
}

func (r *distRing) reset(known bool) {
	r.d = [4]uint32{4, 11, 15, 16}
	r.known = 0
	if known {
		r.known = 4
	}
}

func (r *distRing) push(d uint32) {
	r.d = [4]uint32{d, r.d[0], r.d[1], r.d[2]}
	r.known = min(r.known+1, 4)
}

// nearCode maps d - ring entry + 3 (0..6) to the codes 4..9 for a
// distance near the last one; 10..15 are the same plus 6 for the second
// to last. The entry for equal distances is unused.
var nearCode = [7]int8{8, 6, 4, -1, 5, 7, 9}

// short returns the distance code 0..15 that means d given the ring, or -1.
func (r *distRing) short(d uint32) int {
	if r.known == 4 {
		// The usual case, written out: it runs once per command.
		switch d {
		case r.d[0]:
			return 0
		case r.d[1]:
			return 1
		case r.d[2]:
			return 2
		case r.d[3]:
			return 3
		}
		if k := d - r.d[0] + 3; k < 7 {
			return int(nearCode[k])
		}
		if k := d - r.d[1] + 3; k < 7 {
			return int(nearCode[k]) + 6
		}
		return -1
	}
	for i := 0; i < r.known; i++ {
		if r.d[i] == d {
			return i
		}
	}
	// Codes 4..9 are the last distance -1,+1,-2,+2,-3,+3; 10..15 the same
	// around the second to last.
	for j := 0; j < min(r.known, 2); j++ {
		delta := int64(d) - int64(r.d[j])
		if delta != 0 && delta >= -3 && delta <= 3 {
			c := 4 + 6*j + 2*int(abs64(delta)-1)
			if delta > 0 {
				c++
			}
			return c
		}
	}
	return -1
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
