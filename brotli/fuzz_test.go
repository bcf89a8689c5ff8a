package brotli

import (
	"bytes"
	"io"
	"math/rand/v2"
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
	for p := in; len(p) > 0; {
		n := 1 + rng.IntN(len(p))
		w.Write(p[:n])
		p = p[n:]
		if rng.IntN(2) == 0 {
			w.Flush()
		}
	}
	w.Close()
	return buf.Bytes()
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
