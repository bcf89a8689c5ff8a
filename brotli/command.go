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

// insCode is the insert length code for n literals.
func insCode(n uint32) uint8 {
	switch {
	case n < 6:
		return uint8(n)
	case n < 130:
		m := n - 2
		h := log2(m)
		return uint8(2 + 2*h + int(m>>(h-1)&1))
	case n < 2114:
		return uint8(log2(n-66) + 10)
	case n < 6210:
		return 21
	case n < 22594:
		return 22
	}
	return 23
}

// copyCode is the copy length code for a copy of n >= 2 bytes.
func copyCode(n uint32) uint8 {
	switch {
	case n < 10:
		return uint8(n - 2)
	case n < 134:
		m := n - 6
		h := log2(m)
		return uint8(4 + 2*h + int(m>>(h-1)&1))
	case n < 2118:
		return uint8(log2(n-70) + 12)
	}
	return 23
}

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

// alphabet is the size of the distance alphabet (RFC 7932 section 4).
func (p distParams) alphabet() int { return 16 + int(p.direct) + 48<<p.postfix }

// alphabetBits is the width of a distance symbol in a simple prefix code.
func (p distParams) alphabetBits() uint { return uint(bits.Len(uint(p.alphabet() - 1))) }

// code returns the distance symbol and extra bits that express distance d
// without the ring buffer.
func (p distParams) code(d uint32) (sym uint16, nbits uint8, extra uint32) {
	if d <= p.direct {
		return uint16(15 + d), 0, 0
	}
	y := d - p.direct - 1
	lcode := y & (1<<p.postfix - 1)
	z := y>>p.postfix + 4
	h := log2(z)
	ndist := h - 1
	bit := z >> (h - 1) & 1
	hcode := uint32(2*(h-2)) + bit
	sym = uint16(16 + p.direct + hcode<<p.postfix + lcode)
	return sym, uint8(ndist), z - (2+bit)<<ndist
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
