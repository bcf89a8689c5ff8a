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
	oneGoroutine(t)
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

// adversarial draws an input from one of several shapes that stress the
// block and repeat-offset logic: long runs of one byte between random
// stretches (RLE and raw blocks beside compressed ones), random bytes
// with copies at a few recurring distances (repeat codes), all 256 byte
// values, and short-period text.
func adversarial(rng *rand.Rand, n int) []byte {
	out := make([]byte, 0, n)
	dists := []int{1, 3, 4, 8, 100, 1000, 5000, 70000}
	for len(out) < n {
		k := min(n-len(out), 1+rng.IntN(1+n/4))
		switch rng.IntN(5) {
		case 0: // a run
			c := byte(rng.IntN(3))
			for range k {
				out = append(out, c)
			}
		case 1: // random
			for range k {
				out = append(out, byte(rng.Uint32()))
			}
		case 2: // copies at recurring distances, with a few literals between
			for i := 0; i < k; {
				d := dists[rng.IntN(len(dists))]
				if d > len(out) {
					out = append(out, byte(rng.Uint32()))
					i++
					continue
				}
				l := min(k-i, 3+rng.IntN(40))
				for range l {
					out = append(out, out[len(out)-d])
				}
				i += l
				if rng.IntN(2) == 0 {
					out = append(out, byte(rng.Uint32()))
					i++
				}
			}
		case 3: // every byte value
			for i := range k {
				out = append(out, byte(i))
			}
		default: // short-period text
			p := []byte("abcabdabcabe")[:2+rng.IntN(10)]
			for i := range k {
				out = append(out, p[i%len(p)])
			}
		}
	}
	return out[:n]
}

// Random adversarial inputs, whole and cut into segments at random
// points with random prefixes, at small and large windows, decode with
// both decoders.
func TestAdversarialRoundTrip(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(11, 12))
	sizes := []int{0, 1, 5, 100, 1023, 1024, 1025, 4000, maxBlock - 1, maxBlock, maxBlock + 1, 2*maxBlock + 7, 600_000}
	for i := range 60 {
		n := sizes[i%len(sizes)]
		in := adversarial(rng, n)
		wlog := []int{MinWindowLog, 11, 14, 17, 20, MaxWindowLog}[rng.IntN(6)]
		enc, err := NewEncoder(Options{WindowLog: wlog})
		if err != nil {
			t.Fatal(err)
		}
		decodeBoth(t, enc.Encode(nil, in), in)
		// Segments: random cuts, each with a random prefix length.
		known := rng.IntN(2) == 0
		var size int64
		if known {
			size = int64(n)
		}
		var out []byte
		for start, first := 0, true; first || start < n; first = false {
			end := min(n, start+1+rng.IntN(1+n/3))
			pre := in[max(0, start-rng.IntN(1<<wlog+2)):start]
			out = enc.EncodeSegment(out, in[start:end], Segment{First: first, Last: end == n, Prefix: pre, ContentSize: size})
			start = end
		}
		t.Run("", func(t *testing.T) { decodeBoth(t, out, in) })
	}
}
