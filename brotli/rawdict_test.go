package brotli

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/cbrotli"
)

// Raw dictionaries (Options.Dictionary) are decoded by Google's decoder
// from brotli 1.1.0 on, which internal/cbrotli builds from its C sources.

// TestMain removes the decoder built for the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	cbrotli.Cleanup()
	os.Exit(code)
}

// decodeWithDict decodes comp with Google's decoder holding dict; the
// test is skipped when the decoder cannot be built.
func decodeWithDict(t testing.TB, comp, dict []byte) ([]byte, error) {
	t.Helper()
	path, err := cbrotli.Decoder()
	if err != nil {
		t.Skipf("no C decoder with dictionaries: %v", err)
	}
	return cbrotli.Decode(path, t.TempDir(), comp, dict)
}

func checkWithDict(t *testing.T, what string, comp, dict, want []byte) {
	t.Helper()
	got, err := decodeWithDict(t, comp, dict)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s: decoded %d bytes of %d (first difference at %d): %v", what, len(got), len(want), firstDiff(got, want), err)
	}
}

// versions returns an older and a newer version of a text: the newer has
// some of the older's lines changed, dropped or moved and new lines among
// them, as a script or a style sheet has from one release to the next. Its
// words are English ones, so that the static dictionary has them too.
func versions(seed uint64, n int) (older, newer []byte) {
	rng := rand.New(rand.NewPCG(seed, 99))
	words := strings.Fields("the of and to in is was for on that with as by at from it an be this which or are his her function return var const let if else while document window element node value index length people house water")
	line := func() string {
		var b strings.Builder
		for range 3 + rng.IntN(9) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d;\n", rng.IntN(1000))
		return b.String()
	}
	var lines []string
	size := 0
	for size < n {
		l := line()
		lines = append(lines, l)
		size += len(l)
	}
	older = []byte(strings.Join(lines, ""))
	for i := range lines {
		switch rng.IntN(20) {
		case 0:
			lines[i] = line()
		case 1:
			lines[i] = ""
		case 2:
			lines[i] += line()
		case 3:
			j := rng.IntN(len(lines))
			lines[i], lines[j] = lines[j], lines[i]
		}
	}
	return older, []byte(strings.Join(lines, ""))
}

// Every quality copies from a raw dictionary, and Google's decoder holding
// the same dictionary reads the stream: from Encode, from the Writer with
// a flush in the middle, and from segments whose first piece starts after
// the dictionary. A new version of a text against the old one as
// dictionary comes out under two thirds as long as without it at 0-3
// (43-51%: their tables hold few of the dictionary's positions) and under
// a quarter at 4-11 (19-20%).
func TestRawDictionary(t *testing.T) {
	oneGoroutine(t)
	older, newer := versions(1, 80_000)
	// Words the dictionary lacks, which the static dictionary has: its
	// references count their distances past the raw dictionary.
	newer = append(newer, "\nmountain: a beautiful village, whose gardens and orchards are surrounded by forests; yesterday the children discovered a waterfall.\n"...)
	for q := MinQuality; q <= MaxQuality; q++ {
		plain, err := Encode(nil, newer, Options{Quality: q})
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{Quality: q, Dictionary: prepared(t, older)}
		comp, err := Encode(nil, newer, opts)
		if err != nil {
			t.Fatal(err)
		}
		checkWithDict(t, fmt.Sprintf("quality %d, Encode", q), comp, older, newer)
		// 4-9 search the dictionary's index too (0.19 of plain, 0.28-0.36
		// without it).
		bound := map[bool]float64{false: 0.67, true: 0.25}[q >= 4]
		r := float64(len(comp)) / float64(len(plain))
		if r > bound {
			t.Errorf("quality %d: %d bytes with the dictionary, %d without: %.2f, more than %.2f", q, len(comp), len(plain), r, bound)
		}
		t.Logf("quality %d: %d bytes with the dictionary, %d without: %.2f", q, len(comp), len(plain), r)

		var buf bytes.Buffer
		w, err := NewWriter(&buf, Options{Quality: q, Dictionary: prepared(t, older), SizeHint: len(newer)})
		if err != nil {
			t.Fatal(err)
		}
		half := len(newer) / 2
		w.Write(newer[:half])
		w.Flush()
		w.Write(newer[half:])
		w.Close()
		checkWithDict(t, fmt.Sprintf("quality %d, Writer", q), buf.Bytes(), older, newer)

		enc, err := NewEncoder(opts)
		if err != nil {
			t.Fatal(err)
		}
		segs := enc.EncodeSegment(nil, newer[:half], Segment{First: true, BodyLen: len(newer)})
		segs = enc.EncodeSegment(segs, newer[half:], Segment{Last: true, Prefix: newer[:half], Offset: half, BodyLen: len(newer)})
		checkWithDict(t, fmt.Sprintf("quality %d, segments", q), segs, older, newer)
	}
}

// A copy may start in the dictionary but not run on into the stream: a
// body that repeats the dictionary's end followed by its own start tempts
// every match finder to make one, at every quality.
func TestRawDictionaryCopyEndsInIt(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(5, 6))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'a' + byte(rng.IntN(26))
		}
		return b
	}
	for _, tail := range []int{1, 2, 3, 5, 40} {
		head := random(300)
		end := random(tail) // the dictionary's last bytes
		dict := append(random(5000), end...)
		// The body: head, then end+head (a copy from the dictionary's
		// end that would go on into the stream's first bytes), repeated.
		body := append([]byte{}, head...)
		for range 3 {
			body = append(append(body, end...), head...)
			body = append(body, random(50)...)
		}
		for q := MinQuality; q <= MaxQuality; q++ {
			opts := Options{Quality: q, Dictionary: prepared(t, dict)}
			comp, err := Encode(nil, body, opts)
			if err != nil {
				t.Fatal(err)
			}
			checkWithDict(t, fmt.Sprintf("quality %d, %d bytes of dictionary end", q, tail), comp, dict, body)
			var buf bytes.Buffer
			w, err := NewWriter(&buf, opts)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(body)
			w.Close()
			checkWithDict(t, fmt.Sprintf("quality %d, %d bytes of dictionary end, Writer", q, tail), buf.Bytes(), dict, body)
		}
	}
}

// Random bodies and dictionaries that share pieces, at random qualities
// and windows (some smaller than dictionary and body together).
func TestRawDictionaryRandom(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(7, 8))
	pool, _ := versions(3, 400_000)
	for range 60 {
		piece := func(n int) []byte {
			at := rng.IntN(len(pool) - n)
			return pool[at : at+n]
		}
		var dict, body []byte
		for range 1 + rng.IntN(6) {
			dict = append(dict, piece(1+rng.IntN(20_000))...)
		}
		for range 1 + rng.IntN(8) {
			if rng.IntN(3) == 0 {
				at := rng.IntN(len(dict))
				body = append(body, dict[at:min(len(dict), at+1+rng.IntN(5000))]...)
			} else {
				body = append(body, piece(1+rng.IntN(30_000))...)
			}
		}
		opts := Options{Quality: rng.IntN(MaxQuality + 1), LGWin: 10 + rng.IntN(15), Dictionary: prepared(t, dict)}
		comp, err := Encode(nil, body, opts)
		if err != nil {
			t.Fatal(err)
		}
		checkWithDict(t, fmt.Sprintf("quality %d, window %d, %d-byte dictionary, %d-byte body", opts.Quality, opts.LGWin, len(dict), len(body)), comp, dict, body)
	}
}

func TestNewDictionaryBounds(t *testing.T) {
	for _, n := range []int{0, MaxDictionary + 1} {
		if _, err := NewDictionary(make([]byte, n)); err == nil {
			t.Errorf("a dictionary of %d bytes was taken", n)
		}
	}
	if _, err := NewDictionary(make([]byte, MaxDictionary)); err != nil {
		t.Error(err)
	}
}

// prepared is NewDictionary for bytes the test knows to be within bounds.
func prepared(t testing.TB, b []byte) *Dictionary {
	t.Helper()
	d, err := NewDictionary(b)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// One Dictionary serves encoders at once: its index, built by the first
// that needs it, is shared read-only (go test -race checks the sharing),
// and every stream decodes.
func TestDictionaryShared(t *testing.T) {
	older, newer := versions(3, 40_000)
	d := prepared(t, older)
	outs := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Go(func() {
			outs[i], _ = Encode(nil, newer, Options{Quality: 4 + i%6, Dictionary: d})
		})
	}
	wg.Wait()
	for i, out := range outs {
		checkWithDict(t, fmt.Sprintf("encoder %d at quality %d", i, 4+i%6), out, older, newer)
	}
	if d.table == nil {
		t.Fatal("no index was built")
	}
}

// A dictionary longer than rawFillSpan enters the tables with its last
// rawFillSpan bytes only at qualities 0-9, so that a stream's setup does
// not grow with the dictionary; at 4-9 the index still finds the long
// copies from its start, and every stream decodes.
func TestRawDictionaryFillSpan(t *testing.T) {
	oneGoroutine(t)
	older, newer := versions(5, 60_000)
	// The older text, then 1.2 MiB of random bytes: the text lies beyond
	// the span from the dictionary's end.
	rng := rand.New(rand.NewPCG(5, 6))
	dict := append(bytes.Clone(older), make([]byte, 1_200_000)...)
	for i := len(older); i < len(dict); i++ {
		dict[i] = byte(rng.Uint32())
	}
	d := prepared(t, dict)
	for _, q := range []int{1, 3, 4, 5, 9} {
		w, err := NewWriter(io.Discard, Options{Quality: q, Dictionary: d})
		if err != nil {
			t.Fatal(err)
		}
		lo := w.rawEnd - rawFillSpan
		for i, p := range w.e.table {
			if p != 0 && p < lo {
				t.Fatalf("quality %d: table slot %d holds position %d, %d bytes before the span", q, i, p, lo-p)
			}
		}
		comp, err := Encode(nil, newer, Options{Quality: q, Dictionary: d})
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := Encode(nil, newer, Options{Quality: q})
		if r := float64(len(comp)) / float64(len(plain)); q >= 4 && r > 0.3 {
			t.Errorf("quality %d: %d bytes against %d without the dictionary: the index found too little", q, len(comp), len(plain))
		}
		checkWithDict(t, fmt.Sprintf("quality %d", q), comp, dict, newer)
	}
}
