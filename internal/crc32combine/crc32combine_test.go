package crc32combine

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

func TestCombineMatchesChecksumOfConcatenation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 7, 64, 1000, 70000} {
		for _, m := range []int{0, 1, 3, 512, 65537} {
			a, b := make([]byte, n), make([]byte, m)
			for i := range a {
				a[i] = byte(rng.Uint32())
			}
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			want := crc32.ChecksumIEEE(append(append([]byte{}, a...), b...))
			if got := Combine(crc32.ChecksumIEEE(a), crc32.ChecksumIEEE(b), int64(m)); got != want {
				t.Fatalf("Combine for %d+%d bytes = %08x, want %08x", n, m, got, want)
			}
		}
	}
}
