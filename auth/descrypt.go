package auth

// The traditional crypt(3): DES with an expansion permutation that the
// two salt characters perturb, applied 25 times to a block of zeros under
// a key made of the password's first 8 characters. Written from the DES
// standard (FIPS 46) and the Seventh Edition's description of crypt; bits
// are kept one per byte, which is slow but plain: 25 encryptions per
// check.

// The DES tables, 1-based as FIPS 46 prints them.
var (
	desIP = [64]uint8{
		58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4,
		62, 54, 46, 38, 30, 22, 14, 6, 64, 56, 48, 40, 32, 24, 16, 8,
		57, 49, 41, 33, 25, 17, 9, 1, 59, 51, 43, 35, 27, 19, 11, 3,
		61, 53, 45, 37, 29, 21, 13, 5, 63, 55, 47, 39, 31, 23, 15, 7}
	desFP = [64]uint8{
		40, 8, 48, 16, 56, 24, 64, 32, 39, 7, 47, 15, 55, 23, 63, 31,
		38, 6, 46, 14, 54, 22, 62, 30, 37, 5, 45, 13, 53, 21, 61, 29,
		36, 4, 44, 12, 52, 20, 60, 28, 35, 3, 43, 11, 51, 19, 59, 27,
		34, 2, 42, 10, 50, 18, 58, 26, 33, 1, 41, 9, 49, 17, 57, 25}
	desPC1C = [28]uint8{
		57, 49, 41, 33, 25, 17, 9, 1, 58, 50, 42, 34, 26, 18,
		10, 2, 59, 51, 43, 35, 27, 19, 11, 3, 60, 52, 44, 36}
	desPC1D = [28]uint8{
		63, 55, 47, 39, 31, 23, 15, 7, 62, 54, 46, 38, 30, 22,
		14, 6, 61, 53, 45, 37, 29, 21, 13, 5, 28, 20, 12, 4}
	desShifts = [16]uint8{1, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1}
	desPC2C   = [24]uint8{
		14, 17, 11, 24, 1, 5, 3, 28, 15, 6, 21, 10,
		23, 19, 12, 4, 26, 8, 16, 7, 27, 20, 13, 2}
	desPC2D = [24]uint8{
		41, 52, 31, 37, 47, 55, 30, 40, 51, 45, 33, 48,
		44, 49, 39, 56, 34, 53, 46, 42, 50, 36, 29, 32}
	desE = [48]uint8{
		32, 1, 2, 3, 4, 5, 4, 5, 6, 7, 8, 9,
		8, 9, 10, 11, 12, 13, 12, 13, 14, 15, 16, 17,
		16, 17, 18, 19, 20, 21, 20, 21, 22, 23, 24, 25,
		24, 25, 26, 27, 28, 29, 28, 29, 30, 31, 32, 1}
	desP = [32]uint8{
		16, 7, 20, 21, 29, 12, 28, 17, 1, 15, 23, 26, 5, 18, 31, 10,
		2, 8, 24, 14, 32, 27, 3, 9, 19, 13, 30, 6, 22, 11, 4, 25}
	desS = [8][64]uint8{
		{14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7,
			0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12, 11, 9, 5, 3, 8,
			4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0,
			15, 12, 8, 2, 4, 9, 1, 7, 5, 11, 3, 14, 10, 0, 6, 13},
		{15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10,
			3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1, 10, 6, 9, 11, 5,
			0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15,
			13, 8, 10, 1, 3, 15, 4, 2, 11, 6, 7, 12, 0, 5, 14, 9},
		{10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8,
			13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5, 14, 12, 11, 15, 1,
			13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7,
			1, 10, 13, 0, 6, 9, 8, 7, 4, 15, 14, 3, 11, 5, 2, 12},
		{7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15,
			13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2, 12, 1, 10, 14, 9,
			10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4,
			3, 15, 0, 6, 10, 1, 13, 8, 9, 4, 5, 11, 12, 7, 2, 14},
		{2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9,
			14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15, 10, 3, 9, 8, 6,
			4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14,
			11, 8, 12, 7, 1, 14, 2, 13, 6, 15, 0, 9, 10, 4, 5, 3},
		{12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11,
			10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13, 14, 0, 11, 3, 8,
			9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6,
			4, 3, 2, 12, 9, 5, 15, 10, 11, 14, 1, 7, 6, 0, 8, 13},
		{4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1,
			13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5, 12, 2, 15, 8, 6,
			1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2,
			6, 11, 13, 8, 1, 4, 10, 7, 9, 5, 0, 15, 14, 2, 3, 12},
		{13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7,
			1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6, 11, 0, 14, 9, 2,
			7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8,
			2, 1, 14, 7, 4, 10, 8, 13, 15, 12, 9, 0, 3, 5, 6, 11}}
)

// saltValue maps a salt character to its 6 bits; ok is false outside
// the crypt alphabet (libxcrypt refuses such salts).
func saltValue(c byte) (uint8, bool) {
	switch {
	case c == '.' || c == '/':
		return c - '.', true
	case c >= '0' && c <= '9':
		return c - '0' + 2, true
	case c >= 'A' && c <= 'Z':
		return c - 'A' + 12, true
	case c >= 'a' && c <= 'z':
		return c - 'a' + 38, true
	}
	return 0, false
}

// desCrypt computes the traditional crypt of password with the salt of
// setting's first two characters; ok is false for an invalid salt.
func desCrypt(password []byte, setting string) (string, bool) {
	if len(setting) < 2 {
		return "", false
	}
	var e [48]uint8
	copy(e[:], desE[:])
	for i := 0; i < 2; i++ {
		v, ok := saltValue(setting[i])
		if !ok {
			return "", false
		}
		// Each set bit of the salt swaps two outputs of the expansion.
		for j := 0; j < 6; j++ {
			if v>>j&1 != 0 {
				e[6*i+j], e[6*i+j+24] = e[6*i+j+24], e[6*i+j]
			}
		}
	}

	// The key: 7 bits of each of the first 8 characters, the eighth
	// (parity) bit left clear.
	var key [64]uint8
	for i, c := range password {
		if i == 8 || c == 0 {
			break
		}
		for j := 0; j < 7; j++ {
			key[8*i+j] = c >> (6 - j) & 1
		}
	}
	ks := desKeySchedule(&key)

	var block [66]uint8 // 64 bits and two zero bits to make 11 characters
	for i := 0; i < 25; i++ {
		desEncrypt((*[64]uint8)(block[:64]), &ks, &e)
	}
	out := make([]byte, 13)
	out[0], out[1] = setting[0], setting[1]
	for i := 0; i < 11; i++ {
		var c uint8
		for j := 0; j < 6; j++ {
			c = c<<1 | block[6*i+j]
		}
		out[2+i] = itoa64[c]
	}
	return string(out), true
}

func desKeySchedule(key *[64]uint8) (ks [16][48]uint8) {
	var c, d [28]uint8
	for i := range c {
		c[i] = key[desPC1C[i]-1]
		d[i] = key[desPC1D[i]-1]
	}
	for r := 0; r < 16; r++ {
		for k := 0; k < int(desShifts[r]); k++ {
			c0, d0 := c[0], d[0]
			copy(c[:], c[1:])
			copy(d[:], d[1:])
			c[27], d[27] = c0, d0
		}
		for j := 0; j < 24; j++ {
			ks[r][j] = c[desPC2C[j]-1]
			ks[r][j+24] = d[desPC2D[j]-28-1]
		}
	}
	return ks
}

// desEncrypt encrypts block in place with the key schedule ks and the
// (salted) expansion e.
func desEncrypt(block *[64]uint8, ks *[16][48]uint8, e *[48]uint8) {
	var lr [64]uint8
	for i := range lr {
		lr[i] = block[desIP[i]-1]
	}
	l, r := lr[:32], lr[32:]
	var f, tmp [32]uint8
	for round := 0; round < 16; round++ {
		for s := 0; s < 8; s++ {
			var b [6]uint8
			for k := 0; k < 6; k++ {
				b[k] = r[e[6*s+k]-1] ^ ks[round][6*s+k]
			}
			v := desS[s][b[0]<<5|b[5]<<4|b[1]<<3|b[2]<<2|b[3]<<1|b[4]]
			for k := 0; k < 4; k++ {
				f[4*s+k] = v >> (3 - k) & 1
			}
		}
		copy(tmp[:], r)
		for j := 0; j < 32; j++ {
			r[j] = l[j] ^ f[desP[j]-1]
		}
		copy(l, tmp[:])
	}
	// The halves are swapped once more before the final permutation.
	for j := 0; j < 32; j++ {
		l[j], r[j] = r[j], l[j]
	}
	for i := range block {
		block[i] = lr[desFP[i]-1]
	}
}
