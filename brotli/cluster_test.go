package brotli

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestClustererReuse runs one clusterer through uses of changing shape
// (block splits and literal contexts share the type), and checks that
// each use starts from zeroed counts and lists each item's symbols,
// totals and entropy as a full scan of its counts would.
func TestClustererReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var c clusterer
	alphas := []int{64, 124, 256, 704}
	for use := range 200 {
		n, alpha := 1+rng.IntN(64), alphas[rng.IntN(len(alphas))]
		hist := c.prepare(n, alpha)
		if i := slices.IndexFunc(hist[:n*alpha], func(v uint32) bool { return v != 0 }); i >= 0 {
			t.Fatalf("use %d (%d×%d): count %d is %d before filling", use, n, alpha, i, hist[i])
		}
		for i := range n {
			if rng.IntN(5) == 0 {
				continue // an item without symbols
			}
			for range rng.IntN(300) {
				s := rng.IntN(alpha)
				hist[i*alpha+s]++
			}
		}
		c.counted()
		for i := range n {
			row := hist[i*alpha : (i+1)*alpha]
			var syms []uint16
			total, sum := uint32(0), 0.0
			for s, v := range row {
				if v != 0 {
					syms = append(syms, uint16(s))
					total += v
					sum += xlog2x(v)
				}
			}
			got := c.syms[i*alpha : i*alpha+c.nsyms[i]]
			if !slices.Equal(got, syms) || c.total[i] != total || c.own[i] != float32(xlog2x(total)-sum) {
				t.Fatalf("use %d: item %d lists %v, total %d, own %v; its counts have %v, %d, %v",
					use, i, got, c.total[i], c.own[i], syms, total, float32(xlog2x(total)-sum))
			}
		}
		if rng.IntN(3) == 0 {
			c.run(4, 1, func(int) float64 { return 0 })
		}
	}
}

// TestClustererFreshRuns checks that a clusterer used before groups new
// items as a new one does: nothing kept for one run serves the next.
func TestClustererFreshRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var used clusterer
	const n, alpha = 48, 124
	for run := range 30 {
		counts := make([]uint32, n*alpha)
		for i := range n {
			lean := rng.IntN(alpha)
			for range 40 + rng.IntN(200) {
				counts[i*alpha+(lean+rng.IntN(1+i%6*8))%alpha]++
			}
		}
		rounds := 1 + run%2
		copy(used.prepare(n, alpha), counts)
		k := used.run(8, rounds, func(int) float64 { return 0 })
		var fresh clusterer
		copy(fresh.prepare(n, alpha), counts)
		if k2 := fresh.run(8, rounds, func(int) float64 { return 0 }); k != k2 || !slices.Equal(used.assign, fresh.assign) {
			t.Fatalf("run %d (%d rounds): %d clusters %v, a new clusterer %d %v", run, rounds, k, used.assign, k2, fresh.assign)
		}
	}
}

// TestClustererOwnBits checks that the bits an item costs with its own
// cluster's code, which run keeps between rounds, are those crossBits
// computes from the cluster's current table, as items move and tables are
// recomputed.
func TestClustererOwnBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var c clusterer
	const n, alpha, k = 32, 124, 4
	check := func(step string) {
		t.Helper()
		for i := range n {
			if c.total[i] == 0 {
				continue
			}
			if got, want := c.bitsOwn(i), c.crossBits(i, int(c.assign[i])); got != want {
				t.Fatalf("%s: item %d in cluster %d: kept %v bits, its code gives %v", step, i, c.assign[i], got, want)
			}
		}
	}
	for range 3 {
		hist := c.prepare(n, alpha)
		for i := range n {
			// Items of different leanings, so that the clusters' codes differ.
			lean := rng.IntN(alpha)
			for range 50 + rng.IntN(200) {
				hist[i*alpha+(lean+rng.IntN(1+i%8*4))%alpha]++
			}
		}
		c.run(k, 1, func(int) float64 { return 0 })
		// run leaves the items grouped; give every cluster a table.
		for i := range n {
			c.assign[i] = uint8(i % k)
		}
		c.rebuild(k)
		for tt := range k {
			c.costs(tt)
		}
		check("after the tables")
		for range 20 {
			i, to := rng.IntN(n), rng.IntN(k)
			from := int(c.assign[i])
			if from == to {
				continue
			}
			c.move(i, from, to)
			c.assign[i] = uint8(to)
			check("after a move")
			c.costs(from)
			c.costs(to)
			check("after recomputing the tables")
		}
	}
}

// TestClustererLookahead: with lookahead 1, run goes past a cluster that
// does not pay when the next one does. Three kinds of items, each over
// symbols of its own; the overhead makes two clusters cost more than
// one, and three cost nothing more.
func TestClustererLookahead(t *testing.T) {
	overhead := func(k int) float64 {
		if k == 2 {
			return 1e6
		}
		return 0
	}
	for _, c := range []struct {
		lookahead, want int
	}{{0, 1}, {1, 3}} {
		cl := clusterer{lookahead: c.lookahead}
		const n, alpha = 12, 64
		hist := cl.prepare(n, alpha)
		for i := range n {
			kind := i % 3
			for s := range 16 {
				hist[i*alpha+kind*16+s] = uint32(10 + s)
			}
		}
		if got := cl.run(8, 2, overhead); got != c.want {
			t.Errorf("lookahead %d: %d clusters, want %d", c.lookahead, got, c.want)
		}
	}
}

// TestClustererUsedSymbols checks what costs and clusterBits, which visit
// only the symbols some item counts (c.used), give against a scan of a
// cluster's whole row: the bits of each cluster, and the cost of each
// symbol an item counts, which is all crossBits looks up. The items draw
// from a few stretches of the alphabet, as commands and literals do.
func TestClustererUsedSymbols(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var c clusterer
	for use := range 100 {
		n, alpha := 2+rng.IntN(40), []int{256, 704}[use%2]
		hist := c.prepare(n, alpha)
		lo := rng.IntN(alpha / 2)
		for i := range n {
			span := 1 + rng.IntN(alpha/4)
			for range rng.IntN(400) {
				hist[i*alpha+(lo+i%3*span/2+rng.IntN(span))%alpha]++
			}
		}
		k := c.run(8, 2, func(k int) float64 { return float64(k) * 20 })
		for cl := range k {
			row := c.clHist[cl*alpha : (cl+1)*alpha]
			if got, want := c.clusterBits(cl), histBits(row, c.clTotal[cl]); got != want {
				t.Fatalf("use %d: cluster %d of %d: %v bits, a full scan %v", use, cl, k, got, want)
			}
			c.costs(cl)
			lt := log2u(max(c.clTotal[cl], 1))
			for i := range n {
				for _, s := range c.syms[i*alpha : i*alpha+c.nsyms[i]] {
					want := float32(lt + 2)
					if v := row[s]; v != 0 {
						want = float32(lt - log2u(v))
					}
					if got := c.cost[cl*costStride+int(s)]; got != want {
						t.Fatalf("use %d: cluster %d, symbol %d (item %d): cost %v, want %v", use, cl, s, i, got, want)
					}
				}
			}
		}
	}
}
