package brotli

import (
	"bytes"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestContextModeling compresses literals whose distribution depends on
// the byte before (a letter is always followed by a digit and a digit by
// a letter, at random, so there is nothing to copy): from quality 5 the
// literals must be split into trees by context, and the output must come
// out well below what one tree achieves (quality 4).
func TestContextModeling(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(7, 8))
	in := make([]byte, 64<<10)
	for i := 0; i < len(in); i += 2 {
		in[i] = 'a' + byte(rng.IntN(26))
		in[i+1] = '0' + byte(rng.IntN(10))
	}
	one, _ := Encode(nil, in, Options{Quality: 4})
	for q := 5; q <= MaxQuality; q++ {
		enc, _ := NewEncoder(Options{Quality: q})
		comp := enc.Encode(nil, in)
		if enc.e.ctx.ntrees < 2 {
			t.Errorf("q%d: %d literal trees, want at least 2", q, enc.e.ctx.ntrees)
		}
		if len(comp) > len(one)*85/100 {
			t.Errorf("q%d: %d bytes, one tree (q4) %d", q, len(comp), len(one))
		}
		checkBoth(t, comp, in)
	}
}

// TestStaticContextMap holds qualities 5 and 6 to their fixed map of
// context ids to trees (staticMap) on a meta-block with enough literals:
// each byte is drawn, three times in four, from four that depend on the
// byte before (else from all), so that the clusterer would give each last
// byte's ids a tree (where the map joins some classes) and one tree to
// the ids the map splits by the byte before them. The trees must be the
// map's groups that have literals, ids sharing a tree exactly when the
// map groups them, and the stream must decode.
func TestStaticContextMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const chars = " \n\"%(),.:=09AZaebz-"
	in := make([]byte, 64<<10)
	last := 0
	for i := range in {
		if rng.IntN(4) == 0 {
			last = rng.IntN(len(chars))
		} else {
			last = (last*7 + rng.IntN(4)) % len(chars)
		}
		in[i] = chars[last]
	}
	for q := 5; q <= 6; q++ {
		enc, _ := NewEncoder(Options{Quality: q})
		comp := enc.Encode(nil, in)
		checkBoth(t, comp, in)
		checkStaticTrees(t, q, &enc.e.ctx, in)
	}
}

// TestStaticMapMixed codes, at 5 and 6, meta-blocks where random bytes
// (as compressed data looks) share the literals with JavaScript: before
// it, and in its middle. The static map's trees save little or nothing
// there against one tree, while one tree loses the script's contexts and
// the map's 16 trees each code the random bytes' 256 symbols; the
// clusterer keeps the script's contexts in a few trees. The literals
// must take more than one tree, and the output be no larger than the
// clustering's (one tree made the first 4.3-4.7% larger than Google's,
// the map the second 1.4% larger than the clustering).
func TestStaticMapMixed(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	random := make([]byte, 20_000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	jq := corpus(t)["jquery.min.js"]
	inputs := map[string][]byte{
		"before": slices.Concat(random, jq[:40_000]),
		"middle": slices.Concat(jq[:40_000], random, jq[40_000:]),
	}
	for name, in := range inputs {
		for q := 5; q <= 6; q++ {
			enc, _ := NewEncoder(Options{Quality: q})
			comp := enc.Encode(nil, in)
			checkBoth(t, comp, in)
			if n := enc.e.ctx.ntrees; n < 2 {
				t.Errorf("%s q%d: %d literal tree for the script's contexts", name, q, n)
			}
			clustered := encodeAltered(t, in, q, func(p *quality) { p.staticCtx = false })
			if len(comp) > len(clustered) {
				t.Errorf("%s q%d: %d bytes, clustered %d", name, q, len(comp), len(clustered))
			}
		}
	}
}

// TestAddCounts checks static's four-a-step sum of two rows of counts
// against one count a step.
func TestAddCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var dst, src, want [256]uint32
	sum := uint32(0)
	for b := range src {
		dst[b], src[b] = rng.Uint32N(1<<20), rng.Uint32N(1<<20)
		want[b] = dst[b] + src[b]
		sum += src[b]
	}
	if n := addCounts(&dst, &src); n != sum || dst != want {
		t.Fatalf("sum %d, want %d; rows equal: %v", n, sum, dst == want)
	}
}

// checkStaticTrees checks that c's trees for in are staticMap's groups.
func checkStaticTrees(t *testing.T, q int, c *ctxState, in []byte) {
	t.Helper()
	// The ids the input has literals in (a stream starts after two
	// zeros), and the trees the map names.
	var used [64]bool
	groups := map[uint8]bool{}
	p1, p2 := byte(0), byte(0)
	for _, b := range in {
		id := utf8Lut[0][p1] | utf8Lut[1][p2]
		used[id] = true
		groups[staticMap[id]] = true
		p2, p1 = p1, b
	}
	if c.ntrees != len(groups) {
		t.Fatalf("q%d: %d trees, the map groups the ids with literals into %d", q, c.ntrees, len(groups))
	}
	for a := range 64 {
		for b := range 64 {
			if used[a] && used[b] && (c.cmap[a] == c.cmap[b]) != (staticMap[a] == staticMap[b]) {
				t.Fatalf("q%d: ids %d and %d: trees %d and %d, map groups %d and %d", q, a, b, c.cmap[a], c.cmap[b], staticMap[a], staticMap[b])
			}
		}
	}
}

// TestBlockPlan splits a sequence whose symbols change at a chunk
// boundary: two block types, switching there.
func TestBlockPlan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	seq := make([]uint16, 2000)
	for i := range seq {
		seq[i] = uint16(rng.IntN(8))
		if i >= 8*minCmdChunk {
			seq[i] += 100
		}
	}
	var b blockSplit
	b.plan(seq, maxAlphabet, minCmdChunk, 8, 2, refinement{})
	if b.ntypes != 2 || len(b.runs) != 2 {
		t.Fatalf("%d types in %d runs, want 2 and 2", b.ntypes, len(b.runs))
	}
	if r := b.runs[0]; r.typ != 0 || r.n != 8*minCmdChunk {
		t.Errorf("first block: type %d, %d symbols", r.typ, r.n)
	}
	// Type 1 is the decoder's initial "type before the last": code 0.
	if r := b.runs[1]; r.typ != 1 || r.tsym != 0 || r.n != 2000-b.runs[0].n {
		t.Errorf("second block: type %d (code %d), %d symbols", r.typ, r.tsym, r.n)
	}
	// Uniform symbols stay one block type.
	for i := range seq {
		seq[i] = uint16(rng.IntN(8))
	}
	b.plan(seq, maxAlphabet, minCmdChunk, 8, 2, refinement{})
	if b.ntypes != 1 {
		t.Errorf("uniform sequence split into %d types", b.ntypes)
	}
}

// TestBlockRefine splits a sequence whose symbols change away from the
// chunk boundaries, and back: refined, the blocks switch where the
// symbols do (chunks alone cannot), with two types; a uniform sequence
// stays one type.
func TestBlockRefine(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	seq := make([]uint16, 3000)
	const from, to = 1000, 2100
	for i := range seq {
		seq[i] = uint16(rng.IntN(8))
		if i >= from && i < to {
			seq[i] += 100
		}
	}
	var b blockSplit
	b.plan(seq, maxAlphabet, minCmdChunk, 8, 2, refinement{rounds: 10, wide: 2, switchCost: cmdSwitchCost})
	if b.ntypes != 2 || len(b.runs) != 3 {
		t.Fatalf("%d types in %d runs, want 2 and 3", b.ntypes, len(b.runs))
	}
	want := []blockRun{{n: from, typ: 0}, {n: to - from, typ: 1}, {n: 3000 - to, typ: 0}}
	for k, r := range b.runs {
		if r.n != want[k].n || r.typ != want[k].typ {
			t.Errorf("block %d: type %d, %d symbols; want type %d, %d", k, r.typ, r.n, want[k].typ, want[k].n)
		}
	}
	// The types' counts are those of their blocks.
	if got := b.cl.clTotal[1]; got != to-from {
		t.Errorf("type 1 counts %d symbols, want %d", got, to-from)
	}
	for i := range seq {
		seq[i] = uint16(rng.IntN(8))
	}
	b.plan(seq, maxAlphabet, minCmdChunk, 8, 2, refinement{rounds: 10, wide: 2, switchCost: cmdSwitchCost})
	if b.ntypes != 1 || len(b.runs) != 1 {
		t.Errorf("uniform sequence split into %d types, %d runs", b.ntypes, len(b.runs))
	}
}

// TestBlockLenCode checks block count codes at the edges of their ranges
// (RFC 7932 section 6).
func TestBlockLenCode(t *testing.T) {
	for _, c := range []struct {
		n           uint32
		code, nbits uint8
		extra       uint32
	}{{1, 0, 2, 0}, {4, 0, 2, 3}, {5, 1, 2, 0}, {16, 3, 2, 3}, {17, 4, 3, 0}, {240, 15, 5, 31}, {241, 16, 6, 0}, {16624, 24, 13, 8191}, {16625, 25, 24, 0}, {1 << 24, 25, 24, 1<<24 - 16625}} {
		code, nbits, extra := blockLenCode(c.n)
		if code != c.code || nbits != c.nbits || extra != c.extra {
			t.Errorf("%d: code %d, %d bits, extra %d; want %d, %d, %d", c.n, code, nbits, extra, c.code, c.nbits, c.extra)
		}
	}
}

// TestBlockSplitting compresses a body whose two halves have different
// command statistics (short copies of a few words between random digits,
// then long copies of long words far apart): the commands or distances
// must be split into block types, and the stream decode.
func TestBlockSplitting(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(3, 4))
	short := []string{"ab", "cd", "ef", "gh"}
	var in []byte
	for len(in) < 40_000 {
		in = append(in, short[rng.IntN(len(short))]...)
		in = append(in, '0'+byte(rng.IntN(10)), '0'+byte(rng.IntN(10)))
	}
	long := make([][]byte, 200)
	for i := range long {
		long[i] = make([]byte, 24)
		for j := range long[i] {
			long[i][j] = 'A' + byte(rng.IntN(26))
		}
	}
	for len(in) < 120_000 {
		in = append(in, long[rng.IntN(len(long))]...)
		in = append(in, 'a'+byte(rng.IntN(26)))
	}
	for q := 5; q <= MaxQuality; q++ {
		enc, _ := NewEncoder(Options{Quality: q})
		comp := enc.Encode(nil, in)
		if enc.e.cmdSplit.ntypes < 2 && enc.e.distSplit.ntypes < 2 {
			t.Errorf("q%d: one block type for commands and for distances", q)
		}
		checkBoth(t, comp, in)
	}
}

// TestDeepSegments compresses text cut into segments at qualities 5 and
// up, with and without prefixes: a segment without a prefix does not know
// the two bytes before it, which literal contexts need, and stores them
// as they are first.
func TestDeepSegments(t *testing.T) {
	oneGoroutine(t)
	in := corpus(t)["jquery.min.js"][:60_000]
	cuts := []int{0, 1, 3, 5000, 5001, 20_000, 41_000, len(in)}
	for q := 5; q <= MaxQuality; q++ {
		for _, prefix := range []bool{false, true} {
			enc, _ := NewEncoder(Options{Quality: q, LGWin: 18})
			var stream []byte
			for k := 0; k+1 < len(cuts); k++ {
				seg := Segment{First: k == 0, Last: k+2 == len(cuts)}
				if prefix && k > 0 {
					seg.Prefix = in[:cuts[k]]
				}
				stream = enc.EncodeSegment(stream, in[cuts[k]:cuts[k+1]], seg)
			}
			if got := decodeAB(t, stream); !bytes.Equal(got, in) {
				t.Fatalf("q%d prefix %v: segments do not decode to the input (first difference at %d)", q, prefix, firstDiff(got, in))
			}
			checkBoth(t, stream, in)
		}
	}
}

// TestSmallBodyWays checks the size hint's choice of bucket depth at 5-9:
// a body up to 128 KiB gets half the ways in 8-byte buckets; a larger or
// unknown one gets the quality's own. Lazy searches look at the
// quality's lazyWays, at most the bucket (all of it at 9).
func TestSmallBodyWays(t *testing.T) {
	for _, c := range []struct {
		q, hint, ways, buckets, lazyWays int
	}{
		{5, 100 << 10, 8, 1 << 14, 8},
		{5, 200 << 10, 16, 1 << 14, 8},
		{6, 100 << 10, 16, 1 << 14, 8},
		{6, 128 << 10, 16, 1 << 14, 8},
		{6, 200 << 10, 32, 1 << 14, 8},
		{6, 0, 32, 1 << 14, 8},
		{7, 100 << 10, 32, 1 << 14, 16},
		{7, 200 << 10, 64, 1 << 14, 16},
		{9, 100 << 10, 64, 1 << 14, 64},
		{9, 0, 128, 1 << 15, 128},
		{9, 1 << 20, 128, 1 << 15, 128},
	} {
		var e encoder
		e.setup(Options{Quality: c.q}, 22, c.hint, true)
		if e.q.ways != c.ways || len(e.table) != c.ways*c.buckets {
			t.Errorf("quality %d, hint %d: %d ways, %d slots; want %d ways in %d buckets",
				c.q, c.hint, e.q.ways, len(e.table), c.ways, c.buckets)
		}
		// searchDeep walks the depth it is given: 0 would make its stop
		// the newest position and wrap the walk round the bucket's ring,
		// more than the bucket would see entries twice.
		if e.q.lazyWays != c.lazyWays || 1<<e.waysLog != e.q.ways {
			t.Errorf("quality %d, hint %d: lazy searches look at %d of %d ways (2^%d); want %d",
				c.q, c.hint, e.q.lazyWays, e.q.ways, e.waysLog, c.lazyWays)
		}
	}
}

// TestSparseSearch: where searches keep finding nothing, the deep finder
// searches every 4th position and then fewer (sparseStep), so data that
// does not repeat costs few searches, each entering its position: 64
// KiB of random bytes at quality 6 enter about 2,000 positions (with
// the step growing by one every 512 misses, as before, about 7,900).
func TestSparseSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	in := make([]byte, 64<<10)
	for k := range in {
		in[k] = byte(rng.Uint32())
	}
	enc, err := NewEncoder(Options{Quality: 6})
	if err != nil {
		t.Fatal(err)
	}
	comp := enc.Encode(nil, in)
	checkBoth(t, comp, in)
	entered := 0
	for _, c := range enc.e.heads {
		entered += int(c)
	}
	if entered > 4000 {
		t.Errorf("%d positions of %d random bytes entered: want at most 4,000", entered, len(in))
	}
	for misses, want := range map[int]int{0: 1, 63: 1, 64: 4, 95: 4, 96: 5, 64 + 32*10: 14} {
		if got := sparseStep(misses); got != want {
			t.Errorf("sparseStep(%d) = %d, want %d", misses, got, want)
		}
	}
}

// TestRingNeighbours: at quality 8 (ringCands 10) the deep finder tries
// the last distance ±1..3, and with ringCands 16 the second to last's
// too; a copy planted at each of those distances is found, with its
// length, where it is in reach (in the loads' fast case and in the
// case near the stream's start, where some are not), and one out of
// reach is not. Where several match as long, the first in
// neighbourDeltas' order of the first ring distance wins. Round trips
// pass without the neighbours: only this sees them lost.
func TestRingNeighbours(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const i, copyLen = 200, 12
	ring := distRing{d: [4]uint32{40, 70, 90, 100}, known: 4}
	for _, cands := range []int{10, 16} {
		e := &encoder{q: qualities[8]}
		e.q.ringCands = cands
		for j := range (cands - 4) / 6 {
			r := int(ring.d[j])
			for _, delta := range neighbourDeltas {
				d := r + int(delta)
				for _, reach := range []int{i, r + 3, d, d - 1} {
					data := make([]byte, i+64)
					for k := range data {
						data[k] = byte(rng.Uint32())
					}
					copy(data[i-d:], data[i:i+copyLen])
					got := e.ringNeighbours(data, i, &ring, uint32(reach), len(data)-i, match{})
					want := match{len: copyLen, dist: uint32(d), score: ringScore(copyLen)}
					if reach < d {
						want = match{}
					}
					if got != want {
						t.Errorf("ringCands %d, distance %d%+d, reach %d: got %+v, want %+v", cands, r, delta, reach, got, want)
					}
				}
			}
		}
		// Period 2: every even distance matches to the end.
		data := bytes.Repeat([]byte("ab"), (i+64)/2)
		odd := distRing{d: [4]uint32{41, 71, 91, 101}, known: 4}
		got := e.ringNeighbours(data, i, &odd, i, 64, match{})
		if want := (match{len: 64, dist: 40, score: ringScore(64)}); got != want {
			t.Errorf("ringCands %d, period 2: got %+v, want %+v", cands, got, want)
		}
		// A better match already found stays.
		m := match{len: 70, dist: 2, score: ringScore(70)}
		if got := e.ringNeighbours(data, i, &odd, i, 64, m); got != m {
			t.Errorf("ringCands %d: a better match given, got %+v", cands, got)
		}
	}
}

// TestDeepDictionaryStages: the deep finder tries the static and the
// raw dictionary at the lazy step's position too, not only at the
// position it searches first (both stages follow each searchDeep call
// in findMatchesDeep). At i, the window has a short copy ("~inf", or
// "~info" where a raw dictionary of over a MiB has the finder hash 5
// bytes) and, one byte on, "information" is a static dictionary word,
// which the lazy step must take. A raw dictionary's start (a MiB before
// its end: past what enters the tables, so only its index finds it)
// holds the text from i+1, which the lazy step must copy whole, or the
// text from i, which the first search must. At qualities 5-9.
func TestDeepDictionaryStages(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	noise := func(n int) []byte { // high bytes, unlike the text
		b := make([]byte, n)
		for k := range b {
			b[k] = 0x80 | byte(rng.Uint32())
		}
		return b
	}
	const text = "information is what the lazy step finds here"
	rawDict := func(start string) []byte {
		return slices.Concat([]byte(start), noise(rawFillSpan+1000))
	}
	for _, c := range []struct {
		name   string
		window string // the short copy's source
		raw    []byte
		next   bool // the copy starts at i+1, not i
		len    int  // how long it is, at least
		word   bool // whether it is a static dictionary word
	}{
		{"static, lazy", "~infz", nil, true, len("information"), true},
		{"raw, lazy", "~infoz", rawDict("\n" + text), true, len(text), false},
		{"raw, at i", "~infoz", rawDict("~" + text), false, len(text) + 1, false},
	} {
		in := slices.Concat(noise(20), []byte(c.window), noise(20))
		pos := len(in)
		if c.next {
			pos++
		}
		in = slices.Concat(in, []byte("~"+text), noise(30))
		var dict *Dictionary
		if c.raw != nil {
			dict = prepared(t, c.raw)
		}
		for q := 5; q <= 9; q++ {
			enc, err := NewEncoder(Options{Quality: q, Dictionary: dict})
			if err != nil {
				t.Fatal(err)
			}
			checkWithDict(t, c.name, enc.Encode(nil, in), c.raw, in)
			p, found := 0, false
			for _, cmd := range enc.e.cmds {
				p += int(cmd.insert)
				if p == pos {
					found = int(cmd.copy) >= c.len && cmd.dict == c.word
				}
				p += int(cmd.copy)
			}
			if !found {
				t.Errorf("%s, quality %d: no copy of %d bytes or more at %d (dictionary word %v): %+v", c.name, q, c.len, pos, c.word, enc.e.cmds)
			}
		}
	}
}

// TestCountOne checks countOne, which reads each literal's context from
// data, against countTypes with one block, which carries it along, on
// commands whose first inserts are shorter than, as long as and longer
// than the two bytes given by p1 and p2, from a stream's start and from
// within data.
func TestCountOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	data := make([]byte, 4096)
	for i := range data {
		data[i] = byte(rng.IntN(96) + 32)
	}
	for _, start := range []int{0, 1, 2, 37} {
		for first := range uint32(4) {
			cmds := []command{{insert: first, copy: 4}}
			p, nlits := start+int(first)+4, first
			for p < len(data)-64 {
				c := command{insert: uint32(rng.IntN(9)), copy: uint32(2 + rng.IntN(12))}
				cmds = append(cmds, c)
				p += int(c.insert + c.copy)
				nlits += c.insert
			}
			cmds = append(cmds, command{insert: uint32(len(data) - p)})
			nlits += uint32(len(data) - p)
			p1, p2 := byte(rng.Uint32()), byte(rng.Uint32())
			var got, want [64 << 8]uint32
			countOne(&utf8Lut, &got, cmds, data, start, p1, p2)
			countTypes(&utf8Lut, want[:], cmds, data, start, p1, p2, []blockRun{{n: nlits}})
			if got != want {
				t.Fatalf("start %d, first insert %d: the counts differ", start, first)
			}
		}
	}
}

// TestSearchDeepWalk compares searchDeep with a plain walk of the same
// bucket: a list of the distances to try, the ring's in reach, then every
// position of the bucket, newest first, down to depth or the first out
// of reach, each measured with matchLen and kept where it scores better
// (the bucket's walk ends at a match of niceLen). searchDeep skips candidates
// by the byte at the best length, measures from 8-byte loads, those that
// end within 16 bytes in next's walk and the longer ones in its own loop;
// none of that may change the match it finds. The data (letters from a small alphabet, with copies of up to
// 200 bytes, and at the end) gives full buckets, matches of every
// length and searches up to the last position a search may take (8
// bytes from the end), with matches that run to it. The walk is made
// twice: to the end of the data, and to 40 bytes before it, as a
// meta-block that ends inside its data (WriteLast's), where the copy
// at the end runs on past w.end and a load that took the data's end
// for the window's would measure past it.
func TestSearchDeepWalk(t *testing.T) {
	// next measures the matches that end within 16 bytes without the
	// walk's limit, which it takes to be above them.
	for q, p := range qualities {
		if p.deep && p.niceLen < 16 {
			t.Fatalf("quality %d: niceLen %d, below the 16 bytes bucketScan.next measures", q, p.niceLen)
		}
	}
	rng := rand.New(rand.NewPCG(41, 42))
	data := make([]byte, 0, 24<<10)
	for len(data) < cap(data)-256 {
		if len(data) > 300 && rng.IntN(3) == 0 {
			from := rng.IntN(len(data) - 256)
			data = append(data, data[from:from+1+rng.IntN(200)]...)
			continue
		}
		for range 1 + rng.IntN(20) {
			data = append(data, "abcdef"[rng.IntN(6)])
		}
	}
	// A copy at the end: matches that reach it, past 8 bytes.
	data = append(data, data[len(data)-500:][:100]...)
	data = data[:len(data):len(data)] // no load may pass the end
	// The copy at the end breaks off 4 bytes past the second walk's end:
	// a match measured past w.end would come out longer than the walk's.
	data[len(data)-36] ^= 0x20
	for _, end := range []int{len(data), len(data) - 40} {
		testSearchDeepWalk(t, data, end)
	}
}

// testSearchDeepWalk is TestSearchDeepWalk's walk of data with matches
// that stop at end, from an empty table.
func testSearchDeepWalk(t *testing.T, data []byte, end int) {
	rng := rand.New(rand.NewPCG(43, uint64(end)))
	const hashBits, ways = 6, 16 // few buckets: most are full
	mul := uint64(hashMul)
	e := &encoder{q: qualities[6], maxDist: 5000, hashShift: 64 - hashBits, hashMulLeft: mul << 32}
	e.table = make([]uint32, ways<<hashBits, ways<<hashBits+maxWays)
	e.heads = make([]uint16, 1<<hashBits)
	w := &window{data: data, base: 1 << 20, streamA: 1 << 20, end: end}
	sc := bucketScan[[ways]uint32]{data: w.data, base: w.base, end: w.end}
	walk := func(i int, ring *distRing, depth int) match {
		abs := w.base + uint32(i)
		reach := min(abs-w.streamA, e.maxDist)
		maxLen := w.end - i
		limitLen := min(maxLen, e.q.niceLen)
		// Every distance tried, in order, and what its distance costs:
		// a copy of l bytes scores 16*l less that.
		type try struct {
			d        uint32
			cost     int
			fromRing bool
		}
		var tries []try
		for k, d := range ring.d[:ring.known] {
			if d >= 1 && d <= reach {
				cost := 14 // a ring distance codes without extra bits
				if k == 0 {
					cost = 8 // the last distance, cheaper still
				}
				tries = append(tries, try{d, cost, true})
			}
		}
		h := e.bucket(load64(data, i))
		for n := 1; n <= depth; n++ {
			p := e.table[h*ways+int(e.heads[h]-uint16(n))%ways]
			if p < abs-reach {
				break
			}
			tries = append(tries, try{abs - p, 4*bits.Len32(abs-p) + 16, false})
		}
		var m match
		for _, t := range tries {
			if !t.fromRing && m.len >= limitLen {
				break // long enough: the bucket is not walked further
			}
			j := i - int(t.d)
			if !bytes.Equal(data[j:j+minMatch], data[i:i+minMatch]) {
				continue
			}
			l := minMatch + matchLen(data, j+minMatch, i+minMatch, maxLen-minMatch)
			if s := 16*l - t.cost; s > m.score {
				m = match{len: l, dist: t.d, score: s}
			}
		}
		return m
	}
	found := 0
	for i := 0; i <= end-8; i++ {
		// Entries past the known ones are 0, as findMatchesDeep keeps them.
		ring := distRing{known: rng.IntN(5)}
		for k := range ring.d[:ring.known] {
			ring.d[k] = uint32(1 + rng.IntN(min(i+10, 6000)))
		}
		depth := []int{1, 8, ways}[rng.IntN(3)]
		want := walk(i, &ring, depth)
		if got := searchDeep(e, w, i, &ring, &sc, depth); got != want {
			t.Fatalf("end %d, at %d (ring %v, depth %d): got %+v, want %+v", end, i, ring.d[:ring.known], depth, got, want)
		}
		if want.len > 0 {
			found++
		}
	}
	if found < end/4 {
		t.Errorf("end %d: matches found at %d of %d positions: the data repeats too little to test the walk", end, found, end)
	}
}

// TestDeepRingUnknown: the ring entries a segment does not know (past
// ring.known) play no part in the deep finder's choices, whatever they
// hold: searchDeep tests all four entries and relies on findMatchesDeep
// setting those to 0 in its copy. The data repeats at distances 11 and
// 15, two of the entries ring.reset leaves, so that entries taken for
// known change the commands (checked, lest the test pass for want of
// such copies).
func TestDeepRingUnknown(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(61, 62))
	data := make([]byte, 0, 32<<10)
	for len(data) < cap(data)-64 {
		for range 1 + rng.IntN(8) {
			data = append(data, byte(' '+rng.IntN(64)))
		}
		if len(data) < 400 {
			continue
		}
		d := []int{11, 15, 16 + rng.IntN(300)}[rng.IntN(3)]
		for range 4 + rng.IntN(6) {
			data = append(data, data[len(data)-d])
		}
	}
	find := func(q int, ring distRing) []command {
		var e encoder
		e.setup(Options{Quality: q}, 22, len(data), false)
		e.ring = ring
		w := &window{data: data, base: 1 << 20, streamA: 1 << 20, end: len(data), noDict: true}
		e.findDeep(w, 0)
		return e.cmds
	}
	stale := [4]uint32{4, 11, 15, 16} // what ring.reset(false) leaves
	for _, q := range []int{5, 6, 7, 9} {
		for known := range 4 {
			var zero distRing
			zero.known = known
			copy(zero.d[:known], stale[:known])
			want := find(q, zero)
			got := find(q, distRing{d: stale, known: known})
			if !slices.Equal(got, want) {
				t.Errorf("quality %d, %d known: the commands depend on the entries not known", q, known)
			}
		}
		if slices.Equal(find(q, distRing{d: stale, known: 4}), find(q, distRing{known: 0})) {
			t.Errorf("quality %d: the commands are the same with the ring known: the data tests nothing", q)
		}
	}
}
