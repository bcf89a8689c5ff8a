package brotli

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	ab "github.com/andybalholm/brotli"
)

// headerWindow reads the window size declared by a stream header
// (RFC 7932 section 9.1), or -1 for the large-window marker.
func headerWindow(b []byte) int {
	if b[0]&1 == 0 {
		return 16
	}
	if n := b[0] >> 1 & 7; n != 0 {
		return 17 + int(n)
	}
	switch m := b[0] >> 4 & 7; m {
	case 0:
		return 17
	case 1:
		return -1
	default:
		return 8 + int(m)
	}
}

func TestHeaderWindow(t *testing.T) {
	for lgwin := 10; lgwin <= 24; lgwin++ {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, Options{Quality: 1, LGWin: lgwin})
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		if got := headerWindow(buf.Bytes()); got != lgwin {
			t.Errorf("Writer with LGWin %d declares %d", lgwin, got)
		}
		if got := decodeAB(t, buf.Bytes()); len(got) != 0 {
			t.Errorf("empty stream with LGWin %d decodes to %d bytes", lgwin, len(got))
		}
	}
	// One-shot: the smallest window that holds the body.
	for _, c := range []struct{ n, want int }{{0, 10}, {1000, 10}, {1009, 11}, {100_000, 17}, {5 << 20, 22}} {
		comp, _ := Encode(nil, make([]byte, c.n), Options{Quality: 2})
		if got := headerWindow(comp); got != c.want {
			t.Errorf("Encode of %d bytes declares window %d, want %d", c.n, got, c.want)
		}
	}
	// Writer with a size hint: the same, capped by LGWin.
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Options{Quality: 2, LGWin: 18, SizeHint: 3000})
	w.Close()
	if got := headerWindow(buf.Bytes()); got != 12 {
		t.Errorf("Writer with SizeHint 3000 declares %d, want 12", got)
	}
	// A hint that undershoots: the small window holds for the whole body.
	in := edgeInputs()["mixed"]
	buf.Reset()
	w.ResetOptions(&buf, Options{Quality: 4, SizeHint: 3000})
	w.Write(in)
	w.Close()
	if got := headerWindow(buf.Bytes()); got != 12 {
		t.Errorf("Writer with SizeHint 3000 declares %d, want 12", got)
	}
	checkBoth(t, buf.Bytes(), in)
}

// TestWindowBoundary places repeats exactly at the largest distance the
// window allows and one byte beyond it: a reference beyond the window
// would decode as a static dictionary word, or fail.
func TestWindowBoundary(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, lgwin := range []int{10, 11, 16} {
		max := 1<<lgwin - 16
		for _, d := range []int{max - 1, max, max + 1, max + 2} {
			in := make([]byte, d+200)
			for i := range in {
				in[i] = byte(rng.Uint32())
			}
			copy(in[d:], in[:200])
			for q := MinQuality; q <= MaxQuality; q++ {
				comp, _ := Encode(nil, in, Options{Quality: q, LGWin: lgwin})
				if got := headerWindow(comp); got != lgwin {
					t.Fatalf("window %d declared as %d", lgwin, got)
				}
				checkBoth(t, comp, in)
				var buf bytes.Buffer
				w, _ := NewWriter(&buf, Options{Quality: q, LGWin: lgwin})
				w.Write(in)
				w.Close()
				checkBoth(t, buf.Bytes(), in)
				if d <= max && len(comp) > len(in)-100 {
					t.Errorf("w%d q%d: repeat at distance %d (allowed) not found: %d -> %d", lgwin, q, d, len(in), len(comp))
				}
			}
		}
	}
}

func TestQualityRefused(t *testing.T) {
	for _, q := range []int{-1, MaxQuality + 1, 12} {
		if _, err := NewWriter(io.Discard, Options{Quality: q}); !errors.Is(err, ErrQuality) {
			t.Errorf("NewWriter quality %d: %v", q, err)
		}
		if _, err := NewEncoder(Options{Quality: q}); !errors.Is(err, ErrQuality) {
			t.Errorf("NewEncoder quality %d: %v", q, err)
		}
		if _, err := Encode(nil, []byte("x"), Options{Quality: q}); !errors.Is(err, ErrQuality) {
			t.Errorf("Encode quality %d: %v", q, err)
		}
	}
	for _, lgwin := range []int{9, 25, 30} {
		if _, err := NewEncoder(Options{LGWin: lgwin}); err == nil {
			t.Errorf("window %d accepted", lgwin)
		}
	}
}

// TestFlush checks that after every Flush the output so far decodes to
// everything written so far.
func TestFlush(t *testing.T) {
	oneGoroutine(t)
	in := corpus(t)["jquery.min.js"]
	rng := rand.New(rand.NewPCG(7, 8))
	for q := MinQuality; q <= MaxQuality; q++ {
		var buf bytes.Buffer
		w, _ := NewWriter(&buf, Options{Quality: q})
		for written := 0; written < len(in); {
			n := min(len(in)-written, rng.IntN(20_000))
			w.Write(in[written : written+n])
			written += n
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			r := ab.NewReader(bytes.NewReader(buf.Bytes()))
			got := make([]byte, written)
			if _, err := io.ReadFull(r, got); err != nil || !bytes.Equal(got, in[:written]) {
				t.Fatalf("q%d: after flush at %d: %v (first difference at %d)", q, written, err, firstDiff(got, in))
			}
		}
		w.Flush() // a flush with nothing pending adds nothing undecodable
		w.Close()
		checkBoth(t, buf.Bytes(), in)
	}
}

// split cuts in into n pieces at random points, some of them empty.
func split(rng *rand.Rand, in []byte, n int) [][]byte {
	cuts := []int{0, len(in)}
	for range n - 1 {
		cuts = append(cuts, rng.IntN(len(in)+1))
	}
	slices.Sort(cuts)
	var pieces [][]byte
	for i := 0; i+1 < len(cuts); i++ {
		pieces = append(pieces, in[cuts[i]:cuts[i+1]])
	}
	return pieces
}

func TestSegments(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	inputs := corpus(t)
	inputs["text"] = edgeInputs()["text"]
	for name, in := range inputs {
		in = raceCut(in)
		for _, n := range []int{1, 2, 5, 16} {
			q := rng.IntN(MaxQuality + 1)
			pieces := split(rng, in, n)
			// Compress the pieces in parallel, each with its own Encoder.
			outs := make([][]byte, len(pieces))
			var wg sync.WaitGroup
			for i, p := range pieces {
				wg.Go(func() {
					enc, _ := NewEncoder(Options{Quality: q, LGWin: 18})
					outs[i] = enc.EncodeSegment(nil, p, Segment{First: i == 0, Last: i == len(pieces)-1})
				})
			}
			wg.Wait()
			stream := bytes.Join(outs, nil)
			t.Run(name, func(t *testing.T) { checkBoth(t, stream, in) })
			if headerWindow(stream) != 18 {
				t.Errorf("segments declare window %d", headerWindow(stream))
			}
		}
	}
	// One Encoder reused for all pieces, including empty ones.
	enc, _ := NewEncoder(Options{Quality: 3})
	in := inputs["text"]
	var stream []byte
	pieces := [][]byte{{}, in[:1000], {}, in[1000:1001], in[1001:]}
	for i, p := range pieces {
		stream = enc.EncodeSegment(stream, p, Segment{First: i == 0, Last: i == len(pieces)-1})
	}
	checkBoth(t, stream, in)
}

// TestZeroAllocs checks that a reused Writer and Encoder allocate nothing
// per response once warm.
func TestZeroAllocs(t *testing.T) {
	oneGoroutine(t)
	in := corpus(t)["api-listing.json"]
	for q := MinQuality; q <= MaxQuality; q++ {
		runs := 5
		if q >= 10 {
			runs = 1 // 0.5 MB/s, twenty times slower under -race
		}
		w, _ := NewWriter(io.Discard, Options{Quality: q})
		run := func() {
			w.Reset(io.Discard)
			w.Write(in[:50_000])
			w.Flush()
			w.Write(in[50_000:])
			w.Close()
		}
		if a := testing.AllocsPerRun(runs, run); a != 0 {
			t.Errorf("q%d: Writer Reset+Write+Flush+Close: %v allocations", q, a)
		}
		enc, _ := NewEncoder(Options{Quality: q})
		dst := enc.Encode(nil, in)
		if a := testing.AllocsPerRun(runs, func() { dst = enc.Encode(dst[:0], in) }); a != 0 {
			t.Errorf("q%d: Encoder.Encode: %v allocations", q, a)
		}
		seg := func() { dst = enc.EncodeSegment(dst[:0], in[40_000:], Segment{Prefix: in[:40_000]}) }
		seg()
		if a := testing.AllocsPerRun(runs, seg); a != 0 {
			t.Errorf("q%d: Encoder.EncodeSegment with a prefix: %v allocations", q, a)
		}
		// With a raw dictionary too.
		dict := prepared(t, in[:40_000])
		denc, _ := NewEncoder(Options{Quality: q, Dictionary: dict})
		dst = denc.Encode(dst[:0], in[40_000:])
		if a := testing.AllocsPerRun(runs, func() { dst = denc.Encode(dst[:0], in[40_000:]) }); a != 0 {
			t.Errorf("q%d: Encoder.Encode with a dictionary: %v allocations", q, a)
		}
		dw, _ := NewWriter(io.Discard, Options{Quality: q, Dictionary: dict})
		dw.Write(in[40_000:])
		dw.Close()
		if a := testing.AllocsPerRun(runs, func() { dw.Reset(io.Discard); dw.Write(in[40_000:]); dw.Close() }); a != 0 {
			t.Errorf("q%d: Writer with a dictionary: %v allocations", q, a)
		}
	}
}

// TestShortDistanceCodes checks the ring buffer codes against RFC 7932
// section 4 directly, for a full ring and for a partly known one.
func TestShortDistanceCodes(t *testing.T) {
	var r distRing
	r.reset(true)
	r.push(100)
	r.push(50) // ring: 50, 100, 4, 11
	want := map[uint32]int{50: 0, 100: 1, 4: 2, 11: 3, 49: 4, 51: 5, 48: 6, 52: 7, 47: 8, 53: 9, 99: 10, 101: 11, 98: 12, 102: 13, 97: 14, 103: 15, 60: -1, 1: -1}
	for d, code := range want {
		if got := r.short(d); got != code {
			t.Errorf("full ring, distance %d: code %d, want %d", d, got, code)
		}
	}
	r.reset(false)
	r.push(50) // only the last distance is known
	for d, code := range map[uint32]int{50: 0, 49: 4, 53: 9, 4: -1, 11: -1, 100: -1} {
		if got := r.short(d); got != code {
			t.Errorf("one known distance, distance %d: code %d, want %d", d, got, code)
		}
	}
}

// raceCut shortens an input under the race detector, where the encoders
// run ten to twenty times slower: what it checks there (encoders at work
// on several goroutines at once) needs no long input, and the run without
// -race takes the whole of it.
func raceCut(in []byte) []byte {
	if raceEnabled {
		return in[:min(len(in), 100_000)]
	}
	return in
}

// TestSegmentsPrefix compresses pieces that may copy from the content
// before them: the stream must decode, and be smaller than with
// independent pieces.
func TestSegmentsPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for name, in := range corpus(t) {
		if len(in) < 50_000 {
			continue
		}
		in = raceCut(in)
		q := 1 + rng.IntN(MaxQuality)
		cuts := []int{0}
		for c := 0; c < len(in); {
			c = min(len(in), c+8_000+rng.IntN(8_000))
			cuts = append(cuts, c)
		}
		outs := make([][]byte, len(cuts)-1)
		plain := 0
		var wg sync.WaitGroup
		for i := range outs {
			wg.Go(func() {
				enc, _ := NewEncoder(Options{Quality: q, LGWin: 20})
				seg := Segment{First: i == 0, Last: i == len(outs)-1}
				seg.Prefix = in[:cuts[i]]
				outs[i] = enc.EncodeSegment(nil, in[cuts[i]:cuts[i+1]], seg)
			})
		}
		wg.Wait()
		primed := bytes.Join(outs, nil)
		t.Run(name, func(t *testing.T) { checkBoth(t, primed, in) })
		enc, _ := NewEncoder(Options{Quality: q, LGWin: 20})
		for i := range outs {
			plain += len(enc.EncodeSegment(nil, in[cuts[i]:cuts[i+1]], Segment{First: i == 0, Last: i == len(outs)-1}))
		}
		t.Logf("%s q%d: %d pieces: %d bytes with prefixes, %d without", name, q, len(outs), len(primed), plain)
		if len(primed) >= plain {
			t.Errorf("%s q%d: %d pieces with prefixes take %d bytes, without %d", name, q, len(outs), len(primed), plain)
		}
	}
	// A prefix longer than the window is cut to the window.
	in := edgeInputs()["mixed"]
	enc, _ := NewEncoder(Options{Quality: 4, LGWin: 10})
	stream := enc.EncodeSegment(nil, in[:100_000], Segment{First: true})
	stream = enc.EncodeSegment(stream, in[100_000:], Segment{Last: true, Prefix: in[:100_000]})
	checkBoth(t, stream, in)
}

// A piece after the first that is told its Offset may refer to the static
// dictionary, whose distances count from the stream's start: with prefixes
// cut to the window and without prefixes, at each kind of match finder
// that searches it (lazy 4, deep 5-9, optimal 10-11), the stream
// decodes with both decoders, and pieces without a prefix come out
// smaller told their offsets than not (they are then the first of their
// text, and the dictionary has the words).
func TestSegmentsOffsetDictionary(t *testing.T) {
	oneGoroutine(t)
	in := corpus(t)["api-listing.json"]
	if len(in) < 90_000 {
		t.Skip("api-listing.json missing from the corpus")
	}
	in = in[:90_000]
	const piece = 9_000
	for _, q := range []int{4, 5, 9, 10, 11} {
		for _, primed := range []bool{true, false} {
			sizes := [2]int{}
			for k, told := range []bool{true, false} {
				enc, _ := NewEncoder(Options{Quality: q, LGWin: 14}) // a window of 16 KiB - 16: prefixes are cut
				var stream []byte
				for off := 0; off < len(in); off += piece {
					seg := Segment{First: off == 0, Last: off+piece >= len(in)}
					if primed {
						seg.Prefix = in[:off]
					}
					if told {
						seg.Offset = off
					}
					stream = enc.EncodeSegment(stream, in[off:min(off+piece, len(in))], seg)
				}
				checkBoth(t, stream, in)
				sizes[k] = len(stream)
			}
			t.Logf("q%d, prefixes %v: %d bytes told the offsets, %d not", q, primed, sizes[0], sizes[1])
			if !primed && sizes[0] >= sizes[1] {
				t.Errorf("q%d, no prefixes: %d bytes told the offsets, %d not: no dictionary reference paid", q, sizes[0], sizes[1])
			}
		}
	}
}

// A Writer whose absolute positions reach their limit starts its tables
// afresh in the middle of a stream, as a pooled Writer does after some
// hundreds of long responses. The stream must go on decoding; qualities
// 0-3 test a candidate by its distance alone, and once read an emptied
// slot (position 0) as a candidate in reach before the history.
func TestWriterPositionRestart(t *testing.T) {
	oneGoroutine(t)
	body := wordText(3, 300_000)
	for q := MinQuality; q <= MaxQuality; q++ {
		writerRestart(t, q, 18, body)
	}
	// A window small enough that the history slides after the restart
	// too, at the qualities that test a candidate by its distance alone.
	long := wordText(4, 700_000)
	for q := MinQuality; q <= 4; q++ {
		writerRestart(t, q, 16, long)
	}
}

// writerRestart streams body at quality q and window lgwin through a
// Writer whose positions restart within its first meta-blocks, and checks
// that the stream decodes.
func writerRestart(t *testing.T, q, lgwin int, body []byte) {
	t.Helper()
	var out bytes.Buffer
	w, err := NewWriter(&out, Options{Quality: q, LGWin: lgwin})
	if err != nil {
		t.Fatal(err)
	}
	// Positions as a Writer reused for long: the restart comes
	// within the first meta-blocks.
	w.base = positionLimit - 200_000
	w.streamA = w.base
	w.e.next = w.base
	for p := body; len(p) > 0; {
		n := min(len(p), 50_000)
		if _, err := w.Write(p[:n]); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		p = p[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !w.restarted {
		t.Fatalf("quality %d, window %d: the positions did not restart", q, lgwin)
	}
	if got := decodeAB(t, out.Bytes()); !bytes.Equal(got, body) {
		t.Fatalf("quality %d, window %d: %d bytes decoded, want %d (first difference at %d)", q, lgwin, len(got), len(body), firstDiff(got, body))
	}
}

// WriteLast writes what Write and Close write, and on a fresh or reset
// Writer without a dictionary leaves the history empty: the body is
// compressed where it lies. The Writer compared is one that served another
// stream before, as a pooled one has.
func TestWriteLast(t *testing.T) {
	oneGoroutine(t)
	files := corpus(t)
	long := wordText(5, 1_400_000) // slides the history of a 2^19 window at every quality
	for q := MinQuality; q <= MaxQuality; q++ {
		bodies := [][]byte{files["api-listing.json"], files["jquery.min.js"][:1000], {'x'}}
		if q <= 9 {
			bodies = append(bodies, long)
		}
		for _, body := range bodies {
			opts := Options{Quality: q, LGWin: 19, SizeHint: len(body)}
			var want bytes.Buffer
			ww, _ := NewWriter(&want, opts)
			ww.Write(body)
			ww.Close()

			var got bytes.Buffer
			w, _ := NewWriter(io.Discard, opts)
			w.Write(files["api-small.json"])
			w.Close()
			w.ResetOptions(&got, opts)
			held := cap(w.hist)
			if err := w.WriteLast(body); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("q%d, %d bytes: WriteLast wrote %d bytes, Write and Close %d", q, len(body), got.Len(), want.Len())
			}
			if cap(w.hist) != held {
				t.Errorf("q%d, %d bytes: the history grew from %d to %d bytes", q, len(body), held, cap(w.hist))
			}
			if _, err := w.Write([]byte("more")); !errors.Is(err, errClosed) {
				t.Errorf("q%d: Write after WriteLast: %v, want errClosed", q, err)
			}
		}
	}
	checkBoth(t, func() []byte {
		var b bytes.Buffer
		w, _ := NewWriter(&b, Options{Quality: 5})
		w.WriteLast(long)
		return b.Bytes()
	}(), long)

	// Where the body cannot be compressed where it lies (part of it
	// written already, a dictionary before it), the output is still Write
	// and Close's.
	body := files["api-listing.json"]
	dict := prepared(t, files["jquery.min.js"])
	for _, opts := range []Options{{Quality: 6}, {Quality: 6, Dictionary: dict}} {
		var want, got bytes.Buffer
		ww, _ := NewWriter(&want, opts)
		ww.Write(body)
		ww.Close()
		w, _ := NewWriter(&got, opts)
		w.Write(body[:30_000])
		if err := w.WriteLast(body[30_000:]); err != nil {
			t.Fatal(err)
		}
		if opts.Dictionary != nil {
			got.Reset()
			w.ResetOptions(&got, opts)
			w.WriteLast(body)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("dictionary %v: WriteLast wrote %d bytes, Write and Close %d", opts.Dictionary != nil, got.Len(), want.Len())
		}
	}
}

// WriteLast writes what Write and Close write with windows small enough
// that Write's history slides after every meta-block: the static
// dictionary's span (qualities 4 and 5) is counted from the stream's
// start in both, where Write once counted it again from each slide's.
func TestWriteLastSlidingWindow(t *testing.T) {
	oneGoroutine(t)
	body := corpus(t)["react-dom.development.js"]
	for q := MinQuality; q <= 9; q++ {
		for _, lgwin := range []int{10, 12, 22} {
			opts := Options{Quality: q, LGWin: lgwin, SizeHint: len(body)}
			var want, got bytes.Buffer
			ww, _ := NewWriter(&want, opts)
			ww.Write(body)
			ww.Close()
			w, _ := NewWriter(&got, opts)
			if err := w.WriteLast(body); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("q%d, window %d: WriteLast wrote %d bytes, Write and Close %d", q, lgwin, got.Len(), want.Len())
			}
		}
	}
}

// WriteLast hands its output on a meta-block at a time, as Write does,
// so that the Writer's output buffer stays a block's size: an
// incompressible body (stored meta-blocks) once left a copy of itself in
// the buffer of a Writer kept for reuse.
func TestWriteLastEmitsPerBlock(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(21, 22))
	body := make([]byte, 1<<20)
	for i := range body {
		body[i] = byte(rng.Uint32())
	}
	for _, q := range []int{1, 6} {
		opts := Options{Quality: q, LGWin: 19, SizeHint: len(body)}
		var want, got chunks
		ww, _ := NewWriter(&want, opts)
		ww.Write(body)
		ww.Close()
		w, _ := NewWriter(&got, opts)
		if err := w.WriteLast(body); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.sizes, want.sizes) {
			t.Errorf("q%d: WriteLast wrote pieces of %v bytes, Write and Close %v", q, got.sizes, want.sizes)
		}
		if c := cap(w.e.bw.buf); c > len(body)/2 {
			t.Errorf("q%d: the output buffer holds %d bytes after a %d-byte body", q, c, len(body))
		}
	}
}

// chunks records the sizes of the writes it is given.
type chunks struct{ sizes []int }

func (c *chunks) Write(p []byte) (int, error) {
	c.sizes = append(c.sizes, len(p))
	return len(p), nil
}

// A closed Writer keeps no hold on its destination: a server keeps
// closed encoders idle for reuse, and the last response's writer must not
// stay reachable through one until its next Reset.
func TestClosedWriterReleasesDestination(t *testing.T) {
	for _, last := range []bool{false, true} {
		w, err := NewWriter(io.Discard, Options{Quality: 5})
		if err != nil {
			t.Fatal(err)
		}
		dst := new(bytes.Buffer)
		w.Reset(dst)
		if last {
			err = w.WriteLast([]byte("a body written and ended at once"))
		} else {
			_, err = w.Write([]byte("a body written, then closed"))
			if err == nil {
				err = w.Close()
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		if dst.Len() == 0 {
			t.Fatal("nothing written")
		}
		if w.dst != nil {
			t.Errorf("WriteLast %v: the closed Writer still holds its destination", last)
		}
		if err := w.Flush(); !errors.Is(err, errClosed) {
			t.Errorf("Flush after close: %v, want errClosed", err)
		}
		if err := w.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	}
}
