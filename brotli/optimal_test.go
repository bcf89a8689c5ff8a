package brotli

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/cputime"
)

// TestOptimalSmaller: the optimal parse makes quality 10 smaller than 9
// and 11 smaller than 10, summed over the corpus, and each output decodes.
func TestOptimalSmaller(t *testing.T) {
	oneGoroutine(t)
	files, names := corpusNames(t)
	var sum [MaxQuality + 1]int
	for _, q := range []int{9, 10, 11} {
		for _, name := range names {
			if slowAt(MaxQuality, len(files[name])) {
				continue
			}
			comp, err := Encode(nil, files[name], Options{Quality: q})
			if err != nil {
				t.Fatal(err)
			}
			checkBoth(t, comp, files[name])
			sum[q] += len(comp)
		}
	}
	if sum[10] >= sum[9] || sum[11] >= sum[10] {
		t.Errorf("corpus at 9, 10, 11: %d, %d, %d bytes", sum[9], sum[10], sum[11])
	}
}

// TestOptimalTreeMatches: every match the tree reports at a position is
// real, longer than the one before, within reach and no longer than
// asked, on input with long repeats, near repeats and noise.
func TestOptimalTreeMatches(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(3, 4))
	data := make([]byte, 0, 200_000)
	for len(data) < 190_000 {
		switch rng.IntN(3) {
		case 0: // noise
			for range 1 + rng.IntN(40) {
				data = append(data, byte('a'+rng.IntN(4)))
			}
		default: // a copy of something earlier, perhaps far back
			if len(data) > 10 {
				from := rng.IntN(len(data))
				n := min(len(data)-from, 1+rng.IntN(600))
				data = append(data, data[from:from+n]...)
			}
		}
	}
	enc, err := NewEncoder(Options{Quality: 11})
	if err != nil {
		t.Fatal(err)
	}
	e := &enc.e
	e.setup(enc.opts, 22, len(data), true)
	base := e.claim(len(data))
	var out []optMatch
	for i := 0; i+8 <= len(data); i++ {
		reach := min(uint32(i), e.maxDist)
		maxLen := min(len(data)-i, 1000)
		out = e.treeInsert(data, i, base+uint32(i), reach, maxLen, e.q.niceLen, e.q.treeDepth, 1, out[:0])
		prev := 1
		for _, m := range out {
			d := int(m.dist)
			if d < 1 || uint32(d) > reach || int(m.len) <= prev || int(m.len) > maxLen {
				t.Fatalf("at %d: match %+v after length %d (reach %d, max %d)", i, m, prev, reach, maxLen)
			}
			if !bytes.Equal(data[i-d:i-d+int(m.len)], data[i:i+int(m.len)]) {
				t.Fatalf("at %d: %d bytes at distance %d differ", i, m.len, d)
			}
			prev = int(m.len)
		}
	}
}

// TestOptimalLongRuns: runs and short periods, where every position has
// a copy as long as the body, take linear time (four times the input, at
// most about four times as long): the parse takes such a copy whole and
// does not search the positions inside it. The times are the thread's
// processor time, the least of interleaved repeats: on a loaded machine
// the longer run is preempted more often, which the wall clock would
// charge it.
func TestOptimalLongRuns(t *testing.T) {
	oneGoroutine(t)
	for name, unit := range map[string]string{"run": "a", "period-2": "ab", "period-9": "abcdefghi"} {
		var runs [2]func()
		for k, n := range []int{32 << 10, 128 << 10} {
			in := bytes.Repeat([]byte(unit), n/len(unit))
			comp, err := Encode(nil, in, Options{Quality: 11})
			if err != nil {
				t.Fatal(err)
			}
			if len(comp) > 100 {
				t.Errorf("%s, %d bytes: %d compressed", name, len(in), len(comp))
			}
			checkBoth(t, comp, in)
			runs[k] = func() { Encode(nil, in, Options{Quality: 11}) }
		}
		took := cputime.Least(3, runs[:]...)
		// Quadratic work would take 16 times as long.
		if took[1] > 8*took[0]+50*time.Millisecond {
			t.Errorf("%s: %v for 32 KiB, %v for 128 KiB", name, took[0], took[1])
		}
	}
}

// TestOptimalTreeGrows: a Writer that is not told the body's length
// starts with a small tree and grows it with the stream, entering the
// positions it already has again: a repeat of 600 KB of noise found 600
// KB back is coded as a copy, and a short body does not pay for a tree
// the size of the window.
func TestOptimalTreeGrows(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(5, 6))
	noise := make([]byte, 600<<10)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	in := append(append([]byte{}, noise...), noise...)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Options{Quality: 10, LGWin: 24})
	if err != nil {
		t.Fatal(err)
	}
	for p := in; len(p) > 0; p = p[min(len(p), 100<<10):] {
		w.Write(p[:min(len(p), 100<<10)])
	}
	w.Close()
	if buf.Len() > len(noise)+len(noise)/50 {
		t.Errorf("%d bytes of noise twice: %d compressed", len(in), buf.Len())
	}
	checkBoth(t, buf.Bytes(), in)

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	small, err := NewWriter(io.Discard, Options{Quality: 11, LGWin: 24})
	if err != nil {
		t.Fatal(err)
	}
	small.Write([]byte("a short body, a short body"))
	small.Close()
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
		t.Errorf("a short body at 11 with a 24-bit window: %d bytes allocated", n)
	}
}

// encodeAltered encodes in at quality q with that quality's settings
// changed by alter for the call, restored when it returns, panic or not.
// The settings are the package's: no test that runs alongside (t.Parallel)
// may call it.
func encodeAltered(t *testing.T, in []byte, q int, alter func(*quality)) []byte {
	t.Helper()
	saved := qualities[q]
	defer func() { qualities[q] = saved }()
	alter(&qualities[q])
	out, err := Encode(nil, in, Options{Quality: q})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// mixedLiterals is text whose literals change character in the middle:
// words of a small alphabet, then hexadecimal digits, then words again,
// each stretch with few repeats, so that most of it is coded as literals.
func mixedLiterals(seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	var b bytes.Buffer
	words := func(n int) {
		for b.Len() < n {
			for range 2 + rng.IntN(7) {
				b.WriteByte("etaoinshrdlu"[rng.IntN(12)])
			}
			b.WriteByte(' ')
		}
	}
	words(40 << 10)
	for end := b.Len() + 40<<10; b.Len() < end; {
		b.WriteByte("0123456789abcdef"[rng.IntN(16)])
		if rng.IntN(20) == 0 {
			b.WriteString(", #")
		}
	}
	words(b.Len() + 40<<10)
	return b.Bytes()
}

// TestLiteralBlockTypes: at 10 and 11 literals of different character
// get block types of their own, which make the output smaller than one
// type would, and decode.
func TestLiteralBlockTypes(t *testing.T) {
	oneGoroutine(t)
	in := mixedLiterals(1)
	for _, q := range []int{10, 11} {
		enc, err := NewEncoder(Options{Quality: q})
		if err != nil {
			t.Fatal(err)
		}
		typed := enc.Encode(nil, in)
		checkBoth(t, typed, in)
		if n := enc.e.ctx.ntypes; n < 2 {
			t.Errorf("quality %d: %d literal block types", q, n)
		}
		one := encodeAltered(t, in, q, func(q *quality) { q.litTypes = 0 })
		checkBoth(t, one, in)
		if len(typed) >= len(one) {
			t.Errorf("quality %d: %d bytes with literal block types, %d without", q, len(typed), len(one))
		}
	}
}

// TestTypedLiteralCosts: quality 10's parse prices literals by the block
// types of its quick parse's literals, which on literals of changing
// character makes the output smaller than prices from all of them.
func TestTypedLiteralCosts(t *testing.T) {
	oneGoroutine(t)
	in := mixedLiterals(2)
	typed, err := Encode(nil, in, Options{Quality: 10})
	if err != nil {
		t.Fatal(err)
	}
	flat := encodeAltered(t, in, 10, func(q *quality) { q.typedCosts = false })
	checkBoth(t, typed, in)
	if len(typed) >= len(flat) {
		t.Errorf("%d bytes with typed literal costs, %d without", len(typed), len(flat))
	}
}

// TestDistanceContexts: from quality 10 the distances of short copies,
// here all near, and of long ones, all far, get trees of their own
// through the distance contexts (RFC 7932 section 7.2).
func TestDistanceContexts(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(5, 6))
	var b bytes.Buffer
	for b.Len() < 200<<10 {
		switch n := b.Len(); {
		case n > 64<<10 && rng.IntN(4) == 0:
			// A long copy from far back.
			from := rng.IntN(n - 48<<10)
			b.Write(bytes.Clone(b.Bytes()[from : from+20+rng.IntN(40)]))
		case n > 8 && rng.IntN(3) == 0:
			// Two bytes from just before.
			d := 2 + rng.IntN(6)
			b.Write(bytes.Clone(b.Bytes()[n-d : n-d+2]))
		default:
			for range 3 + rng.IntN(5) {
				b.WriteByte(byte(rng.IntN(256)))
			}
		}
	}
	in := b.Bytes()
	enc, err := NewEncoder(Options{Quality: 11})
	if err != nil {
		t.Fatal(err)
	}
	out := enc.Encode(nil, in)
	checkBoth(t, out, in)
	e := &enc.e
	split := false
	for typ := range e.distSplit.ntypes {
		m := e.dmap[typ*4 : typ*4+4]
		split = split || m[0] != m[3]
	}
	if !split {
		t.Errorf("distance contexts share their trees: map %v, %d trees", e.dmap[:4*e.distSplit.ntypes], e.dtrees)
	}
}

// TestOptimalPieces: a meta-block longer than parseSpan is parsed a piece
// at a time; the literals that end a piece (here random bytes across the
// boundary) join the next piece's first command. The output decodes, streamed and with a window smaller
// than the meta-block too, and is smaller than meta-blocks of one piece.
func TestOptimalPieces(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(8, 9))
	base := mixedLiterals(3)
	var b bytes.Buffer
	for b.Len() < 3*parseSpan {
		if b.Len() > parseSpan-300 && b.Len() < parseSpan+300 {
			for range 600 {
				b.WriteByte(byte(rng.IntN(256)))
			}
		}
		from := rng.IntN(len(base) - 4096)
		b.Write(base[from : from+256+rng.IntN(3000)])
	}
	in := b.Bytes()
	for _, q := range []int{10, 11} {
		out, err := Encode(nil, in, Options{Quality: q})
		if err != nil {
			t.Fatal(err)
		}
		checkBoth(t, out, in)
		var s bytes.Buffer
		w, err := NewWriter(&s, Options{Quality: q, LGWin: 18})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(in)
		w.Close()
		checkBoth(t, s.Bytes(), in)
		short := encodeAltered(t, in, q, func(q *quality) { q.blockBits = 18 })
		if len(out) >= len(short) {
			t.Errorf("quality %d: %d bytes in long meta-blocks, %d in meta-blocks of one piece", q, len(out), len(short))
		}
	}
}

// codeTable is text like the mapping tables of character encodings: lines
// of JSON, each a code and a run of characters with consecutive code
// points (Chinese, Japanese kana and Korean), so that neighbouring
// characters share their first UTF-8 bytes.
func codeTable(lines int) []byte {
	rng := rand.New(rand.NewPCG(11, 12))
	var b bytes.Buffer
	b.WriteString("[\n")
	for k := range lines {
		start := []rune{0x3041, 0x30a1, 0x4e00, 0xac00}[k%4] + rune(rng.IntN(2000))
		fmt.Fprintf(&b, "[\"%x\",\"", 0xa1a1+k*94)
		for r := range rune(20 + rng.IntN(60)) {
			b.WriteRune(start + r)
		}
		b.WriteString("\"],\n")
	}
	b.WriteString("]\n")
	return b.Bytes()
}

// TestNearPairs: in text of multi-byte characters, quality 11 is offered
// copies of 2 bytes from the characters just before, which code a run of
// characters with consecutive code points smaller than literals do; text
// that is mostly ASCII is not searched for them.
func TestNearPairs(t *testing.T) {
	oneGoroutine(t)
	in := codeTable(400)
	if !multiByteText(in) {
		t.Fatal("the code table is not taken for multi-byte text")
	}
	comp, err := Encode(nil, in, Options{Quality: 11})
	if err != nil {
		t.Fatal(err)
	}
	checkBoth(t, comp, in)
	without := encodeAltered(t, in, 11, func(q *quality) { q.nearPairs = 0 })
	if len(comp) > len(without)*9/10 {
		t.Errorf("%d bytes with near pairs, %d without: want at least 10%% smaller", len(comp), len(without))
	}
	// Random bytes: a quarter of them are continuation bytes (here a few
	// more than a quarter), but few follow the lead byte that makes them
	// part of a character.
	noise := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(14, 15))
	for k := range noise {
		noise[k] = byte(rng.Uint32())
	}
	if multiByteText(noise) {
		t.Error("random bytes taken for multi-byte text")
	}
	for _, c := range []struct {
		text string
		want bool
	}{
		{"plain ASCII text, nothing else", false},
		{"日本語のテキスト", true},
		{"Русский текст", true},
		{"mostly ASCII with one é and one ü in it", false},
		{"", false},
		{"\x80\x81\x82\x83 continuation bytes without their lead", false},
		{"日本", true},
	} {
		if got := multiByteText([]byte(c.text)); got != c.want {
			t.Errorf("multiByteText(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// TestDistanceParams: at qualities 10 and 11 a meta-block whose copies
// all come from distances that are multiples of 8 (records of 8 bytes,
// each a copy of an earlier one with one byte changed) is written with a
// distance postfix, which puts those low bits in the symbols, and comes
// out smaller than with NPOSTFIX 0.
func TestDistanceParams(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(17, 18))
	var in []byte
	for range 64 {
		rec := make([]byte, 8)
		for k := range rec {
			rec[k] = byte(rng.IntN(256))
		}
		in = append(in, rec...)
	}
	for len(in) < 96<<10 {
		r := rng.IntN(len(in)/8) * 8
		rec := append([]byte(nil), in[r:r+8]...)
		rec[rng.IntN(8)] = byte(rng.IntN(256))
		in = append(in, rec...)
	}
	for _, q := range []int{10, 11} {
		comp, err := Encode(nil, in, Options{Quality: q})
		if err != nil {
			t.Fatal(err)
		}
		checkBoth(t, comp, in)
		flat := encodeAltered(t, in, q, func(q *quality) { q.distParams = false })
		if len(comp) >= len(flat) {
			t.Errorf("quality %d: %d bytes with distance parameters chosen, %d with NPOSTFIX 0", q, len(comp), len(flat))
		}
	}
}

// TestRingDistances: the 16 short distance codes mean what RFC 7932
// section 4 gives them, spelled out here as its table does (code,
// which of the last four distances, offset), with the entries of an
// unknown distance (0) left 0.
func TestRingDistances(t *testing.T) {
	table := [16]struct {
		last int // 0: the last distance, 1: the one before, ...
		off  int
	}{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, -1}, {0, 1}, {0, -2}, {0, 2}, {0, -3}, {0, 3}, {1, -1}, {1, 1}, {1, -2}, {1, 2}, {1, -3}, {1, 3}}
	for _, ring := range [][4]uint32{{4, 11, 16, 15}, {100, 7, 0, 0}, {0, 0, 0, 0}, {1, 2, 3, 4}, {70000, 9, 300, 1}} {
		var got [16]uint32
		ringDistances(&ring, &got)
		for code, e := range table {
			base := ring[e.last]
			want := uint32(0)
			if base != 0 {
				want = uint32(int64(base) + int64(e.off)) // below 1 wraps: out of reach
			}
			if got[code] != want {
				t.Errorf("ring %v, code %d: %d, want %d", ring, code, got[code], want)
			}
		}
	}
}

// TestRingHits checks ringHits, which tests the near distances of the
// ring's first two entries with one load each, against testing each of
// the 16 distances by itself, on text of few distinct bytes (many
// hits), near the start of the data and with small reaches.
func TestRingHits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	data := make([]byte, 4096)
	for k := range data {
		data[k] = "ab"[rng.IntN(2)]
	}
	for range 200000 {
		i := rng.IntN(len(data) - 2)
		reach := uint32(rng.IntN(i + 1))
		var ring [4]uint32
		for k := range ring {
			ring[k] = uint32(rng.IntN(40)) // 0: no such entry
		}
		var ds [16]uint32
		ringDistances(&ring, &ds)
		x16 := load16(data, i)
		want := uint32(0)
		for j, d := range ds {
			if d-1 < reach && load16(data, i-int(d)) == x16 {
				want |= 1 << j
			}
		}
		if got := ringHits(data, i, reach, x16, &ds); got != want {
			t.Fatalf("i %d reach %d ring %v: %016b, want %016b", i, reach, ring, got, want)
		}
	}
}

// TestRelax checks relax, which prices a run of copy lengths from a
// byte table of codes and the lengths of code 23 (2,118 bytes and more)
// apart at one cost, against pricing each length by itself through
// copyLength, on runs on both sides of 2,118 and across it, with the
// cuts of dictionary references (the coded length is the length plus
// the cut) and with costs that leave some nodes already cheaper.
func TestRelax(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 5000
	var costs [32]float64
	for k := range costs {
		costs[k] = float64(rng.IntN(40))
	}
	got, want := make([]float64, n+1), make([]float64, n+1)
	gotN, wantN := make([]optNode, n+1), make([]optNode, n+1)
	runs := [][2]int{{2, 9}, {2, 2117}, {2, 2118}, {2, 2119}, {2117, 2118}, {2118, 2118}, {2118, 4000}, {2119, 2119}, {40, 4999}, {3000, 4999}}
	for round := range 400 {
		lo, hi := 0, 0
		if round < len(runs) {
			lo, hi = runs[round][0], runs[round][1]
		} else {
			lo = 2 + rng.IntN(n-2)
			hi = lo + rng.IntN(n-lo)
		}
		cut := 0
		if round%3 == 1 {
			cut = rng.IntN(10) // omit-last: the word is longer than the copy
		}
		p := rng.IntN(n - hi + 1)
		for k := range got {
			got[k] = float64(rng.IntN(400))
			want[k] = got[k]
			gotN[k], wantN[k] = optNode{}, optNode{}
		}
		dc := float64(rng.IntN(300))
		nd := optNode{insert: uint32(rng.IntN(100)), dist: uint32(1 + rng.IntN(1000)), cut: uint8(int8(cut)), dict: cut != 0}
		relax(got, gotN, p, lo, hi, cut, dc, &costs, nd)
		for l := lo; l <= hi; l++ {
			if c := dc + costs[copyLength(uint32(l+cut))&31]; c < want[p+l] {
				want[p+l] = c
				wantN[p+l] = nd
				wantN[p+l].copy = uint32(l)
			}
		}
		for k := range got {
			if got[k] != want[k] || gotN[k] != wantN[k] {
				t.Fatalf("lengths %d..%d, cut %d, at %d: %v %+v, want %v %+v", lo, hi, cut, k, got[k], gotN[k], want[k], wantN[k])
			}
		}
	}
}

// TestRingAt checks ringAt, which takes a start's ring from the ring of
// the start its command came from (o.rings) and walks the commands back
// when that start's slot is gone, against the walk alone: chains with
// repeated distances and dictionary references, from a ring with 0 to 4
// entries known, and commands from starts near and 1,024 bytes or more
// back (whose slots later starts took).
func TestRingAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 6000
	walked := 0
	for round := range 50 {
		e := &encoder{}
		e.ring = distRing{d: [4]uint32{16, 15, 11, 4}, known: round % 5}
		if round%7 == 0 {
			e.ring.d = [4]uint32{5, 5, 9, 5}
		}
		o := &optimal{}
		nodes := make([]optNode, n)
		taken := []int{0}
		o.rings[0] = ringEntry{1, o.ringAt(e, nodes, 0)}
		for p := 1; p < n; p++ {
			from := taken[max(0, len(taken)-1-rng.IntN(4))]
			if rng.IntN(16) == 0 {
				from = taken[rng.IntN(len(taken))]
			}
			nodes[p] = optNode{insert: uint32(rng.IntN(p - from)), dist: uint32(1 + rng.IntN(6)), dict: rng.IntN(8) == 0}
			nodes[p].copy = uint32(p-from) - nodes[p].insert
			want := ringWalk(e, nodes, p)
			got := o.ringAt(e, nodes, p)
			if got != want {
				t.Fatalf("round %d, position %d from %d: %v, want %v", round, p, from, got, want)
			}
			if o.rings[from%len(o.rings)].at != uint32(from)+1 {
				walked++
			}
			if rng.IntN(3) > 0 { // not every position becomes a start
				o.rings[p%len(o.rings)] = ringEntry{uint32(p) + 1, got}
				taken = append(taken, p)
			}
		}
	}
	if walked == 0 {
		t.Fatal("no ring was walked to: the test misses ringAt's other way")
	}
}
