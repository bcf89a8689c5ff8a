package brotli

import (
	"math"
)

// clusterer groups histograms (of literal contexts, or of stretches of
// commands or distances) into a few clusters, each coded with one prefix
// code, when fewer codes cost less in all than the symbols lose to
// sharing them. It adds one cluster at a time, seeded with the item its
// cluster serves worst, and in a round or two moves to the new cluster
// every item that it codes in fewer bits than the item's own (with
// cross-entropy as the distance), as long as the estimated total shrinks
// (with lookahead, until that many clusters in a row have not made it
// shrink; it then keeps the best it saw).
type clusterer struct {
	n, alpha int
	hist     []uint32 // n × alpha counts
	total    []uint32
	syms     []uint16 // each item's symbols with a count: the first nsyms[i] of its row
	nsyms    []int
	// fcnt holds the counts of syms as float32, beside them: crossBits,
	// which runs for every item each cluster added, then reads one array
	// and converts nothing.
	fcnt []float32
	own  []float32 // each item's entropy: the bits of a code of its own
	// used lists, ascending, the symbols that some item counts: the only
	// ones a cluster can count and crossBits can look up, so that costs
	// and clusterBits visit them alone (a meta-block's literals use
	// about a third of the 256 bytes, its commands less of the 704).
	used    []uint16
	clHist  []uint32 // the clusters' counts, maxTrees × alpha
	clTotal [maxTrees]uint32
	clBits  [maxTrees]float64 // each cluster's estimated bits (clusterBits), kept by run
	moved   []uint16          // the items a round moved, with their old cluster
	cost    []float32         // per cluster, -log2 of each symbol's probability (unseen: 2 bits more than seen once), costStride apart
	// costVer numbers each cluster's cost table: costs gives it the next
	// value of gen, never reused. An item's bits with its own cluster's
	// code (crossBits), which the seed search and every round need, are
	// kept in ownBits with the cluster and table they were computed with,
	// and reused while both stand: most clusters keep their table from
	// one cluster added to the next.
	gen     uint64
	costVer [maxTrees]uint64
	ownBits []float32
	ownVer  []uint64
	ownT    []uint8
	assign  []uint8
	best    []uint8
	// lookahead is how many clusters in a row that do not pay for
	// themselves run adds before it stops (quality.lookahead): one that
	// does not can still seed one that does.
	lookahead int
}

// prepare makes room for n items over alpha symbols and returns their
// counts, zeroed, for the caller to fill before run.
func (c *clusterer) prepare(n, alpha int) []uint32 {
	// The last caller's counts go first. (A block split's counts were
	// once marked by a bit per item and symbol, so that this and counted
	// visited those alone; since splits take 16 chunks, not 64, the
	// marks cost more than the scans of 16 × 704 counts they saved.)
	clear(c.hist[:c.n*c.alpha])
	c.n, c.alpha = n, alpha
	c.hist = grow(c.hist, n*alpha)
	c.syms = grow(c.syms, n*alpha)
	c.used = grow(c.used, alpha)
	c.fcnt = grow(c.fcnt, n*alpha)
	c.total = grow(c.total, n)
	c.nsyms = grow(c.nsyms, n)
	c.own = grow(c.own, n)
	c.assign = grow(c.assign, n)
	c.best = grow(c.best, n)
	c.ownBits = grow(c.ownBits, n)
	c.ownVer = grow(c.ownVer, n)
	c.ownT = grow(c.ownT, n)
	if cap(c.moved) < 2*n {
		c.moved = make([]uint16, 0, 2*n)
	}
	c.clHist = grow(c.clHist, maxTrees*alpha)
	c.cost = grow(c.cost, maxTrees*costStride)
	return c.hist
}

// costStride is how far apart the clusters' cost tables lie: a power of
// two above every alphabet clustered (704 insert-and-copy symbols, 400
// distance symbols), so that crossBits indexes a table by the symbol
// masked, without a bounds check.
const costStride = 1024

// grow returns s with length n, reallocating only when it must.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// counted lists each item's symbols, in ascending order, and totals
// once its counts are in.
func (c *clusterer) counted() {
	for i := range c.n {
		row := c.hist[i*c.alpha : (i+1)*c.alpha]
		syms := c.syms[i*c.alpha:]
		ns := 0
		for s, v := range row {
			if v != 0 {
				syms[ns] = uint16(s)
				ns++
			}
		}
		n, sum := uint32(0), 0.0
		fcnt := c.fcnt[i*c.alpha : i*c.alpha+ns]
		for j, s := range syms[:ns] {
			v := row[s]
			n += v
			sum += xlog2x(v)
			fcnt[j] = float32(v)
		}
		c.total[i], c.nsyms[i] = n, ns
		c.own[i] = float32(xlog2x(n) - sum)
	}
}

// xlog2x is x*log2(x), 0 for 0.
func xlog2x(x uint32) float64 {
	return float64(x) * log2u(x)
}

// log2u is log2(x) for x > 0 (0 for 0): from a table for the small counts
// that most symbols of a meta-block have, else fastLog2. The clusterer
// takes it for every symbol of every cluster at each cluster added.
func log2u(x uint32) float64 {
	if x < uint32(len(log2Small)) {
		return float64(log2Small[x])
	}
	return fastLog2(float64(x))
}

// log2Small holds log2(i) for the counts below 4096 (log2Small[0] is 0).
var log2Small = func() (t [4096]float32) {
	for i := 1; i < len(t); i++ {
		t[i] = float32(math.Log2(float64(i)))
	}
	return t
}()

// fastLog2 is log2(x) for x > 0 within 1e-5: the exponent, and a
// polynomial for the mantissa in [1, 2). Clustering calls it for every
// symbol of every cluster in every round, where math.Log2 would dominate
// the time, and estimates need no more precision.
func fastLog2(x float64) float64 {
	b := math.Float64bits(x)
	exp := float64(int(b>>52&0x7ff) - 1023)
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52) // mantissa in [1, 2)
	t := m - 1
	// A degree-5 fit of log2(1+t) on [0, 1).
	return exp + t*(1.4425449+t*(-0.7181452+t*(0.4575485+t*(-0.2779042+t*(0.1217970+t*-0.0258411)))))
}

// treeBits estimates the bits of a stored prefix code with n symbols.
func treeBits(n int) float64 { return 40 + 4.5*float64(n) }

// rebuild recomputes the counts of clusters 0..k-1 from assign.
func (c *clusterer) rebuild(k int) {
	a := c.alpha
	clear(c.clHist[:k*a])
	clear(c.clTotal[:k])
	for i := range c.n {
		if c.total[i] == 0 {
			continue
		}
		t := int(c.assign[i])
		h := c.clHist[t*a : (t+1)*a]
		row := c.hist[i*a : (i+1)*a]
		for _, s := range c.syms[i*a : i*a+c.nsyms[i]] {
			h[s] += row[s]
		}
		c.clTotal[t] += c.total[i]
	}
}

// clusterBits is the estimated size in bits of cluster t: its symbols and
// its code.
func (c *clusterer) clusterBits(t int) float64 {
	a := c.alpha
	h := c.clHist[t*a : (t+1)*a]
	ns := 0
	sum := 0.0
	// histBits over the used symbols: the same terms in the same order.
	for _, s := range c.used {
		if v := h[s]; v != 0 {
			sum += xlog2x(v)
			ns++
		}
	}
	return xlog2x(c.clTotal[t]) - sum + treeBits(ns)
}

// histBits is the estimated size in bits of counts h, whose sum is total:
// its symbols and its code.
func histBits(h []uint32, total uint32) float64 {
	ns := 0
	sum := 0.0
	for _, v := range h {
		if v != 0 {
			sum += xlog2x(v)
			ns++
		}
	}
	return xlog2x(total) - sum + treeBits(ns)
}

// costs recomputes the cost of each symbol in cluster t from its counts.
func (c *clusterer) costs(t int) {
	a := c.alpha
	// A symbol a cluster has not seen yet costs 2 bits more than one seen
	// once: about what the longer code it would get costs.
	lt := log2u(max(c.clTotal[t], 1))
	unseen := float32(lt + 2)
	c.gen++
	c.costVer[t] = c.gen
	cost := (*[costStride]float32)(c.cost[t*costStride:])
	h := c.clHist[t*a : (t+1)*a]
	for _, s := range c.used {
		if v := h[s]; v == 0 {
			cost[s&(costStride-1)] = unseen
		} else {
			cost[s&(costStride-1)] = float32(lt - log2u(v))
		}
	}
}

// move takes item i's counts out of cluster from and into cluster to.
func (c *clusterer) move(i, from, to int) {
	a := c.alpha
	row := c.hist[i*a : (i+1)*a]
	hf, ht := c.clHist[from*a:(from+1)*a], c.clHist[to*a:(to+1)*a]
	for _, s := range c.syms[i*a : i*a+c.nsyms[i]] {
		hf[s] -= row[s]
		ht[s] += row[s]
	}
	c.clTotal[from] -= c.total[i]
	c.clTotal[to] += c.total[i]
}

// crossBits is what item i's symbols cost with cluster t's code.
func (c *clusterer) crossBits(i, t int) float32 {
	o := i * c.alpha
	syms := c.syms[o : o+c.nsyms[i]]
	fcnt := c.fcnt[o : o+len(syms)]
	cost := (*[costStride]float32)(c.cost[t*costStride:])
	sum := float32(0)
	for j, s := range syms {
		sum += fcnt[j] * cost[s&(costStride-1)]
	}
	return sum
}

// bitsOwn is crossBits(i, assign[i]), from ownBits when the cluster's
// cost table has not changed since it was computed.
func (c *clusterer) bitsOwn(i int) float32 {
	t := c.assign[i]
	if c.ownT[i] == t && c.ownVer[i] == c.costVer[t] {
		return c.ownBits[i]
	}
	b := c.crossBits(i, int(t))
	c.ownBits[i], c.ownVer[i], c.ownT[i] = b, c.costVer[t], t
	return b
}

// single makes one cluster whose counts are h, the items' sum, which the
// caller has counted without them (ctxState.countFlat); it returns 1. It
// leaves n and alpha those of the last prepare, whose counts that prepare
// clears.
func (c *clusterer) single(h []uint32) int {
	c.clHist = grow(c.clHist, maxTrees*len(h))
	copy(c.clHist, h)
	return 1
}

// run groups the items into at most limit clusters; overhead(k) is
// what using k clusters costs besides their codes (a context map, block
// switches; it may read assign). It leaves the clusters numbered in order
// of first use in assign, their counts in clHist, and returns how many.
// Each cluster added gets rounds rounds (at least one: a new cluster's
// code is computed in its first round).
func (c *clusterer) run(limit, rounds int, overhead func(k int) float64) int {
	clear(c.assign)
	if limit <= 1 {
		// One cluster: the sum of the items, without the symbol lists
		// and costs that choosing clusters needs (small bodies).
		a := c.alpha
		h := c.clHist[:a]
		copy(h, c.hist[:a])
		for i := 1; i < c.n; i++ {
			for s, v := range c.hist[i*a : (i+1)*a] {
				h[s] += v
			}
		}
		return 1
	}
	c.counted()
	c.rebuild(1)
	// Cluster 0 holds every item's counts.
	c.used = c.used[:0]
	for s, v := range c.clHist[:c.alpha] {
		if v != 0 {
			c.used = append(c.used, uint16(s))
		}
	}
	c.costs(0)
	c.clBits[0] = c.clusterBits(0)
	k := 1
	cost := c.clBits[0] + overhead(1)
	// The clusters whose counts changed after their costs were last
	// computed: the next seed is chosen with the costs as they stand, and
	// these are brought up to date when the next round starts.
	stale := uint32(0)
	copy(c.best, c.assign)
	fails := 0 // clusters added since the last that paid
	for k < min(limit, maxTrees) {
		seed, worst := -1, float32(0)
		for i := range c.n {
			if c.total[i] < 32 {
				continue
			}
			if loss := c.bitsOwn(i) - c.own[i]; loss > worst {
				seed, worst = i, loss
			}
		}
		if seed < 0 {
			break
		}
		// The counts of clusters 0..k-1 are those of assign; the new
		// cluster starts with the seed. Only the clusters that lose items
		// to it change: their counts, costs and bits are updated alone.
		a := c.alpha
		clear(c.clHist[k*a : (k+1)*a])
		c.clTotal[k] = 0
		changed := stale | 1<<k | 1<<c.assign[seed] // since their costs
		dirty := uint32(1)<<k | 1<<c.assign[seed]   // since their bits
		c.move(seed, int(c.assign[seed]), k)
		c.assign[seed] = uint8(k)
		k++
		for range rounds {
			for t := range k {
				if changed>>t&1 != 0 {
					c.costs(t)
				}
			}
			// The new cluster against each item's own: the others'
			// codes barely move when one cluster is added.
			c.moved = c.moved[:0]
			for i := range c.n {
				if c.total[i] == 0 || int(c.assign[i]) == k-1 {
					continue
				}
				if c.crossBits(i, k-1) < c.bitsOwn(i) {
					c.moved = append(c.moved, uint16(i), uint16(c.assign[i]))
				}
			}
			changed = 0
			for j := 0; j < len(c.moved); j += 2 {
				i, from := int(c.moved[j]), int(c.moved[j+1])
				c.move(i, from, k-1)
				c.assign[i] = uint8(k - 1)
				changed |= 1<<from | 1<<(k-1)
			}
			dirty |= changed
		}
		stale = changed
		bits := 0.0
		for t := range k {
			if dirty>>t&1 != 0 {
				c.clBits[t] = c.clusterBits(t)
			}
			bits += c.clBits[t]
		}
		next := bits + overhead(k)
		if next >= cost {
			if fails++; fails > c.lookahead {
				break
			}
			continue
		}
		fails = 0
		cost = next
		copy(c.best, c.assign)
	}
	copy(c.assign, c.best)
	// Number the clusters in order of first use, dropping empty ones.
	var renum [maxTrees]uint8
	for i := range renum {
		renum[i] = 0xff
	}
	n := 0
	for i := range c.n {
		if c.total[i] == 0 {
			continue
		}
		t := c.assign[i]
		if renum[t] == 0xff {
			renum[t] = uint8(n)
			n++
		}
		c.assign[i] = renum[t]
	}
	n = max(n, 1)
	c.rebuild(n)
	return n
}
