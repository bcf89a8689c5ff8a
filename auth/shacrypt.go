package auth

import (
	"crypto/sha256"
	"crypto/sha512"
	"hash"
	"strconv"
	"strings"
)

// SHA-crypt ("$5$" with SHA-256, "$6$" with SHA-512), from Ulrich
// Drepper's specification "Unix crypt using SHA-256 and SHA-512".

const (
	shaRoundsDefault = 5000
	shaRoundsMin     = 1000
	shaRoundsMax     = 999999999
)

// The order in which the digest's bytes are encoded, three at a time
// (the last group is shorter).
var (
	sha256Order = [][3]int{{0, 10, 20}, {21, 1, 11}, {12, 22, 2}, {3, 13, 23}, {24, 4, 14},
		{15, 25, 5}, {6, 16, 26}, {27, 7, 17}, {18, 28, 8}, {9, 19, 29}}
	sha512Order = [][3]int{{0, 21, 42}, {22, 43, 1}, {44, 2, 23}, {3, 24, 45}, {25, 46, 4},
		{47, 5, 26}, {6, 27, 48}, {28, 49, 7}, {50, 8, 29}, {9, 30, 51}, {31, 52, 10},
		{53, 11, 32}, {12, 33, 54}, {34, 55, 13}, {56, 14, 35}, {15, 36, 57}, {37, 58, 16},
		{59, 17, 38}, {18, 39, 60}, {40, 61, 19}, {62, 20, 41}}
)

// shaCrypt computes the hash of password for setting ("$5$[rounds=N$]salt"
// or "$6$..."); ok is false for a setting it cannot read.
func shaCrypt(password []byte, setting string) (string, bool) {
	magic := setting[:3]
	newHash := sha256.New
	if magic == "$6$" {
		newHash = sha512.New
	}
	rest := setting[3:]
	rounds, custom := shaRoundsDefault, false
	if r, ok := strings.CutPrefix(rest, "rounds="); ok {
		num, after, found := strings.Cut(r, "$")
		n, err := strconv.ParseUint(num, 10, 64)
		if !found || err != nil || num == "" || num[0] == '+' {
			return "", false
		}
		rounds, custom, rest = int(min(max(n, shaRoundsMin), shaRoundsMax)), true, after
	}
	salt := rest
	if i := strings.IndexByte(salt, '$'); i >= 0 {
		salt = salt[:i]
	}
	if len(salt) > 16 {
		salt = salt[:16]
	}
	sum := shaCryptSum(newHash, password, []byte(salt), rounds)

	var b strings.Builder
	b.WriteString(magic)
	if custom {
		b.WriteString("rounds=")
		b.WriteString(strconv.Itoa(rounds))
		b.WriteByte('$')
	}
	b.WriteString(salt)
	b.WriteByte('$')
	order := sha256Order
	if len(sum) == 64 {
		order = sha512Order
	}
	for _, g := range order {
		put64(&b, uint32(sum[g[0]])<<16|uint32(sum[g[1]])<<8|uint32(sum[g[2]]), 4)
	}
	if len(sum) == 32 {
		put64(&b, uint32(sum[31])<<8|uint32(sum[30]), 3)
	} else {
		put64(&b, uint32(sum[63]), 2)
	}
	return b.String(), true
}

func shaCryptSum(newHash func() hash.Hash, pw, salt []byte, rounds int) []byte {
	h := newHash()

	h.Write(pw)
	h.Write(salt)
	h.Write(pw)
	b := h.Sum(nil)

	h.Reset()
	h.Write(pw)
	h.Write(salt)
	writeRepeated(h, b, len(pw))
	for n := len(pw); n > 0; n >>= 1 {
		if n&1 != 0 {
			h.Write(b)
		} else {
			h.Write(pw)
		}
	}
	a := h.Sum(nil)

	h.Reset()
	for range pw {
		h.Write(pw)
	}
	p := repeated(h.Sum(nil), len(pw))

	h.Reset()
	for i := 0; i < 16+int(a[0]); i++ {
		h.Write(salt)
	}
	s := repeated(h.Sum(nil), len(salt))

	c := a
	for i := 0; i < rounds; i++ {
		h.Reset()
		if i&1 != 0 {
			h.Write(p)
		} else {
			h.Write(c)
		}
		if i%3 != 0 {
			h.Write(s)
		}
		if i%7 != 0 {
			h.Write(p)
		}
		if i&1 != 0 {
			h.Write(c)
		} else {
			h.Write(p)
		}
		c = h.Sum(c[:0])
	}
	return c
}

// writeRepeated writes n bytes of d, repeated as often as needed.
func writeRepeated(h hash.Hash, d []byte, n int) {
	for ; n > len(d); n -= len(d) {
		h.Write(d)
	}
	h.Write(d[:n])
}

// repeated returns n bytes of d, repeated as often as needed.
func repeated(d []byte, n int) []byte {
	out := make([]byte, 0, n)
	for len(out) < n {
		out = append(out, d[:min(len(d), n-len(out))]...)
	}
	return out
}
