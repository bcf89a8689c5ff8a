package brotli

import (
	"bytes"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// fibHist is a histogram whose unrestricted Huffman code is n-1 deep.
func fibHist(n int) []uint32 {
	h := make([]uint32, n)
	a, b := uint32(1), uint32(1)
	for i := range h {
		h[i] = a
		a, b = b, a+b
	}
	return h
}

func TestBuildLengthsLimited(t *testing.T) {
	var hs huffScratch
	for _, n := range []int{2, 3, 5, 16, 17, 25, 40} {
		for _, limit := range []uint8{5, 15} {
			if n > 1<<limit {
				continue
			}
			hist := fibHist(n)
			lens := make([]uint8, n)
			hs.buildLengths(hist, limit, lens)
			kraft := 0
			for _, l := range lens {
				if l == 0 || l > limit {
					t.Fatalf("n=%d limit=%d: length %d", n, limit, l)
				}
				kraft += 1 << (limit - l)
			}
			if kraft != 1<<limit {
				t.Fatalf("n=%d limit=%d: code not complete (Kraft %d/%d)", n, limit, kraft, 1<<limit)
			}
			// Rarer symbols never get shorter codes than commoner ones.
			for i := 1; i < n; i++ {
				if lens[i] > lens[i-1] {
					t.Fatalf("n=%d limit=%d: lengths %v not monotone", n, limit, lens)
				}
			}
		}
	}
}

// TestSkewedLiterals round-trips literals whose Huffman code must be
// limited to 15 bits, and alphabets of every small size (the simple
// prefix codes of one to four symbols).
func TestSkewedLiterals(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(11, 12))
	hist := fibHist(24)
	var in []byte
	for s, c := range hist {
		in = append(in, bytes.Repeat([]byte{byte(s * 7)}, int(c))...)
	}
	rng.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
	for q := MinQuality; q <= MaxQuality; q++ {
		comp, _ := Encode(nil, in, Options{Quality: q})
		checkBoth(t, comp, in)
	}
	for k := 1; k <= 6; k++ {
		small := make([]byte, 5000)
		for i := range small {
			small[i] = byte(rng.IntN(k)) * 40
		}
		comp, _ := Encode(nil, small, Options{Quality: 2})
		got, err := io.ReadAll(newABReader(comp))
		if err != nil || !bytes.Equal(got, small) {
			t.Fatalf("%d distinct literals: %v", k, err)
		}
	}
}

// TestRaiseRare: a code with many rare symbols scattered over the
// insert-and-copy alphabet, as a small body has, costs fewer bits in all
// (description and symbols) with the rare counts raised to a floor, and
// its lengths still make a complete code.
func TestRaiseRare(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	hist := make([]uint32, maxAlphabet)
	for range 50 {
		hist[rng.IntN(maxAlphabet)] += 1 + uint32(rng.IntN(3))
	}
	hist[130], hist[131], hist[132] = 40, 30, 20
	total := func(floors bool) (int, []uint8) {
		var hs huffScratch
		hs.floors = floors
		var w bitWriter
		lens := make([]uint8, maxAlphabet)
		pc := prefixCode{lens: lens, codes: make([]uint32, maxAlphabet)}
		return hs.storeCode(&w, hist, &pc, 10) + w.bits(), lens
	}
	plain, _ := total(false)
	raised, lens := total(true)
	if raised >= plain {
		t.Errorf("%d bits with rare counts raised, %d without", raised, plain)
	}
	kraft := 0
	for s, l := range lens {
		if (l != 0) != (hist[s] != 0) {
			t.Fatalf("symbol %d: count %d, length %d", s, hist[s], l)
		}
		if l != 0 {
			kraft += 1 << (15 - l)
		}
	}
	if kraft != 1<<15 {
		t.Errorf("code not complete (Kraft %d/%d)", kraft, 1<<15)
	}
}

// TestOneLiteralTree: a quality held to one literal tree codes a body with
// enough literals to cluster with that tree, counted flat, and the stream
// decodes (the flat counts are made only where group reads them).
func TestOneLiteralTree(t *testing.T) {
	in := corpus(t)["jquery.min.js"]
	for _, q := range []int{5, 9, 10} {
		body := in
		if q >= 10 {
			body = in[:20_000] // the optimal parse is slow under -race
		}
		comp := encodeAltered(t, body, q, func(p *quality) { p.maxTrees = 1 })
		checkBoth(t, comp, body)
	}
}

// TestSortKeys holds sortKeys to a comparison sort, for histograms of
// every size up to the command alphabet and counts of every width: one
// and two counting passes, and the comparison sort it leaves the others
// to.
func TestSortKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var hs huffScratch
	for range 2000 {
		n := rng.IntN(maxAlphabet + 1)
		if rng.IntN(2) == 0 {
			n = rng.IntN(25) // about 16 keys or fewer: insertionSort's
		}
		most := uint32(1) << rng.IntN(20)
		var keys []uint64
		top := uint32(0)
		for s := range n {
			if rng.IntN(3) == 0 {
				continue
			}
			c := 1 + rng.Uint32N(most)
			if rng.IntN(4) == 0 {
				c = 1 + rng.Uint32N(3) // many equal counts
			}
			keys = append(keys, uint64(c)<<16|uint64(s))
			top = max(top, c)
		}
		want := slices.Clone(keys)
		slices.Sort(want)
		keys = hs.sortKeys(keys, top)
		if !slices.Equal(keys, want) {
			t.Fatalf("%d keys, counts up to %d: sorted %v, want %v", len(keys), top, keys, want)
		}
	}
}

// TestDescribeBits holds describe's count of a code's description to the
// bits emitComplex then writes, for codes over the alphabets of every
// kind: the count steers raiseRare, and a wrong one would pick its
// lengths by a wrong size.
func TestDescribeBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var hs huffScratch
	for range 500 {
		alpha := []int{18, 64, 256, 704}[rng.IntN(4)]
		hist := make([]uint32, alpha)
		for range 5 + rng.IntN(2000) {
			// Runs of used and unused symbols, and counts of every size.
			s := rng.IntN(alpha)
			if rng.IntN(3) == 0 {
				s = rng.IntN(min(alpha, 8))
			}
			hist[s] += 1 + uint32(rng.IntN(4))*uint32(rng.IntN(50))
		}
		lens := make([]uint8, alpha)
		codes := make([]uint32, alpha)
		n := hs.buildLengths(hist, 15, lens)
		if n <= 4 {
			continue // the simple form
		}
		syms := slices.Clone(hs.syms[:n])
		assignCodes(lens, codes, syms)
		want := hs.describe(lens, syms)
		var w bitWriter
		hs.emitComplex(&w)
		if got := w.bits(); got != want {
			t.Fatalf("%d symbols over %d: described in %d bits, written in %d", n, alpha, want, got)
		}
	}
}

// TestBuildLengthsOfUsed checks that the code built from a histogram's
// set of used symbols is the code built by scanning it, from one used
// symbol to all 704, clustered and spread, with counts past 2^16.
func TestBuildLengthsOfUsed(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	var scan, marked huffScratch
	for _, k := range []int{0, 1, 2, 5, 17, 64, 65, 300, maxAlphabet} {
		for round := range 20 {
			hist := make([]uint32, maxAlphabet)
			var used [maxAlphabet / 64]uint64
			for _, s := range rng.Perm(maxAlphabet)[:k] {
				if round%2 == 1 {
					s %= 80 // clustered at the start
				}
				hist[s] += 1 + rng.Uint32N(1<<(1+rng.IntN(19)))
				used[s/64] |= 1 << (s % 64)
			}
			want, got := make([]uint8, maxAlphabet), make([]uint8, maxAlphabet)
			n := scan.buildLengths(hist, 15, want)
			if m := marked.buildLengthsOf(hist, used[:], 15, got); m != n || !slices.Equal(got, want) ||
				!slices.Equal(marked.syms[:m], scan.syms[:n]) {
				t.Fatalf("%d symbols, round %d: %d used with lengths %v, want %d with %v", k, round, m, got, n, want)
			}
		}
	}
}

// TestBuildLengthsCost: hs.cost is what the counts cost with the lengths
// built, the sum of count times length, both where the merge's depths
// stand and where limitDepths lengthened them; where no length reached
// the limit, that is the least any prefix code costs (the sum of the
// weights a merge of the two lightest makes, whatever order it takes
// ties in), and a limited code never costs less.
func TestBuildLengthsCost(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	hists := [][]uint32{{}, {0, 7, 0}, {3, 9}, {1, 1, 2, 2}, fibHist(25), fibHist(40)}
	for k := range 300 {
		h := make([]uint32, 1+rng.IntN(maxAlphabet))
		spread := []int{2, 5, 1 << 10, 1 << 20}[k%4]
		for i := range h {
			if rng.IntN(3) != 0 {
				h[i] = uint32(rng.IntN(spread))
			}
		}
		hists = append(hists, h)
	}
	var hs huffScratch
	for _, hist := range hists {
		for _, limit := range []uint8{7, 15} {
			// limitDepths needs room for every used symbol.
			if used := len(hist) - count(hist, 0); used > 1<<limit {
				continue
			}
			lens := make([]uint8, len(hist))
			n := hs.buildLengths(hist, limit, lens)
			sum, deepest := 0, uint8(0)
			for s, c := range hist {
				sum += int(c) * int(lens[s])
				deepest = max(deepest, lens[s])
			}
			if hs.cost != sum {
				t.Fatalf("%d symbols, limit %d: cost %d, counts times lengths %d", n, limit, hs.cost, sum)
			}
			least := huffmanCost(hist)
			if sum < least || deepest < limit && sum != least {
				t.Fatalf("%d symbols, limit %d, deepest %d: cost %d, least %d", n, limit, deepest, sum, least)
			}
		}
	}
}

// count is how many of hist's counts are c.
func count(hist []uint32, c uint32) int {
	n := 0
	for _, h := range hist {
		if h == c {
			n++
		}
	}
	return n
}

// huffmanCost is the cost of an optimal prefix code for hist, merged the
// slow way: the two lightest weights of a sorted list, again and again.
func huffmanCost(hist []uint32) int {
	var ws []int
	for _, c := range hist {
		if c != 0 {
			ws = append(ws, int(c))
		}
	}
	slices.Sort(ws)
	cost := 0
	for len(ws) > 1 {
		m := ws[0] + ws[1]
		cost += m
		ws = ws[2:]
		i, _ := slices.BinarySearch(ws, m)
		ws = slices.Insert(ws, i, m)
	}
	return cost
}

// TestBuildLengthsTies: of a leaf and a made node of the same weight the
// merge takes the leaf first, as it always has: {1,1,2,2} then merges
// the two 2s rather than a 2 with the 1s' node, and every length is 2
// (taking the node first gives 3,3,2,1 at the same cost, and different
// output bytes).
func TestBuildLengthsTies(t *testing.T) {
	var hs huffScratch
	lens := make([]uint8, 4)
	hs.buildLengths([]uint32{1, 1, 2, 2}, 15, lens)
	if want := []uint8{2, 2, 2, 2}; !slices.Equal(lens, want) {
		t.Errorf("lengths %v, want %v", lens, want)
	}
}

// TestBuildLengthsTooManySymbols: more used symbols than a code of limit
// bits holds cannot be given lengths; no caller has such an alphabet,
// and buildLengths says so with a panic instead of looking for room for
// ever (it hung before).
func TestBuildLengthsTooManySymbols(t *testing.T) {
	hist := make([]uint32, 33)
	for i := range hist {
		hist[i] = uint32(i + 1)
	}
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		var hs huffScratch
		hs.buildLengths(hist, 5, make([]uint8, len(hist)))
	}()
	select {
	case p := <-done:
		if p == nil {
			t.Fatal("33 symbols got lengths of at most 5 bits")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("buildLengths of 33 symbols in 5 bits did not return")
	}
}
