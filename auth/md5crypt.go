package auth

import (
	"crypto/md5"
	"strings"
)

// itoa64 is the alphabet of the crypt(3) family's hash encodings.
const itoa64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// md5Crypt computes Poul-Henning Kamp's MD5-based crypt for the setting
// (magic "$1$", or Apache's "$apr1$", which differs only by its magic):
// the salt is what follows the magic, up to 8 characters, ending at "$".
func md5Crypt(password []byte, magic, setting string) string {
	salt := strings.TrimPrefix(setting, magic)
	if i := strings.IndexByte(salt, '$'); i >= 0 {
		salt = salt[:i]
	}
	if len(salt) > 8 {
		salt = salt[:8]
	}

	alt := md5.New()
	alt.Write(password)
	alt.Write([]byte(salt))
	alt.Write(password)
	altSum := alt.Sum(nil)

	ctx := md5.New()
	ctx.Write(password)
	ctx.Write([]byte(magic))
	ctx.Write([]byte(salt))
	for n := len(password); n > 0; n -= 16 {
		ctx.Write(altSum[:min(n, 16)])
	}
	// The bits of the length pick a zero byte or the first byte of the
	// password: the specification's own oddity, kept for compatibility.
	for n := len(password); n > 0; n >>= 1 {
		if n&1 != 0 {
			ctx.Write([]byte{0})
		} else {
			ctx.Write(password[:1])
		}
	}
	final := ctx.Sum(nil)

	// A thousand rounds to slow down guessing.
	for i := 0; i < 1000; i++ {
		h := md5.New()
		if i&1 != 0 {
			h.Write(password)
		} else {
			h.Write(final)
		}
		if i%3 != 0 {
			h.Write([]byte(salt))
		}
		if i%7 != 0 {
			h.Write(password)
		}
		if i&1 != 0 {
			h.Write(final)
		} else {
			h.Write(password)
		}
		final = h.Sum(final[:0])
	}

	var b strings.Builder
	b.WriteString(magic)
	b.WriteString(salt)
	b.WriteByte('$')
	for _, g := range [5][3]int{{0, 6, 12}, {1, 7, 13}, {2, 8, 14}, {3, 9, 15}, {4, 10, 5}} {
		put64(&b, uint32(final[g[0]])<<16|uint32(final[g[1]])<<8|uint32(final[g[2]]), 4)
	}
	put64(&b, uint32(final[11]), 2)
	return b.String()
}

// put64 writes the n low 6-bit groups of v, lowest first, in itoa64.
func put64(b *strings.Builder, v uint32, n int) {
	for ; n > 0; n-- {
		b.WriteByte(itoa64[v&0x3f])
		v >>= 6
	}
}
