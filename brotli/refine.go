package brotli

import "math"

// Refined block splitting (qualities 10 and up). The symbols start in
// many short contiguous stretches, one type each; rounds of a shortest
// path then give every symbol the type whose code serves it best, a change
// of type costing a switch; and types are joined, the pair whose single
// code saves most first, until no join pays and at most the limit remain.
// Starting from many types finds the few that differ (an embedded image,
// a table of numbers, a stretch of near copies) wherever they are, which
// clustering fixed chunks did not.

// maxRefineTypes bounds the types a refined split starts from;
// refineSpan is the fewest symbols that start with a type of their own;
// before the first rounds the starting types are joined down to
// wideTypes, the pairs that lose least first (a round costs a step per
// symbol and type); and rounds stop once fewer than one symbol in
// settleShare changes type.
const (
	maxRefineTypes = 64
	refineSpan     = 256
	wideTypes      = 16
	settleShare    = 500
)

// refinement says how a split is refined: rounds of assignment in all,
// the first wide of them before the types are joined down to the limit,
// a switch of type priced at switchCost bits. No rounds: chunks are
// clustered instead (qualities 5-9).
type refinement struct {
	rounds, wide int
	switchCost   float32
}

// refineScratch is the working memory of refineSplit, kept for reuse.
type refineScratch struct {
	types    []uint8  // each symbol's type
	switched []uint16 // per symbol, the types whose path switched there (assign runs with wideTypes at most)
	from     []uint8  // per symbol, the type a switch there came from
	hist     []uint32 // the types' counts, maxRefineTypes × alpha
	total    [maxRefineTypes]uint32
	cost     []float32 // symbol-major: cost[s*k+t]
	own      [maxRefineTypes]float64
	// between[x][y] (x < y) counts the switches between types x and y.
	between [maxRefineTypes][maxRefineTypes]int32
	gain    [maxRefineTypes][maxRefineTypes]float64
}

// refineSplit splits seq (symbols below alpha) into at most limit types
// as r says. It leaves each symbol's type in b.rs.types, numbered in
// order of first use, and the types' counts in b.cl.clHist and clTotal.
func (b *blockSplit) refineSplit(seq []uint16, alpha, limit int, r refinement) {
	rs := &b.rs
	n := len(seq)
	limit = min(limit, maxTrees)
	rs.types = grow(rs.types, n)
	rs.switched = grow(rs.switched, n)
	rs.from = grow(rs.from, n)
	rs.hist = grow(rs.hist, maxRefineTypes*alpha)
	k := min(maxRefineTypes, n/refineSpan+1)
	for i := range n {
		rs.types[i] = uint8(i * k / n)
	}
	k = rs.count(seq, alpha)
	if rs.join(alpha, k, wideTypes, wideTypes, r.switchCost) {
		k = rs.count(seq, alpha)
	}
	for range r.wide {
		rs.assign(seq, alpha, k, r.switchCost)
		k = rs.count(seq, alpha)
	}
	if rs.join(alpha, k, limit, 1, r.switchCost) {
		k = rs.count(seq, alpha)
	}
	for range r.rounds - r.wide {
		if k < 2 {
			break
		}
		moved := rs.assign(seq, alpha, k, r.switchCost)
		k = rs.count(seq, alpha)
		if !moved {
			break
		}
	}
	if rs.join(alpha, k, limit, 1, r.switchCost) {
		k = rs.count(seq, alpha)
		if k > 1 {
			rs.assign(seq, alpha, k, r.switchCost)
			k = rs.count(seq, alpha)
		}
	}
	b.cl.prepare(1, alpha)
	copy(b.cl.clHist[:k*alpha], rs.hist[:k*alpha])
	clear(b.cl.clTotal[:])
	copy(b.cl.clTotal[:k], rs.total[:k])
	b.ntypes = k
}

// count numbers the types of rs.types in order of first use, dropping
// those without symbols, counts their symbols and returns how many there
// are.
func (rs *refineScratch) count(seq []uint16, alpha int) int {
	var renum [maxRefineTypes]uint8
	for i := range renum {
		renum[i] = 0xff
	}
	clear(rs.hist)
	clear(rs.total[:])
	k := 0
	for i, s := range seq {
		t := rs.types[i]
		if renum[t] == 0xff {
			renum[t] = uint8(k)
			k++
		}
		t = renum[t]
		rs.types[i] = t
		rs.hist[int(t)*alpha+int(s)]++
		rs.total[t]++
	}
	return k
}

// assign gives each symbol the type of the cheapest path through
// (symbol, type): each symbol costs what its type's code takes for it
// (from the counts), and a change of type switchCost. One running cost
// per type is kept; where a type is cheaper reached by a switch from the
// best type so far, the switch is noted, and the path is read back from
// the cheapest end. It reports whether more than one symbol in
// settleShare changed type.
func (rs *refineScratch) assign(seq []uint16, alpha, k int, switchCost float32) bool {
	rs.cost = grow(rs.cost, alpha*k)
	for t := range k {
		lt := log2u(max(rs.total[t], 1))
		// A symbol the type has not seen costs 2 bits more than one
		// seen once (as the clusterer prices it).
		unseen := float32(lt + 2)
		for s, v := range rs.hist[t*alpha : (t+1)*alpha] {
			c := unseen
			if v != 0 {
				c = float32(lt - log2u(v))
			}
			rs.cost[s*k+t] = c
		}
	}
	var acc [maxRefineTypes]float32
	best := 0
	for i, s := range seq {
		floor := acc[best] + switchCost
		row := rs.cost[int(s)*k : int(s)*k+k]
		mask, nb, nv := uint16(0), 0, float32(math.MaxFloat32)
		for t, c := range row {
			v := acc[t]
			if v > floor {
				v = floor
				mask |= 1 << t
			}
			v += c
			acc[t] = v
			if v < nv {
				nb, nv = t, v
			}
		}
		rs.switched[i], rs.from[i] = mask, uint8(best)
		best = nb
	}
	t := best
	changed := 0
	for i := len(seq) - 1; i >= 0; i-- {
		if rs.types[i] != uint8(t) {
			changed++
		}
		rs.types[i] = uint8(t)
		if rs.switched[i]>>t&1 != 0 {
			t = int(rs.from[i])
		}
	}
	return changed*settleShare > len(seq)
}

// pairBits is histBits of types x and y as one.
func (rs *refineScratch) pairBits(alpha, x, y int) float64 {
	hy := rs.hist[y*alpha : (y+1)*alpha]
	ns := 0
	sum := 0.0
	for s, v := range rs.hist[x*alpha : (x+1)*alpha] {
		if v += hy[s]; v != 0 {
			sum += xlog2x(v)
			ns++
		}
	}
	return xlog2x(rs.total[x]+rs.total[y]) - sum + treeBits(ns)
}

// join merges the k types pairwise, the pair whose one code saves most
// (their codes less the joined code, plus the switches between them)
// first, while a join saves bits or more than limit types remain, and
// more than floor do. The types of the symbols are relabelled; it reports
// whether any were joined.
func (rs *refineScratch) join(alpha, k, limit, floor int, switchCost float32) bool {
	if k < 2 {
		return false
	}
	clear(rs.between[:k])
	prev := rs.types[0]
	for _, t := range rs.types[1:] {
		if t != prev {
			rs.between[min(t, prev)][max(t, prev)]++
			prev = t
		}
	}
	for t := range k {
		rs.own[t] = histBits(rs.hist[t*alpha:(t+1)*alpha], rs.total[t])
	}
	gain := func(x, y int) float64 {
		return rs.own[x] + rs.own[y] + float64(rs.between[x][y])*float64(switchCost) - rs.pairBits(alpha, x, y)
	}
	for x := range k {
		for y := x + 1; y < k; y++ {
			rs.gain[x][y] = gain(x, y)
		}
	}
	// label maps the types that started to the ones left: alive types
	// keep their number, a joined one takes the number of its partner.
	var label [maxRefineTypes]uint8
	var gone [maxRefineTypes]bool
	for t := range label {
		label[t] = uint8(t)
	}
	left := k
	for left > 1 {
		bx, by, bg := -1, -1, math.Inf(-1)
		for x := range k {
			if gone[x] {
				continue
			}
			for y := x + 1; y < k; y++ {
				if !gone[y] && rs.gain[x][y] > bg {
					bx, by, bg = x, y, rs.gain[x][y]
				}
			}
		}
		if bg <= 0 && left <= limit || left <= floor {
			break
		}
		// y joins x.
		hx, hy := rs.hist[bx*alpha:(bx+1)*alpha], rs.hist[by*alpha:(by+1)*alpha]
		for s, v := range hy {
			hx[s] += v
		}
		rs.total[bx] += rs.total[by]
		gone[by] = true
		left--
		for t := range k {
			if gone[t] || t == bx {
				continue
			}
			a, c := min(by, t), max(by, t)
			rs.between[min(bx, t)][max(bx, t)] += rs.between[a][c]
		}
		for t := range label {
			if int(label[t]) == by {
				label[t] = uint8(bx)
			}
		}
		rs.own[bx] = histBits(hx, rs.total[bx])
		for t := range k {
			if !gone[t] && t != bx {
				rs.gain[min(bx, t)][max(bx, t)] = gain(min(bx, t), max(bx, t))
			}
		}
	}
	if left == k {
		return false
	}
	for i, t := range rs.types {
		rs.types[i] = label[t]
	}
	return true
}
