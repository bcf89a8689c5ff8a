package brotli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

var updateDict = flag.Bool("update", false, "write dictionary.bin from a decoded stream that refers to every dictionary word")

// dictRef is a reference to word idx of length l without its last cut
// bytes (cut 0: the whole word).
type dictRef struct{ l, idx, cut int }

// dictRefStream is a brotli stream, written by this package's command
// writer, of nothing but the dictionary references refs, one meta-block,
// with window lgwin. It needs no dictionary bytes: a reference is a
// length and a distance.
func dictRefStream(refs []dictRef, lgwin int) []byte {
	var e encoder
	// Quality 0 never searches the dictionary, so this works with an
	// empty dictionary.bin too.
	e.setup(Options{Quality: 0, LGWin: lgwin}, lgwin, 0, true)
	e.writeWindow()
	pos := 0
	for _, r := range refs {
		d := dictDistance(min(e.maxDist, uint32(pos)), r.l, r.idx, omitLast[r.cut])
		e.cmds = append(e.cmds, command{copy: uint32(r.l - r.cut), cut: uint8(r.cut), dist: d, dict: true})
		pos += r.l - r.cut
	}
	w := window{data: make([]byte, pos), base: 1, streamA: 1, end: pos}
	e.codeMetaBlock(&w, 0, unsymbolized, e.ring)
	e.writeLast()
	return e.bw.buf
}

// dictSHA256 is the SHA-256 of RFC 7932's dictionary, as published with
// other implementations: an independent check of the bytes decoded here.
const dictSHA256 = "20e42eb1b511c21806d4d227d07e5dd06877d8ce7b3a817f378f313653f35c70"

// TestDictionaryBin derives the static dictionary: a stream that refers
// to every word of every length in order, with the identity transform,
// decodes to the dictionary itself. With -update it writes
// dictionary.bin; otherwise it checks the embedded copy against it, with
// both decoders.
func TestDictionaryBin(t *testing.T) {
	var refs []dictRef
	for l := minWordLen; l <= maxWordLen; l++ {
		for idx := range 1 << dictBits[l] {
			refs = append(refs, dictRef{l, idx, 0})
		}
	}
	comp := dictRefStream(refs, 17)
	got := decodeAB(t, comp)
	if len(got) != dictSize {
		t.Fatalf("decoded %d bytes, want %d", len(got), dictSize)
	}
	if sum := sha256.Sum256(got); hex.EncodeToString(sum[:]) != dictSHA256 {
		t.Fatalf("decoded dictionary has SHA-256 %x, want %s", sum, dictSHA256)
	}
	if *updateDict {
		if err := os.WriteFile("dictionary.bin", got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote dictionary.bin (%d bytes from a %d-byte stream)", len(got), len(comp))
		return
	}
	if !bytes.Equal(got, dictionary) {
		t.Fatalf("dictionary.bin differs from the decoded dictionary at %d (run with -update)", firstDiff(got, dictionary))
	}
	if int(dictOffset[maxWordLen+1]) != dictSize {
		t.Fatalf("offsets end at %d, want %d", dictOffset[maxWordLen+1], dictSize)
	}
	if tool := decodeTool(t, comp); !bytes.Equal(tool, dictionary) {
		t.Fatalf("brotli -d decodes the word stream differently at %d", firstDiff(tool, dictionary))
	}
}

// TestOmitLast checks the transform ids the encoder uses: for each k,
// omitLast[k] yields a word without its last k bytes, through both
// decoders. A window of 10 bits makes most references come after the
// largest backward distance (1008) stops growing with the output.
func TestOmitLast(t *testing.T) {
	var refs []dictRef
	var want []byte
	for round := range 4 {
		for cut := range len(omitLast) {
			for l := max(minWordLen, cut+1); l <= maxWordLen; l++ {
				idx := (l*37 + cut*101 + round*211) % (1 << dictBits[l])
				refs = append(refs, dictRef{l, idx, cut})
				want = append(want, dictWord(l, idx)[:l-cut]...)
			}
		}
	}
	if len(want) < 2000 {
		t.Fatalf("only %d bytes: the window's limit is not reached", len(want))
	}
	checkBoth(t, dictRefStream(refs, 10), want)
}

// TestOmitFirst checks the omit-first transform ids: for each k,
// omitFirst[k] yields a word without its first k bytes, through both
// decoders.
func TestOmitFirst(t *testing.T) {
	var e encoder
	e.setup(Options{Quality: 0, LGWin: 16}, 16, 0, true)
	e.writeWindow()
	var want []byte
	for round := range 3 {
		for k, tr := range omitFirst {
			if tr == 0 {
				continue
			}
			for l := k + minWordLen; l <= maxWordLen; l++ {
				idx := (l*37 + k*101 + round*211) % (1 << dictBits[l])
				d := dictDistance(min(e.maxDist, uint32(len(want))), l, idx, tr)
				e.cmds = append(e.cmds, command{copy: uint32(l - k), cut: uint8(k), dist: d, dict: true})
				want = append(want, dictWord(l, idx)[k:]...)
			}
		}
	}
	w := window{data: make([]byte, len(want)), base: 1, streamA: 1, end: len(want)}
	e.codeMetaBlock(&w, 0, unsymbolized, e.ring)
	e.writeLast()
	checkBoth(t, e.bw.buf, want)
}

// dictTexts are inputs rich in dictionary words: English prose, HTML and
// JSON, built from words of the dictionary and common ones.
func dictTexts() map[string][]byte {
	prose := "The quick brown fox jumps over the lazy dog. In the beginning of the " +
		"project, the team decided that information about the government and " +
		"the international community should be available to everyone, because " +
		"knowledge is important for the development of the world. However, " +
		"several questions remained: which languages, which countries, and " +
		"which technologies would be supported first? "
	html := `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Welcome to our website</title>` +
		`<link rel="stylesheet" type="text/css" href="/style.css"></head><body class="home">` +
		`<div id="content"><p>Please contact us for more information about our products and services.</p>` +
		`<a href="https://www.example.com/about" target="_blank">About the company</a></div></body></html>`
	json := `{"description":"Returns the list of available resources for the current user",` +
		`"parameters":[{"name":"limit","type":"integer","required":false},` +
		`{"name":"language","type":"string","description":"Preferred language of the response"}],` +
		`"responses":{"200":{"description":"Successful operation"},"404":{"description":"Resource not found"}}}`
	words := &strings.Builder{}
	for k := range 300 {
		l := minWordLen + k%(maxWordLen-minWordLen+1)
		words.Write(dictWord(l, (k*7919)%(1<<dictBits[l])))
		// Words cut short, for the omit-last transforms.
		w := dictWord(l, (k*104729)%(1<<dictBits[l]))
		words.Write(w[:max(minWordLen, l-k%10)])
		words.WriteByte(byte(k))
	}
	return map[string][]byte{
		"prose": []byte(prose), "html": []byte(html), "json": []byte(json),
		"words": []byte(words.String()),
		"long":  []byte(strings.Repeat(prose+html+json, 3)),
		"tiny":  []byte("information"),
	}
}

// TestDictionaryRoundTrip encodes texts rich in dictionary words at every
// quality, one-shot, streamed and as segments, checks that both decoders
// restore them, and that the qualities that search the dictionary make
// references.
func TestDictionaryRoundTrip(t *testing.T) {
	oneGoroutine(t)
	for name, in := range dictTexts() {
		for q := MinQuality; q <= MaxQuality; q++ {
			for _, lgwin := range []int{10, 16, 22} {
				opts := Options{Quality: q, LGWin: lgwin}
				enc, err := NewEncoder(opts)
				if err != nil {
					t.Fatal(err)
				}
				comp := enc.Encode(nil, in)
				t.Run(fmt.Sprintf("%s/q%d/w%d", name, q, lgwin), func(t *testing.T) {
					checkBoth(t, comp, in)
				})
				if qualities[q].dictDepth > 0 && len(in) > 64 && enc.e.dictHit == 0 {
					t.Errorf("%s q%d w%d: no dictionary reference", name, q, lgwin)
				}
				var buf bytes.Buffer
				w, _ := NewWriter(&buf, opts)
				for p := in; len(p) > 0; {
					n := min(len(p), 97)
					w.Write(p[:n])
					w.Flush()
					p = p[n:]
				}
				w.Close()
				if got := decodeAB(t, buf.Bytes()); !bytes.Equal(got, in) {
					t.Fatalf("%s q%d w%d streamed: first difference at %d", name, q, lgwin, firstDiff(got, in))
				}
				// Segments: the first may refer to the dictionary, the
				// others (whose stream position is unknown) may not.
				cut := len(in) / 2
				seg := enc.EncodeSegment(nil, in[:cut], Segment{First: true})
				seg = enc.EncodeSegment(seg, in[cut:], Segment{Last: true, Prefix: in[:cut]})
				if got := decodeAB(t, seg); !bytes.Equal(got, in) {
					t.Fatalf("%s q%d w%d segments: first difference at %d", name, q, lgwin, firstDiff(got, in))
				}
			}
		}
	}
}

// TestDictionaryRandom round-trips random mixtures of dictionary words,
// their prefixes and other bytes at the qualities that search the
// dictionary, with random windows, one-shot and streamed with random
// flushes (each flush starts a meta-block, whose references must still
// use the stream's position).
func TestDictionaryRandom(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(7, 9))
	hits := 0
	defer func() {
		if hits < 1000 {
			t.Errorf("%d dictionary references in all, want more", hits)
		}
	}()
	for n := range 60 {
		var in []byte
		for len(in) < 200+rng.IntN(6000) {
			switch rng.IntN(4) {
			case 0, 1:
				l := minWordLen + rng.IntN(maxWordLen-minWordLen+1)
				w := dictWord(l, rng.IntN(1<<dictBits[l]))
				in = append(in, w[:max(1, l-rng.IntN(12))]...)
			case 2:
				in = append(in, " the "[rng.IntN(5):]...)
			default:
				in = append(in, byte(rng.IntN(256)))
			}
		}
		q := 4 + rng.IntN(MaxQuality-3)
		opts := Options{Quality: q, LGWin: 10 + rng.IntN(15)}
		enc, err := NewEncoder(opts)
		if err != nil {
			t.Fatal(err)
		}
		comp := enc.Encode(nil, in)
		hits += int(enc.e.dictHit)
		if got := decodeAB(t, comp); !bytes.Equal(got, in) {
			t.Fatalf("input %d %+v: first difference at %d", n, opts, firstDiff(got, in))
		}
		if got := decodeAB(t, streamPieces(t, in, opts, rng)); !bytes.Equal(got, in) {
			t.Fatalf("input %d %+v streamed: first difference at %d", n, opts, firstDiff(got, in))
		}
		if n%10 == 0 {
			if got := decodeTool(t, comp); !bytes.Equal(got, in) {
				t.Fatalf("input %d %+v, brotli -d: first difference at %d", n, opts, firstDiff(got, in))
			}
		}
	}
}

// TestDictionaryRing checks that a dictionary reference leaves the
// decoder's ring of last distances alone (RFC 7932 section 4), as the
// symbol pass assumes: a backward copy at distance 4, then a word, then
// another copy at distance 4, which the symbol pass codes as "the last
// distance" only if the word did not enter the ring.
func TestDictionaryRing(t *testing.T) {
	for cut := range 3 {
		l, idx := 9, 300
		word := dictWord(l, idx)[:l-cut]
		var want []byte
		want = append(want, "abcdabcd"...)
		want = append(want, word...)
		want = append(want, want[len(want)-4:]...)
		var e encoder
		e.setup(Options{Quality: 0, LGWin: 16}, 16, 0, true)
		e.writeWindow()
		d := dictDistance(8, l, idx, omitLast[cut])
		e.cmds = append(e.cmds,
			command{insert: 4, copy: 4, dist: 4},
			command{copy: uint32(l - cut), cut: uint8(cut), dist: d, dict: true},
			command{copy: 4, dist: 4})
		countLiterals(&e.litHist, want[:4])
		w := window{data: want, base: 1, streamA: 1, end: len(want)}
		e.codeMetaBlock(&w, 0, unsymbolized, e.ring)
		if e.syms[2].distSym() != noDist {
			t.Fatalf("cut %d: the copy after the word was not coded as the last distance", cut)
		}
		e.writeLast()
		checkBoth(t, e.bw.buf, want)
	}
}

// TestDictionarySpan: a quality with a dictSpan searches the dictionary
// only in the stream's first dictSpan bytes, and still refers to it there;
// a body made of dictionary words, each once, is searched all along
// otherwise.
func TestDictionarySpan(t *testing.T) {
	oneGoroutine(t)
	var b []byte
	for k := 0; len(b) < 256<<10; k++ {
		l := minWordLen + k%(maxWordLen-minWordLen+1)
		b = append(b, dictWord(l, k%(1<<dictBits[l]))...)
		b = append(b, byte(' '+k%64), byte('0'+k%10))
	}
	for q := MinQuality; q <= MaxQuality; q++ {
		span := qualities[q].dictSpan
		if qualities[q].dictDepth == 0 {
			continue
		}
		enc, err := NewEncoder(Options{Quality: q})
		if err != nil {
			t.Fatal(err)
		}
		checkBoth(t, enc.Encode(nil, b), b)
		if enc.e.dictHit == 0 {
			t.Errorf("q%d: no dictionary reference", q)
		}
		// Searches happen at positions without a backward match: fewer
		// than the bytes searched, and none past the span, which
		// qualities 4 and 5 have (32 KiB) and 6-9 do not.
		switch {
		case q <= 5 && span != 32<<10:
			t.Errorf("q%d: dictSpan %d", q, span)
		case span > 0 && enc.e.dictSearches > span:
			t.Errorf("q%d: %d dictionary searches with a span of %d bytes", q, enc.e.dictSearches, span)
		case span == 0 && int(enc.e.dictSearches) <= len(b)/16:
			t.Errorf("q%d: only %d dictionary searches over %d bytes", q, enc.e.dictSearches, len(b))
		}
	}
}

// TestRefLengths: at every position of a text, the references collected
// for the optimal parser at 11 (offerWords, offerOmitFirst and
// searchWords into refLengths) are, for each length, the smallest
// distance that any word of the dictionary gives through the identity,
// omit-last, omit-first and whole-word transforms: checked against a
// search of every word and transform.
func TestRefLengths(t *testing.T) {
	oneGoroutine(t)
	in := []byte(`The information was unavailable; "Services" in the Country, and Home. THE PEOPLE, ` +
		`Within the window: contentType="text", returned(Number) for the people of the world. This ` +
		`International, internationally, informational. Moreover the .com/about page` +
		// A reference as long as one of wordTransforms' lists gives (the
		// prefix " ", a word of maxWordLen bytes in capitals, the list's
		// longest suffix "='"): searchWords skipping the list when
		// that length only reaches minLen loses it.
		` DOCUMENT.GETELEMENTBYID(='`)
	in = append(in, make([]byte, 8)...) // the searches read 8 bytes past a position
	var e encoder
	e.setup(Options{Quality: 11, LGWin: 22}, 22, 0, true)
	e.q.dictDepth = 1 << 16 // every word with the prefix, as the search below
	e.q.omitDepth = 1 << 16
	const reach = 1000
	var r refLengths
	checked := 0
	for i := range len(in) - 8 {
		maxLen := len(in) - 8 - i
		var want [maxRefLen + 1]uint32
		var wantCut [maxRefLen + 1]int8
		offer := func(n int, d uint32, cut int) {
			if want[n] == 0 || d < want[n] {
				want[n], wantCut[n] = d, int8(cut)
			}
		}
		// Every word, with every transform; what cannot match the first
		// bytes at i is passed over before the rest is written out.
		var groups []transformGroup
		for _, g := range wordTransforms {
			if j := i + len(g.prefix); bytes.HasPrefix(in[i:], []byte(g.prefix)) && j+minWordLen <= len(in) {
				groups = append(groups, g)
			}
		}
		var out []byte
		for l := minWordLen; l <= maxWordLen; l++ {
			for idx := range 1 << dictBits[l] {
				w := dictWord(l, idx)
				if bytes.Equal(w[:minWordLen], in[i:i+minWordLen]) {
					for c := 0; c <= maxCut && l-c >= minWordLen; c++ {
						if n := l - c; n <= maxLen && bytes.Equal(in[i:i+n], w[:n]) {
							offer(n, dictDistance(reach, l, idx, omitLast[c]), c)
						}
					}
				}
				for k, tr := range omitFirst {
					if n := l - k; tr != 0 && n >= minWordLen && n <= maxLen && bytes.Equal(in[i:i+n], w[k:]) {
						offer(n, dictDistance(reach, l, idx, tr), k)
					}
				}
				upperAll := bytes.ToUpper(w)
				ascii := !slices.ContainsFunc(w, func(c byte) bool { return c >= 0x80 })
				for _, g := range groups {
					j := i + len(g.prefix)
					for mode, list := range [][]wordTransform{g.plain, g.upper, g.all} {
						// The word as written: as it is, its first letter upper
						// case, or all of it (ASCII words).
						word := w
						if mode > 0 {
							if w[0] < 'a' || w[0] > 'z' || mode == 2 && !ascii {
								continue
							}
							word = append([]byte{w[0] - ('a' - 'A')}, w[1:]...)
							if mode == 2 {
								word = upperAll
							}
						}
						if !bytes.Equal(in[j:j+minWordLen], word[:minWordLen]) {
							continue
						}
						for _, tr := range list {
							out = append(append(out[:0], g.prefix...), word...)
							out = append(out, tr.suffix...)
							if len(out) <= maxLen && bytes.Equal(in[i:i+len(out)], out) {
								offer(len(out), dictDistance(reach, l, idx, tr.id), l-len(out))
							}
						}
					}
				}
			}
		}
		// All of them, then (r.minLen, as the parser sets it above its
		// longest copy) those of a length or more: the same, and the
		// same count of searches that found a word. The last pass asks
		// for the longest alone, so that a search that stops one byte
		// early (its bound on a word with the longest suffix) loses it.
		longest := 0
		for n, d := range want {
			if d != 0 {
				longest = n
			}
		}
		var hits [3]uint32
		for pass, minLen := range []int{0, 4 + i%28, longest} {
			e.dictOn, e.dictHit, e.dictSearches = true, 1, 0
			r.minLen = minLen
			e.offerWords(in, i, maxLen, reach, &r)
			e.offerOmitFirst(in, i, maxLen, reach, &r)
			e.searchWords(in, i, maxLen, reach, &r)
			hits[pass] = e.dictHit
			got := r.appendTo(nil, minLen, true)
			var gotDist [maxRefLen + 1]uint32
			for _, m := range got {
				if !m.dict || gotDist[m.len] != 0 {
					t.Fatalf("position %d: %+v repeated or not a reference", i, m)
				}
				gotDist[m.len] = m.dist
				if m.dist != want[m.len] || int8(m.cut) != wantCut[m.len] {
					t.Errorf("position %d (%q), %d bytes: distance %d cut %d, want %d cut %d",
						i, in[i:i+int(m.len)], m.len, m.dist, int8(m.cut), want[m.len], wantCut[m.len])
				}
			}
			for n, d := range want {
				if d != 0 && n >= minLen && gotDist[n] == 0 {
					t.Errorf("position %d (%q), minLen %d: no reference of %d bytes, want distance %d",
						i, in[i:i+n], minLen, n, d)
				}
				if pass == 0 {
					checked += min(int(d), 1)
				}
			}
		}
		if hits[0] != hits[1] || hits[0] != hits[2] {
			t.Errorf("position %d: %d hits for dictOpen, %d and %d with minLen", i, hits[0], hits[1], hits[2])
		}
	}
	if checked < 100 {
		t.Errorf("only %d references in the text: it does not test much", checked)
	}
	// appendTo forgot them: the next position starts empty.
	if r.top != 0 || r.dist != [maxRefLen + 1]uint32{} {
		t.Errorf("refLengths not emptied: top %d", r.top)
	}
}

// TestRefLengthBound: no transform of wordTransforms writes more than
// maxRefLen bytes from the longest word.
func TestRefLengthBound(t *testing.T) {
	for _, g := range wordTransforms {
		for _, tr := range slices.Concat(g.plain, g.upper, g.all) {
			if n := len(g.prefix) + maxWordLen + len(tr.suffix); n > maxRefLen {
				t.Errorf("transform %d writes up to %d bytes, maxRefLen is %d", tr.id, n, maxRefLen)
			}
		}
	}
}

// TestQuality11Parse: quality 11 is smaller with every length of
// reference offered to its parse than with the longest alone, and with
// its third pass than with two, over the first 64 KiB of react-dom and
// of bootstrap (a third pass does not shrink every input: the whole of
// bootstrap comes out 43 bytes larger, while the corpus is 325 bytes
// smaller).
func TestQuality11Parse(t *testing.T) {
	oneGoroutine(t)
	files := corpus(t)
	var ins [][]byte
	for _, name := range []string{"react-dom.development.js", "bootstrap.min.css"} {
		b := files[name]
		if len(b) < 64<<10 {
			t.Skipf("no %s in the corpus", name)
		}
		ins = append(ins, b[:64<<10])
	}
	var now, longest, two int
	for _, in := range ins {
		out, err := Encode(nil, in, Options{Quality: 11})
		if err != nil {
			t.Fatal(err)
		}
		checkBoth(t, out, in)
		now += len(out)
		longest += len(encodeAltered(t, in, 11, func(q *quality) { q.allRefs = false }))
		two += len(encodeAltered(t, in, 11, func(q *quality) { q.passes = 2 }))
	}
	t.Logf("at 11: %d bytes; the longest reference alone %d, two passes %d", now, longest, two)
	if now >= longest || now >= two {
		t.Errorf("at 11: %d bytes; the longest reference alone %d, two passes %d", now, longest, two)
	}
}

// TestDictionaryOpen: the dictionary's searches stop in a stream where
// few find a word (random bytes), but not before dictSample of them, so
// that a text opening with what no word matches (here 3 KB of capitals
// and digits) still refers to the dictionary in the prose that follows.
func TestDictionaryOpen(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(5, 6))
	var head []byte
	for len(head) < 3000 {
		for range 3 + rng.IntN(5) {
			head = append(head, "BCDFGHJKLMNPQRSTVWXZ0123456789"[rng.IntN(30)])
		}
		head = append(head, ' ')
	}
	prose := []byte("the people of the world have information about their government, " +
		"which should be available within the country; and without it nothing " +
		"would change before another election. Everything considered, business ")
	bigNoise := make([]byte, 512<<10)
	for i := range bigNoise {
		bigNoise[i] = byte(rng.Uint32())
	}
	noise := bigNoise[:64<<10]
	for q := MinQuality; q <= MaxQuality; q++ {
		if qualities[q].dictDepth == 0 {
			continue
		}
		in := append(head[:len(head):len(head)], prose...)
		enc, err := NewEncoder(Options{Quality: q})
		if err != nil {
			t.Fatal(err)
		}
		checkBoth(t, enc.Encode(nil, in), in)
		refs := 0
		for _, c := range enc.e.cmds {
			if c.dict {
				refs++
			}
		}
		if refs == 0 {
			t.Errorf("q%d: no dictionary reference in the prose after %d bytes of capitals (%d searches, %d found a word)",
				q, len(head), enc.e.dictSearches, enc.e.dictHit)
		}
		// Random bytes: the searches stop after the sample (4-5 stop at
		// their span, 32 KiB, first). 5-9 search random bytes so sparsely
		// that they need 512 KiB of them to make the sample.
		noise := noise
		if qualities[q].deep && !qualities[q].optimal {
			noise = bigNoise
		}
		checkBoth(t, enc.Encode(nil, noise), noise)
		if enc.e.dictSearches > 2*dictSample || qualities[q].dictSpan == 0 && enc.e.dictOn {
			t.Errorf("q%d: random bytes searched %d times (%d found a word), still searching: %v",
				q, enc.e.dictSearches, enc.e.dictHit, enc.e.dictOn)
		}
	}
}

// TestSearchDictBest checks searchDict's shortcuts (words that cannot
// beat the score are passed over, and the first too short ends the
// search) against scoring every word it may try: the same word, cut,
// distance and score, for words of every length with and without their
// last bytes, reaches from 0 to beyond a 16 MiB window and a raw
// dictionary, both weights of a byte and scores to beat below and above
// what a word makes.
func TestSearchDictBest(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	e := &encoder{q: qualities[6], dict: getDictIndex()}
	reaches := []uint32{0, 1, 3, 4, 1000, 1<<10 - 2, 1<<16 - 17, 1<<22 - 16, 1<<24 - 16, 1<<24 - 16 + MaxDictionary}
	found := 0
	for range 20000 {
		l := minWordLen + rng.IntN(maxWordLen-minWordLen+1)
		w := dictWord(l, rng.IntN(1<<dictBits[l]))
		data := append(slices.Clone(w[:max(minWordLen, l-rng.IntN(12))]), " xyz 01234567890123456789"...)
		maxLen := 4 + rng.IntN(len(data)-12)
		reach := reaches[rng.IntN(len(reaches))] + uint32(rng.IntN(3))
		perByte := []int{16, 22}[rng.IntN(2)]
		// Half the scores to beat at or next to what a word of a random
		// length makes at the least distance cost, where a bound one off
		// would pass over the word that wins.
		minScore := rng.IntN(400) - 50
		if rng.IntN(2) == 0 {
			minScore = perByte*(minWordLen+rng.IntN(maxWordLen-minWordLen+1)) - 4*bits.Len32(reach+1) - 16 - rng.IntN(3)
		}

		wantL, wantD, wantScore, wantCut := 0, uint32(0), minScore, 0
		x := load32(data, 0)
		k, hi := e.dict.lookup(x)
		for end := min(hi, k+e.q.dictDepth); k < end && uint32(e.dict.pre[k]) == x; k++ {
			wl, idx := int(e.dict.ent[k]>>11), int(e.dict.ent[k]&(1<<11-1))
			word, m := dictWord(wl, idx), 0
			for m < min(wl, maxLen) && word[m] == data[m] {
				m++
			}
			if c := wl - m; c <= maxCut {
				d := dictDistance(reach, wl, idx, omitLast[c])
				if s := perByte*m - 4*bits.Len32(d) - 16; s > wantScore {
					wantL, wantD, wantScore, wantCut = m, d, s, c
				}
			}
		}
		l2, d2, score, cut := e.searchDict(data, 0, maxLen, reach, perByte, minScore)
		if l2 != wantL || d2 != wantD || score != wantScore || cut != wantCut {
			t.Fatalf("%q maxLen %d reach %d perByte %d minScore %d: got length %d distance %d score %d cut %d, want %d %d %d %d",
				data, maxLen, reach, perByte, minScore, l2, d2, score, cut, wantL, wantD, wantScore, wantCut)
		}
		if wantL > 0 {
			found++
		}
	}
	if found < 2000 {
		t.Errorf("%d of 20000 searches found a word, want more", found)
	}
}
