package brotli

import (
	"bytes"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	ab "github.com/andybalholm/brotli"
)

func newABReader(comp []byte) io.Reader { return ab.NewReader(bytes.NewReader(comp)) }

// FuzzRoundTrip compresses random input at a random quality, window and
// mode, in one shot, streaming (with flushes at random points and
// sometimes a size hint that undershoots) and in segments cut at random
// points (each with the content before it, a tail of it or none as its
// prefix, and told its offset or not), and checks that every output
// decodes to the input.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("hello, hello, hello world"), uint8(1), uint8(22), uint64(1))
	f.Add(bytes.Repeat([]byte("abcd"), 300), uint8(4), uint8(10), uint64(2))
	f.Add([]byte{}, uint8(0), uint8(16), uint64(3))
	// Text rich in static dictionary words, for the qualities that refer
	// to the dictionary.
	f.Add([]byte(`{"description":"Returns the list of available resources","type":"string"}`), uint8(5), uint8(10), uint64(4))
	f.Add([]byte("<html><head><title>Welcome to the information page</title></head><body>"), uint8(4), uint8(22), uint64(5))
	// Enough literals and commands of two kinds for the refined block
	// splitting of qualities 10 and 11.
	mixed := mixedLiterals(6)
	two := append(mixed[:2048:2048], mixed[40<<10:42<<10]...)
	f.Add(two, uint8(10), uint8(16), uint64(6))
	f.Add(two, uint8(11), uint8(22), uint64(7))
	f.Fuzz(func(t *testing.T, in []byte, q, lgwin uint8, seed uint64) {
		opts := Options{Quality: int(q) % (MaxQuality + 1), LGWin: 10 + int(lgwin)%15, Mode: Mode(seed>>60) % 3}
		comp, err := Encode(nil, in, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := io.ReadAll(newABReader(comp)); err != nil || !bytes.Equal(got, in) {
			t.Fatalf("one shot %+v: %v", opts, err)
		}
		rng := rand.New(rand.NewPCG(seed, 0))
		if rng.IntN(2) == 0 {
			// A hint that undershoots the body: the window it picks
			// must still hold for the whole stream.
			opts.SizeHint = 1 + len(in)/2
		}
		if got, err := io.ReadAll(newABReader(streamPieces(t, in, opts, rng))); err != nil || !bytes.Equal(got, in) {
			t.Fatalf("stream %+v: %v", opts, err)
		}
		enc, err := NewEncoder(Options{Quality: opts.Quality, LGWin: opts.LGWin, Mode: opts.Mode})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := io.ReadAll(newABReader(segmentPieces(enc, in, rng))); err != nil || !bytes.Equal(got, in) {
			t.Fatalf("segments %+v: %v", opts, err)
		}
	})
}

// streamPieces writes in through a Writer of opts in pieces of random
// lengths, flushing after some, and returns the stream.
func streamPieces(t testing.TB, in []byte, opts Options, rng *rand.Rand) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	writePieces(w, in, rng)
	return buf.Bytes()
}

// writePieces writes in through w in pieces of random lengths, flushing
// after some, and closes w.
func writePieces(w *Writer, in []byte, rng *rand.Rand) {
	for p := in; len(p) > 0; {
		n := 1 + rng.IntN(len(p))
		w.Write(p[:n])
		p = p[n:]
		if rng.IntN(2) == 0 {
			w.Flush()
		}
	}
	w.Close()
}

// segmentPieces encodes in with enc as segments cut at random points,
// each with the content before it, a tail of it or none as its prefix,
// told its offset or not, and returns the stream.
func segmentPieces(enc *Encoder, in []byte, rng *rand.Rand) []byte {
	var segs []byte
	for off, last := 0, false; !last; {
		end := min(off+1+rng.IntN(len(in)-off+1), len(in))
		last = end == len(in)
		seg := Segment{First: off == 0, Last: last}
		if off > 0 {
			seg.Prefix = in[rng.IntN(off+1):off]
			if rng.IntN(2) == 0 {
				seg.Offset = off
			}
		}
		segs = enc.EncodeSegment(segs, in[off:end], seg)
		off = end
	}
	return segs
}

// FuzzReuse codes the input with one Encoder and one Writer reused across
// random qualities, windows, modes, size hints and raw dictionaries (the
// Writer fed in random pieces and flushed at random points, as a pooled
// encoder in the server is), and checks each output against a fresh
// encoder's byte for byte. After each it checks what metaBlock's partial
// clears rely on: no distance count past the current alphabet, and no
// command count when cmdZero says there is none. A count left behind
// changes a later stream's codes, not whether it decodes, so
// FuzzRoundTrip cannot see it.
func FuzzReuse(f *testing.F) {
	f.Add([]byte("hello, hello, hello world"), uint64(1))
	f.Add(copyMix(1, 6000), uint64(2))
	f.Add(copyMix(2, 3000), uint64(3))
	f.Add(copyMix(3, 20000), uint64(4))
	f.Add(records(4, 12000), uint64(5))
	f.Add(records(5, 3000), uint64(6))
	f.Fuzz(func(t *testing.T, in []byte, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 2))
		enc, w := new(Encoder), new(Writer)
		for round := range 6 {
			opts := Options{Quality: rng.IntN(MaxQuality + 1), LGWin: 10 + rng.IntN(15), Mode: Mode(rng.IntN(3))}
			body := in[rng.IntN(len(in)+1):]
			if n := rng.IntN(len(in) + 1); n > 0 && rng.IntN(4) == 0 {
				opts.Dictionary, _ = NewDictionary(in[:n])
			}
			o, err := opts.normalize()
			if err != nil {
				t.Fatal(err)
			}
			enc.opts = o
			got := enc.Encode(nil, body)
			want, err := Encode(nil, body, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("round %d, Encoder %+v: output differs from a fresh encoder's", round, opts)
			}
			checkLeftZero(t, &enc.e, round)

			if rng.IntN(2) == 0 {
				opts.SizeHint = 1 + rng.IntN(2*len(body)+1)
			}
			pieces := rng.Uint64()
			var buf bytes.Buffer
			if err := w.ResetOptions(&buf, opts); err != nil {
				t.Fatal(err)
			}
			writePieces(w, body, rand.New(rand.NewPCG(pieces, 0)))
			if want := streamPieces(t, body, opts, rand.New(rand.NewPCG(pieces, 0))); !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("round %d, Writer %+v: output differs from a fresh Writer's", round, opts)
			}
			checkLeftZero(t, &w.e, round)
		}
	})
}

// checkLeftZero fails t when e holds a distance count past its alphabet,
// or a command count while cmdZero says cmdHist is all zero.
func checkLeftZero(t *testing.T, e *encoder, round int) {
	t.Helper()
	nonzero := func(c uint32) bool { return c != 0 }
	if i := slices.IndexFunc(e.distHist[e.dist.alphabet():], nonzero); i >= 0 {
		t.Fatalf("round %d: distHist[%d] = %d, past the alphabet of %d", round, e.dist.alphabet()+i, e.distHist[e.dist.alphabet()+i], e.dist.alphabet())
	}
	if i := slices.IndexFunc(e.cmdHist[:], nonzero); i >= 0 && e.cmdZero {
		t.Fatalf("round %d: cmdHist[%d] = %d with cmdZero set", round, i, e.cmdHist[i])
	}
}

// copyMix is n bytes of literals and copies of lengths and distances of
// every size the command symbols code, so that a fast meta-block counts
// symbols in most of cmdHist's 64-count words.
func copyMix(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 3))
	b := make([]byte, 0, n+2200)
	for len(b) < n {
		for range rng.IntN(1 << rng.IntN(11)) {
			b = append(b, byte(rng.IntN(256)))
		}
		if d := 1 + rng.IntN(len(b)+1); d <= len(b) {
			for range 4 + rng.IntN(1<<rng.IntN(11)) {
				b = append(b, b[len(b)-d])
			}
		}
	}
	return b
}

// records is n bytes of 12-byte records, which make qualities 10 and 11
// choose distance parameters of a wider alphabet.
func records(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 4))
	b := make([]byte, 0, n+12)
	for len(b) < n {
		b = append(b, byte(rng.IntN(4)), 'k', byte(rng.IntN(200)), 0, 0, 1, byte(rng.IntN(3)), 'v', 0, 0, 0, 0)
	}
	return b
}
