// Package crc32combine computes the CRC-32 (IEEE, as gzip uses it) of a
// concatenation from the checksums of its parts, without their bytes: what
// a gzip stream assembled from separately compressed pieces needs for its
// trailer.
package crc32combine

// The checksum of A‖B is crc(A) multiplied by x^(8·len(B)) modulo the
// polynomial, plus crc(B): the pre- and post-inversions of CRC-32 cancel
// out. Polynomials are held bit-reflected, as CRC-32 holds them (bit 31 is
// the coefficient of x^0), and x^(8n) is assembled from the powers
// x^(2^k), so the cost grows with the number of bits of n.

// poly is the IEEE polynomial without its x^32 term, reflected.
const poly = 0xedb88320

// mul returns a·b modulo the polynomial.
func mul(a, b uint32) uint32 {
	var p uint32
	for bit := uint32(1) << 31; bit != 0; bit >>= 1 {
		if a&bit != 0 {
			p ^= b
		}
		// b·x; the x^32 shifted out is replaced by its remainder.
		if b&1 != 0 {
			b = b>>1 ^ poly
		} else {
			b >>= 1
		}
	}
	return p
}

// pow2 holds x^(2^k) modulo the polynomial, enough for 8·n of any int64 n.
var pow2 = func() (t [67]uint32) {
	t[0] = 1 << 30 // x^1
	for k := 1; k < len(t); k++ {
		t[k] = mul(t[k-1], t[k-1])
	}
	return t
}()

// Combine returns the CRC-32 of A‖B given crc1 of A, crc2 of B and the
// length of B.
func Combine(crc1, crc2 uint32, len2 int64) uint32 {
	// len2 bytes are 8·len2 bits: the powers start at x^(2^3).
	for k := 3; len2 > 0; k, len2 = k+1, len2>>1 {
		if len2&1 != 0 {
			crc1 = mul(crc1, pow2[k])
		}
	}
	return crc1 ^ crc2
}
