package brotli

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestProbeArgsLayout holds probeArgs to the offsets probe_amd64.s reads
// and writes.
func TestProbeArgsLayout(t *testing.T) {
	var a probeArgs
	got := []uintptr{unsafe.Offsetof(a.data), unsafe.Offsetof(a.table), unsafe.Offsetof(a.lh),
		unsafe.Offsetof(a.mask), unsafe.Offsetof(a.i), unsafe.Offsetof(a.limit),
		unsafe.Offsetof(a.base), unsafe.Offsetof(a.maxDist), unsafe.Offsetof(a.d), unsafe.Offsetof(a.skip)}
	want := []uintptr{0, 8, 16, 24, 32, 40, 48, 52, 56, 60}
	for k := range want {
		if got[k] != want[k] {
			t.Fatalf("probeArgs offsets %v, want %v", got, want)
		}
	}
}

// fastOutputs is everything qualities 0 and 1 write for in at window
// lgwin: one shot, a reused encoder's second call, a Writer with a size
// hint flushed at random points, and segments with prefixes (entered in
// the table before the search) and offsets.
func fastOutputs(t testing.TB, in []byte, q, lgwin int, seed uint64) []byte {
	t.Helper()
	opts := Options{Quality: q, LGWin: lgwin}
	out, err := Encode(nil, in, opts)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := NewEncoder(opts)
	if err != nil {
		t.Fatal(err)
	}
	out = enc.Encode(out, in)
	out = enc.Encode(out, in)
	rng := rand.New(rand.NewPCG(seed, uint64(q)))
	opts.SizeHint = 1 + len(in)/(1+rng.IntN(3))
	out = append(out, streamPieces(t, in, opts, rng)...)
	return append(out, segmentPieces(enc, in, rng)...)
}

// probeSame fails unless the assembly probe loop and the Go loop give the
// same output for in.
func probeSame(t testing.TB, name string, in []byte, q, lgwin int, seed uint64) {
	t.Helper()
	probeAsm = true
	a := fastOutputs(t, in, q, lgwin, seed)
	probeAsm = false
	g := fastOutputs(t, in, q, lgwin, seed)
	probeAsm = haveProbeAsm
	if !bytes.Equal(a, g) {
		t.Fatalf("%s at quality %d, window %d: the assembly probe loop wrote %d bytes, the Go loop %d (first difference at %d)",
			name, q, lgwin, len(a), len(g), firstDiff(a, g))
	}
}

// TestProbeAsmSame checks that the assembly probe loop (probe_amd64.s)
// searches as findFastIn's Go loop does, byte for byte, over the corpus,
// its prefixes, short slices, edge inputs and random inputs with short
// repeats.
func TestProbeAsmSame(t *testing.T) {
	if !haveProbeAsm {
		t.Skip("no assembly probe loop here")
	}
	oneGoroutine(t)
	inputs := edgeInputs()
	files, names := corpusNames(t)
	for _, name := range names {
		in := files[name]
		inputs[name] = in
		for k := 1; 1<<k-1 < len(in) && k < 18; k += 2 {
			inputs[name+" prefix"+string(rune('a'+k))] = in[:1<<k-1]
		}
	}
	if len(names) > 0 {
		first := files[names[0]]
		for n := 0; n < 600 && n < len(first); n += 37 {
			inputs["slice"+string(rune('a'+n/37))] = first[len(first)/3 : len(first)/3+n]
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for k := range 40 {
		in := make([]byte, rng.IntN(70_000))
		for i := range in {
			if i >= 8 && rng.IntN(4) != 0 {
				in[i] = in[i-1-rng.IntN(min(i, 64))]
			} else {
				in[i] = byte('a' + rng.IntN(8))
			}
		}
		inputs["random"+string(rune('A'+k))] = in
	}
	for name, in := range inputs {
		for q := range 2 {
			for _, lgwin := range []int{10, 16, 22} {
				probeSame(t, name, in, q, lgwin, uint64(len(in)))
			}
		}
	}
}

// FuzzProbeAsm compares the assembly probe loop with the Go loop on
// random input at qualities 0 and 1.
func FuzzProbeAsm(f *testing.F) {
	if !haveProbeAsm {
		f.Skip("no assembly probe loop here")
	}
	f.Add([]byte("hello, hello, hello world"), uint8(1), uint8(12), uint64(1))
	f.Add(bytes.Repeat([]byte("abcd"), 300), uint8(0), uint8(0), uint64(2))
	f.Fuzz(func(t *testing.T, in []byte, q, lgwin uint8, seed uint64) {
		probeSame(t, "fuzz", in, int(q%2), 10+int(lgwin)%15, seed)
	})
}
