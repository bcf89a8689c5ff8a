package zstdenc

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// randomBytes returns n bytes drawn from seed.
func randomBytes(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// A block sent as RLE (or raw) carries no sequences, so it leaves the
// decoder's repeat offsets as they were. Block one ends with a copy from
// 1000 bytes back (repeat offsets 1000, 1, 4); block two is all 'a', which
// the match finder covers with a repeat of 1 after one literal (code 2:
// offsets 1, 1000, 4 for the encoder); block three has a copy from 1000
// back, which only an encoder that kept block two's offsets codes as a
// repeat of 1000 (code 2), decoded as a copy from 1 back.
func TestRepeatOffsetsAfterRLEBlock(t *testing.T) {
	b1 := randomBytes(7, maxBlock)
	copy(b1[1200:1300], b1[200:])
	b1[len(b1)-1] = 'b'
	b2 := bytes.Repeat([]byte{'a'}, maxBlock)
	b3 := randomBytes(8, 3000)
	copy(b3[2000:2100], b3[1000:])
	in := append(append(b1, b2...), b3...)
	enc, err := NewEncoder(Options{})
	if err != nil {
		t.Fatal(err)
	}
	decodeBoth(t, enc.Encode(nil, in), in)
}
