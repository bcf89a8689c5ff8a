//go:build linux

package brotli

import (
	"bytes"
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
)

// guardedBody is memory for bodies of up to n bytes between two pages
// that fault when touched, so that a load before a body's first byte or
// past its last crashes the test rather than reading a neighbour's bytes.
func guardedBody(t *testing.T, n int) []byte {
	t.Helper()
	ps := os.Getpagesize()
	body := (n + ps - 1) / ps * ps
	mem, err := syscall.Mmap(-1, 0, body+2*ps, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	for _, g := range [][]byte{mem[:ps], mem[ps+body:]} {
		if err := syscall.Mprotect(g, syscall.PROT_NONE); err != nil {
			t.Fatalf("mprotect: %v", err)
		}
	}
	return mem[ps : ps+body : ps+body]
}

// TestFastSearchInBounds encodes bodies of 0 to 70,000 bytes at
// qualities 0 and 1, with the assembly probe loop and with the Go loop,
// each body placed against a guard page at its end and at its start: the
// search reads the caller's bytes in place (Encode, a reused Encoder), and
// its 8-byte loads near the end (the next probe's, min(next, limit)) or a
// candidate's before the start must stay inside them. Comparing outputs
// (TestProbeAsmSame) cannot see such a load: its value is never used.
func TestFastSearchInBounds(t *testing.T) {
	oneGoroutine(t)
	const most = 70_000
	mem := guardedBody(t, most)
	rng := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, most)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	repeats := bytes.Repeat([]byte("abcdabce"), most/8)
	text := bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog; "), most/45+1)[:most]
	var lens []int
	for n := range 80 {
		lens = append(lens, n)
	}
	for k := 7; k <= 16; k++ {
		lens = append(lens, 1<<k-1, 1<<k, 1<<k+1, 1<<k+7)
	}
	lens = append(lens, 40_000, most)
	defer func() { probeAsm = haveProbeAsm }()
	for _, asm := range []bool{false, true} {
		if asm && !haveProbeAsm {
			continue
		}
		probeAsm = asm
		for q := range 2 {
			enc, err := NewEncoder(Options{Quality: q, LGWin: 16})
			if err != nil {
				t.Fatal(err)
			}
			for _, src := range [][]byte{random, repeats, text} {
				for _, n := range lens {
					for _, in := range [][]byte{mem[len(mem)-n:], mem[:n:n]} {
						copy(in, src[:n])
						for _, comp := range [][]byte{
							enc.Encode(nil, in),
							mustEncode(t, in, Options{Quality: q, LGWin: 22}),
						} {
							if got := decodeAB(t, comp); !bytes.Equal(got, src[:n]) {
								t.Fatalf("asm %v, quality %d, %d bytes: first difference at %d", asm, q, n, firstDiff(got, src[:n]))
							}
						}
					}
				}
			}
		}
	}
}

func mustEncode(t *testing.T, in []byte, opts Options) []byte {
	t.Helper()
	out, err := Encode(nil, in, opts)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestProbeAsmCandidateBeforeData holds probeFastAsm to its contract for a
// candidate whose 4-byte load would fall before data[0] (a table entry
// below base yet within maxDist, which findFastIn's callers never leave):
// the loop hands it back as found, for findFastIn's bound check to refuse,
// rather than load it. The body follows a guard page, so a load crashes
// the test; TestFastSearchInBounds cannot reach this case. The loop is
// written out twice (probe_amd64.s), so the case is met at a first probe
// and, after a miss, at a second.
func TestProbeAsmCandidateBeforeData(t *testing.T) {
	if !haveProbeAsm {
		t.Skip("no assembly probe loop here")
	}
	const n, base = 64, 1 << 20
	data := guardedBody(t, n)[:n]
	for k := range data {
		data[k] = byte('a' + k%7)
	}
	table := make([]uint32, 1<<10)
	mask := uint64(len(table) - 1)
	slot := func(i int) uint64 { return fastSlot[[0]byte](load64(data, i)*hashMul6>>fastShift, mask) }
	for _, tc := range []struct{ i, back int }{{0, 1}, {0, 4}, {3, 4}, {5, 8}, {n - 9, n - 7}} {
		for missed := range 2 {
			// Every slot holds the position back bytes before data[0], so a
			// probe at i finds its candidate at distance i+back; but for a
			// miss first, i's own slot holds i itself, distance 0.
			for k := range table {
				table[k] = base - uint32(tc.back)
			}
			if missed == 1 {
				if slot(tc.i) == slot(tc.i+1) {
					t.Fatalf("positions %d and %d share a slot: change the body", tc.i, tc.i+1)
				}
				table[slot(tc.i)] = base + uint32(tc.i)
			}
			var lh [256]uint32
			a := probeArgs{data: &data[0], table: &table[0], lh: &lh, mask: mask,
				i: tc.i, limit: n - 8, base: base, maxDist: 1 << 16, skip: 5}
			probeFastAsm(&a)
			at := tc.i + missed
			if want := uint32(at + tc.back); a.i != at || a.d != want {
				t.Errorf("i %d, candidate %d before data, %d missed: handed back i %d, d %d, want i %d, d %d",
					tc.i, tc.back, missed, a.i, a.d, at, want)
			}
			var wantLh [256]uint32
			if missed == 1 {
				wantLh[data[tc.i]] = 1
			}
			if lh != wantLh {
				t.Errorf("i %d, %d missed: literal counts not the probes' misses", tc.i, missed)
			}
		}
	}
}
