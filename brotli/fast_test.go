package brotli

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// fastRun is what findFastIn leaves of a meta-block: its commands'
// symbols, their extra bits and the histograms.
type fastRun struct {
	syms  []cmdSyms
	extra int
	lit   [256]uint32
	cmd   [maxAlphabet]uint32
	ring  distRing
	dist  distParams
}

// runFast finds the commands of in's first meta-block at quality q with
// findFastIn's variant R and window lgwin, after the encoder has
// compressed earlier, so that its table holds an earlier stream's
// positions as a reused encoder's does.
func runFast[R fastVariant](t *testing.T, q, lgwin int, earlier, in []byte) fastRun {
	t.Helper()
	return runFinder(t, q, lgwin, earlier, in, func(e *encoder, w *window) int {
		if q == 0 {
			return findFastIn[[2]byte, R](e, w, 0)
		}
		return findFastIn[[5]byte, R](e, w, 0)
	})
}

// runFinder is runFast with the finder find, the call that fills the
// encoder's commands and histograms for the window.
func runFinder(t *testing.T, q, lgwin int, earlier, in []byte, find func(e *encoder, w *window) int) fastRun {
	t.Helper()
	enc, err := NewEncoder(Options{Quality: q})
	if err != nil {
		t.Fatal(err)
	}
	enc.Encode(nil, earlier)
	e := &enc.e
	e.setup(enc.opts, lgwin, 0, true)
	base := e.claim(len(in))
	w := window{data: in, base: base, streamA: base, end: min(len(in), 1<<e.q.blockBits)}
	clear(e.litHist[:])
	clear(e.cmdHist[:])
	clear(e.distHist[:])
	e.syms = e.syms[:0]
	extra := find(e, &w)
	return fastRun{syms: slices.Clone(e.syms), extra: extra, lit: e.litHist, cmd: e.cmdHist, ring: e.ring, dist: e.dist}
}

// TestFastFold checks that the probe that folds the reach test into the
// byte test ([3]byte) finds exactly the commands the probe with a branch
// for each ([2]byte) finds, at qualities 0 and 1, on bodies longer than
// the table has slots, compressed after other bodies and after
// themselves (every slot then holds an earlier stream's position, out of
// reach, until the body enters its own), with the largest window and the
// smallest (where many candidates lie just beyond reach).
func TestFastFold(t *testing.T) {
	oneGoroutine(t)
	inputs := map[string][]byte{"words-1": wordText(1, 200_000), "words-2": wordText(2, 100_000)}
	files, _ := filepath.Glob("../../shared/corpus/*.j*")
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && len(b) > 1<<fastBits {
			inputs[filepath.Base(f)] = b
		}
	}
	for name, in := range inputs {
		for _, q := range []int{0, 1} {
			other := inputs["words-2"]
			if name == "words-2" {
				other = inputs["words-1"]
			}
			for _, c := range []struct {
				earlier []byte
				lgwin   int
			}{{in, 22}, {other, 22}, {in, 10}} {
				t.Run(fmt.Sprintf("q%d/%s/after%d/lgwin%d", q, name, len(c.earlier), c.lgwin), func(t *testing.T) {
					two := runFast[[2]byte](t, q, c.lgwin, c.earlier, in)
					one := runFast[[3]byte](t, q, c.lgwin, c.earlier, in)
					if two.extra != one.extra || two.lit != one.lit || two.cmd != one.cmd || !slices.Equal(two.syms, one.syms) {
						t.Fatalf("folded probe: %d commands, %d extra bits; two branches: %d, %d",
							len(one.syms), one.extra, len(two.syms), two.extra)
					}
					if len(two.syms) < 1000 {
						t.Fatalf("%d commands: too few to compare", len(two.syms))
					}
				})
			}
		}
	}
}

// wordText is n bytes of words drawn at random (seeded) from a few
// hundred, separated by spaces and punctuation: text with matches of
// every length at every distance.
func wordText(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	words := make([][]byte, 300)
	for i := range words {
		w := make([]byte, 2+rng.IntN(9))
		for j := range w {
			w[j] = 'a' + byte(rng.IntN(26))
		}
		words[i] = w
	}
	seps := []string{" ", " ", " ", ", ", ". ", "\n", "(", ")", "=", ";"}
	out := make([]byte, 0, n+16)
	for len(out) < n {
		out = append(out, words[rng.IntN(len(words))]...)
		out = append(out, seps[rng.IntN(len(seps))]...)
	}
	return out[:n]
}

// TestFastLastAtStart: a copy whose distance is the decoder's last one
// (4, the ring's first entry at a stream's start) is coded as the last
// distance, with no distance of its own, wherever the stream begins: the
// copy found is valid, so the last distance it repeats is too.
func TestFastLastAtStart(t *testing.T) {
	in := []byte("wxyzwxyzwx0123456789abcdefghij")
	for q := range 2 {
		r := runFast[[0]byte](t, q, 16, nil, in)
		if len(r.syms) == 0 || r.syms[0].copied == 0 {
			t.Fatalf("q%d: no copy found in %q", q, in)
		}
		if ds := r.syms[0].distSym(); ds != noDist && ds != 0 {
			t.Errorf("q%d: the copy at distance 4 has distance symbol %d; want the last distance's", q, ds)
		}
	}
}

// TestLiteralCounts checks the literal histogram of findFastIn and
// findLazyIn, whose probes count literals as they pass (unprobe mends runs
// crossed in steps), against the bytes their commands insert, and the
// extra bits they return (which decide whether a meta-block is stored)
// against wantExtraBits, at
// qualities 0 and 1 in each of findFastIn's variants and at 2 and 3:
// on text, on random bytes (runs long enough for the search to step, with
// and without a copy after them) and on lengths that end the meta-block
// inside such a run, or with a copy, or within the last 8 bytes, and on
// text cut by many such runs.
func TestLiteralCounts(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(5, 9))
	noise := func(n int) []byte { return randomBytes(rng, n) }
	text := wordText(3, 100_000)
	inputs := map[string][]byte{"text": text}
	for _, n := range []int{1, 7, 8, 9, 40, 600, 5000, 70_000} {
		inputs[fmt.Sprintf("noise-%d", n)] = noise(n)
		inputs[fmt.Sprintf("text+noise-%d", n)] = append(slices.Clone(text[:30_000]), noise(n)...)
		inputs[fmt.Sprintf("noise-%d+text", n)] = append(noise(n), text[:3000]...)
	}
	long := noise(90_000)
	copy(long[40_000:], long[:20_000]) // a copy after a long stepped run
	inputs["noise-copy-noise"] = long
	// Many runs long enough to step, each ended by a snippet of the text:
	// at 2 and 3 a match found by a stepping probe then waits a byte, and
	// is sometimes displaced by the match one byte later (the displaced
	// position counted as a literal, unprobe then taking it back).
	mix := slices.Clone(text[:20_000])
	for range 100 {
		at := rng.IntN(19_000)
		mix = slices.Concat(mix, noise(200+rng.IntN(1300)), text[at:at+40+rng.IntN(100)])
	}
	inputs["text-noise-mix"] = mix
	for name, in := range inputs {
		for _, q := range []int{0, 1, 2, 3} {
			t.Run(fmt.Sprintf("q%d/%s", q, name), func(t *testing.T) {
				var runs []fastRun
				switch q {
				case 0, 1:
					runs = []fastRun{
						runFast[[0]byte](t, q, 22, nil, in),
						runFast[[2]byte](t, q, 22, nil, in),
						runFast[[3]byte](t, q, 22, in, in),
					}
				case 2:
					runs = []fastRun{runFinder(t, q, 22, in, in, func(e *encoder, w *window) int { return findLazy[[1]uint32](e, w, 0) })}
				case 3:
					runs = []fastRun{runFinder(t, q, 22, in, in, func(e *encoder, w *window) int { return findLazy[[2]uint32](e, w, 0) })}
				}
				for _, r := range runs {
					var want [256]uint32
					p := 0
					for _, s := range r.syms {
						countLiterals(&want, in[p:p+int(s.insert)])
						p += int(s.insert) + int(s.copied)
					}
					if p != min(len(in), 1<<17) {
						t.Fatalf("commands cover %d bytes of %d", p, len(in))
					}
					if r.lit != want {
						t.Fatalf("literal counts differ from the commands' literals")
					}
					if want := wantExtraBits(r.syms, r.dist); r.extra != want {
						t.Fatalf("extra bits %d; the commands' lengths and distance symbols have %d", r.extra, want)
					}
				}
			})
		}
	}
}

// TestFastRingAcrossFlushes: qualities 0 and 1 code a copy at the last
// distance with code 0, taking that distance at a meta-block's start
// from the ring that the meta-blocks before filled (fastTally, from their
// symbols). Each meta-block here (a Writer flushed after each piece) ends
// with a copy at a distance of 40 to 70 bytes and the next starts with a
// copy at distance 4, the ring's first entry when a stream starts, so a
// ring left as it was codes that copy with code 0 and decodes wrong; in
// the generic and font modes, whose distance codes differ.
func TestFastRingAcrossFlushes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var pieces [][]byte
	for range 200 {
		r := make([]byte, 40+rng.IntN(31))
		for k := range r {
			r[k] = byte(rng.IntN(256))
		}
		q := []byte{byte(rng.IntN(256)), byte(rng.IntN(256)), byte(rng.IntN(256)), byte(rng.IntN(256))}
		p := slices.Concat(q, q, q, q, r, r)
		pieces = append(pieces, p)
	}
	in := slices.Concat(pieces...)
	for _, q := range []int{0, 1} {
		for _, mode := range []Mode{ModeGeneric, ModeFont} {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, Options{Quality: q, Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range pieces {
				if _, err := w.Write(p); err != nil {
					t.Fatal(err)
				}
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			checkBoth(t, buf.Bytes(), in)
		}
	}
}

// TestFastRingSkipsCodeZero: a copy at the last distance after an insert
// of 10 or more literals has no insert-and-copy symbol that implies the
// last distance, so findFastIn codes it with distance code 0, which the
// decoder does not enter in its ring (RFC 7932 section 4). The ring after
// the meta-block is then the one explicit distance (30) in front of the
// stream's first three: fastTally must skip the code 0 rather than read a
// distance back from it, and keep the entries it did not replace.
func TestFastRingSkipsCodeZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	noise := func(n int) []byte { return randomBytes(rng, n) }
	// 30 literals, a copy of 8 at distance 30, 12 literals, a copy of 8
	// at distance 30 again (of bytes 20-27), 16 literals.
	p := noise(30)
	in := slices.Concat(p, p[:8], noise(12))
	in = slices.Concat(in, in[len(in)-30:len(in)-22], noise(16))
	for q := range 2 {
		r := runFast[[0]byte](t, q, 16, nil, in)
		if len(r.syms) != 3 || r.syms[0].copied != 8 || r.syms[1].insert != 12 || r.syms[1].copied != 8 {
			t.Fatalf("q%d: commands %+v; want a copy of 8 after 30 literals, one of 8 after 12, then 16 literals", q, r.syms)
		}
		if ds := r.syms[1].distSym(); ds != 0 {
			t.Fatalf("q%d: the second copy has distance symbol %d; want 0", q, ds)
		}
		if want := (distRing{d: [4]uint32{30, 4, 11, 15}, known: 4}); r.ring != want {
			t.Errorf("q%d: ring %v after the meta-block; want %v", q, r.ring, want)
		}
	}
}

// wantExtraBits is the number of extra bits that commands syms write,
// from their lengths and distance symbols rather than the counts packed
// with them: RFC 7932 section 5's tables for the lengths, and section 4's
// 1 + ((dcode - NDIRECT - 16) >> (NPOSTFIX + 1)) for a distance code
// past the ring's and the direct ones.
func wantExtraBits(syms []cmdSyms, p distParams) int {
	n := 0
	for _, s := range syms {
		n += int(insExtra[insCodeOf(s.insert)])
		if s.copied > 0 {
			n += int(cpExtra[copyCodeOf(s.copied)])
		}
		if ds := uint32(s.distSym()); ds != noDist && ds >= numShortCodes+p.direct {
			n += 1 + int((ds-numShortCodes-p.direct)>>(p.postfix+1))
		}
	}
	return n
}

// randomBytes is n bytes from rng: literals that no copy can cover.
func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// TestCmdHistLeftZero holds the invariants metaBlock's narrower clears
// rely on: a fast meta-block of few commands leaves cmdHist all zero
// and says so (cmdZero), the distance counts past the current alphabet
// are zero, and a reused encoder's output at any quality after any
// other is a fresh encoder's.
func TestCmdHistLeftZero(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(16, 1))
	body := make([]byte, 3000)
	for i := range body {
		body[i] = "abcdefgh{}\":, 0123"[rng.IntN(18)]
	}
	for _, q := range []int{0, 1} {
		enc, err := NewEncoder(Options{Quality: q, LGWin: 16})
		if err != nil {
			t.Fatal(err)
		}
		enc.Encode(nil, body)
		if !enc.e.cmdZero {
			t.Fatalf("quality %d: cmdZero not set after a 3,000-byte body", q)
		}
		if i := slices.IndexFunc(enc.e.cmdHist[:], func(c uint32) bool { return c != 0 }); i >= 0 {
			t.Fatalf("quality %d: cmdHist[%d] = %d after the meta-block", q, i, enc.e.cmdHist[i])
		}
		// The same encoder at every quality, against fresh ones.
		for q2 := range 12 {
			enc.opts.Quality = q2
			got := enc.Encode(nil, body)
			want, err := Encode(nil, body, Options{Quality: q2, LGWin: 16})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("quality %d after %d: output differs from a fresh encoder's", q2, q)
			}
			enc.opts.Quality = q
			enc.Encode(nil, body)
		}
	}
	// Records of 12 bytes make quality 11 choose distance parameters of
	// a wider alphabet; each quality after it, on the same encoder, must
	// code as a fresh encoder does.
	recs := make([]byte, 0, 24000)
	for len(recs) < cap(recs)-12 {
		recs = append(recs, byte(rng.IntN(4)), 'k', byte(rng.IntN(200)), 0, 0, 1, byte(rng.IntN(3)), 'v', 0, 0, 0, 0)
	}
	enc, err := NewEncoder(Options{Quality: 11, LGWin: 18})
	if err != nil {
		t.Fatal(err)
	}
	for q2 := range 12 {
		enc.opts.Quality = 11
		enc.Encode(nil, recs)
		if q2 == 0 && enc.e.dist.alphabet() <= (distParams{}).alphabet() {
			t.Fatalf("quality 11 kept the narrow distance alphabet: change the records")
		}
		enc.opts.Quality = q2
		for _, in := range [][]byte{recs, body} {
			got := enc.Encode(nil, in)
			if i := slices.IndexFunc(enc.e.distHist[enc.e.dist.alphabet():], func(c uint32) bool { return c != 0 }); i >= 0 {
				t.Fatalf("quality %d after 11: a distance count past the alphabet left", q2)
			}
			want, err := Encode(nil, in, Options{Quality: q2, LGWin: 18})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("quality %d after 11, %d bytes: output differs from a fresh encoder's", q2, len(in))
			}
		}
	}
}

// TestFlatLongLiteralCodes encodes, at qualities 0-4, a body whose
// literals have Fibonacci counts, so that the literal code is as deep as
// its limit, 15 bits, and writeFlat writes three literals to a flush, not
// four (TestWriteFlatPacking checks the packing itself). The body opens
// with the seven occurrences of the four rarest symbols, all of 15 bits,
// in a row: four of them after a flush overflow the sink's word, and the
// output does not decode (as when writeFlat packs four regardless of
// the code's depth).
func TestFlatLongLiteralCodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	var syms []byte
	a, b := 1, 1
	for s := range 19 {
		for range a {
			syms = append(syms, byte('A'+s))
		}
		a, b = b, a+b
	}
	rng.Shuffle(len(syms), func(i, j int) { syms[i], syms[j] = syms[j], syms[i] })
	rare := []byte("ABCDCDD") // counts 1, 1, 2, 3: no 4 bytes repeat
	syms = slices.DeleteFunc(syms, func(c byte) bool { return c <= 'D' })
	// Each other symbol followed by its index in two bytes of 7 bits,
	// with the top bit set (other values than the symbols'): every 4
	// bytes hold a whole index, so nothing repeats and every byte is a
	// literal.
	body := slices.Clone(rare)
	for i, s := range syms {
		body = append(body, s, 0x80|byte(i>>7), 0x80|byte(i&127))
	}
	for q := 0; q <= 4; q++ {
		enc, err := NewEncoder(Options{Quality: q})
		if err != nil {
			t.Fatal(err)
		}
		out := enc.Encode(nil, body)
		if m := enc.e.lit.maxLen; m != 15 {
			t.Fatalf("q%d: the literal code is %d bits deep, want 15 (the test's body no longer reaches the limit)", q, m)
		}
		for _, c := range rare {
			if l := enc.e.lit.lens[c]; l != 15 {
				t.Fatalf("q%d: %q has a code of %d bits, want 15 (the test's body no longer opens with four 15-bit codes)", q, c, l)
			}
		}
		checkBoth(t, out, body)
	}
}

// TestWriteFlatPacking writes runs of literals with writeFlat, every code
// 15 bits long and then every code 14, and reads each code back: four
// codes of 15 bits after a flush overflow the sink's word, so its groups
// of four are for codes of at most 14 (it fails when they take 15).
func TestWriteFlatPacking(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	data := make([]byte, 1000)
	for i := range data {
		data[i] = byte(rng.IntN(256))
	}
	for _, n := range []uint32{15, 14} {
		var e encoder
		for s := range e.litCodes {
			// Not a prefix code: writeFlat writes what it is given.
			e.litCodes[s] = rng.Uint32()&(1<<n-1)<<4 | n
		}
		e.lit = prefixCode{lens: e.litLens[:], codes: e.litCodes[:], maxLen: uint8(n)}
		// Runs of every length up to 40 (past the short runs' 6) after a
		// command of 0 bits: cmdCodes[0] is zero.
		e.syms = e.syms[:0]
		total := 0
		for k := 0; total+k <= len(data); k = (k + 1) % 41 {
			e.syms = append(e.syms, cmdSyms{dist: noDist, insert: uint32(k)})
			total += k
		}
		e.writeFlat(data[:total], total*int(n))
		e.bw.align()
		got := e.bw.buf
		pos := 0
		for i, b := range data[:total] {
			v := uint32(0)
			for j := range n {
				bit := uint32(got[(pos+int(j))/8]>>((pos+int(j))%8)) & 1
				v |= bit << j
			}
			pos += int(n)
			if want := e.litCodes[b] >> 4; v != want {
				t.Fatalf("%d-bit codes: literal %d read back as %#x, want %#x", n, i, v, want)
			}
		}
	}
}
