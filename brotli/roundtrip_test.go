package brotli

import (
	"bytes"
	"io"
	"maps"
	"math/rand/v2"
	"os/exec"
	"slices"
	"testing"

	ab "github.com/andybalholm/brotli"
	"github.com/mosaic-edge/mosaic/internal/testcorpus"
)

// decodeAB decodes with andybalholm/brotli's decoder and fails the test on
// an error.
func decodeAB(t testing.TB, comp []byte) []byte {
	t.Helper()
	out, err := io.ReadAll(ab.NewReader(bytes.NewReader(comp)))
	if err != nil {
		t.Fatalf("andybalholm decoder: %v", err)
	}
	return out
}

// runTool runs the brotli command-line tool (Google's C encoder and
// decoder) with args on in and returns its output, skipping when it is
// not installed.
func runTool(t testing.TB, in []byte, args ...string) []byte {
	t.Helper()
	path, err := exec.LookPath("brotli")
	if err != nil {
		t.Skip("brotli tool not installed")
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("brotli %v: %v: %s", args, err, stderr.String())
	}
	return out
}

// decodeTool decodes with Google's decoder (the brotli tool).
func decodeTool(t testing.TB, comp []byte) []byte {
	t.Helper()
	return runTool(t, comp, "-d", "-c")
}

// checkBoth decodes comp with both decoders and compares with want.
func checkBoth(t *testing.T, comp, want []byte) {
	t.Helper()
	if got := decodeAB(t, comp); !bytes.Equal(got, want) {
		t.Fatalf("andybalholm decoder: got %d bytes, want %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
	}
	if got := decodeTool(t, comp); !bytes.Equal(got, want) {
		t.Fatalf("brotli -d: got %d bytes, want %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// corpus reads the shared corpus; tests that need it skip without it.
var corpus = testcorpus.Files

// corpusNames returns the corpus and its names in order.
func corpusNames(t testing.TB) (map[string][]byte, []string) {
	files := corpus(t)
	return files, slices.Sorted(maps.Keys(files))
}

// edgeInputs are the inputs every quality and window must round-trip.
func edgeInputs() map[string][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 100_000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	text := bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog; "), 2000)
	mixed := append(append([]byte{}, random[:70_000]...), text...)
	mixed = append(mixed, random[:70_000]...) // a repeat 160 KB back
	return map[string][]byte{
		"empty":       {},
		"one":         {'x'},
		"seven":       []byte("abcdefg"),
		"same-300K":   bytes.Repeat([]byte{'a'}, 300_000),
		"random-100K": random,
		"text":        text,
		"mixed":       mixed,
		"period-1K":   bytes.Repeat(random[:1009], 200),
	}
}

func TestRoundTripEdges(t *testing.T) {
	oneGoroutine(t)
	for name, in := range edgeInputs() {
		for q := MinQuality; q <= MaxQuality; q++ {
			for _, lgwin := range []int{10, 16, 17, 18, 24} {
				if q >= 10 && (lgwin == 17 || lgwin == 18) {
					continue // the slow qualities: the smallest and largest windows, and 16
				}
				for _, mode := range []Mode{ModeGeneric, ModeFont} {
					if mode == ModeFont && lgwin != 24 {
						continue
					}
					comp, err := Encode(nil, in, Options{Quality: q, LGWin: lgwin, Mode: mode})
					if err != nil {
						t.Fatal(err)
					}
					if got := decodeAB(t, comp); !bytes.Equal(got, in) {
						t.Fatalf("%s q%d w%d mode %d: got %d bytes, want %d (first difference at %d)", name, q, lgwin, mode, len(got), len(in), firstDiff(got, in))
					}
				}
			}
		}
	}
}

// slowAt says whether a test that runs every quality leaves quality q out
// for an input of n bytes: 10 and 11 compress about 0.5 MB a second, and
// twenty times slower under -race, so they take the inputs up to 256 KiB
// (TestOptimalSmaller and the fuzz target cover them besides).
func slowAt(q, n int) bool { return q >= 10 && n > 256<<10 }

// TestRoundTripTool decodes every quality's output of the edge inputs and
// the corpus with Google's decoder (the brotli tool) as well.
func TestRoundTripTool(t *testing.T) {
	oneGoroutine(t)
	if _, err := exec.LookPath("brotli"); err != nil {
		t.Skip("brotli tool not installed")
	}
	inputs := edgeInputs()
	for name, b := range corpus(t) {
		inputs[name] = b
	}
	for name, in := range inputs {
		for q := MinQuality; q <= MaxQuality; q++ {
			if slowAt(q, len(in)) {
				continue
			}
			comp, err := Encode(nil, in, Options{Quality: q})
			if err != nil {
				t.Fatal(err)
			}
			t.Run(name, func(t *testing.T) { checkBoth(t, comp, in) })
		}
	}
}

// TestCompresses checks that coding is not silently falling back to
// storing: the corpus must shrink at every quality, and a highly
// repetitive input must shrink to almost nothing.
func TestCompresses(t *testing.T) {
	oneGoroutine(t)
	for name, in := range corpus(t) {
		for q := MinQuality; q <= MaxQuality; q++ {
			if slowAt(q, len(in)) {
				continue
			}
			comp, _ := Encode(nil, in, Options{Quality: q})
			if len(comp)*2 > len(in) {
				t.Errorf("%s q%d: %d -> %d bytes", name, q, len(in), len(comp))
			}
		}
	}
	comp, _ := Encode(nil, bytes.Repeat([]byte{'a'}, 1<<20), Options{Quality: 1})
	if len(comp) > 200 {
		t.Errorf("1 MiB of one byte: %d bytes compressed", len(comp))
	}
}

// TestLargeSmallWindow compresses more than 16 MiB, the longest meta-block
// length, with small windows, streaming and in one shot.
func TestLargeSmallWindow(t *testing.T) {
	oneGoroutine(t)
	if testing.Short() {
		t.Skip("17 MiB")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	in := make([]byte, 17<<20)
	for i := 0; i < len(in); {
		// Copies of earlier content from random distances up to 64 KiB,
		// between random bytes: matches at every distance, many of them
		// beyond the 1 KiB window. Copies are long so that the test stays
		// quick under the race detector.
		n := 1 + rng.IntN(8)
		for k := i; k < min(i+n, len(in)); k++ {
			in[k] = byte(rng.Uint32())
		}
		i += n
		if d := 1 + rng.IntN(64<<10); d <= i && i < len(in) {
			from := in[i-d:]
			i += copy(in[i:], from[:min(len(from), 64+rng.IntN(192))])
		}
	}
	comp, err := Encode(nil, in, Options{Quality: 1, LGWin: 10})
	if err != nil {
		t.Fatal(err)
	}
	checkBoth(t, comp, in)
	{
		opts := Options{Quality: 2, LGWin: 16}
		var buf bytes.Buffer
		w, err := NewWriter(&buf, opts)
		if err != nil {
			t.Fatal(err)
		}
		for p := in; len(p) > 0; {
			n := min(len(p), 1+rng.IntN(3<<20))
			if _, err := w.Write(p[:n]); err != nil {
				t.Fatal(err)
			}
			p = p[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		checkBoth(t, buf.Bytes(), in)
	}
}

// TestReuseAcrossStreams encodes the same bytes again with a reused
// Encoder and Writer: the match finder's table still holds the previous
// stream's positions, which hash and compare like the current ones but
// are not in the decoder's window, so none may be referred to.
func TestReuseAcrossStreams(t *testing.T) {
	oneGoroutine(t)
	in := edgeInputs()["mixed"]
	small := in[:3000]
	for q := MinQuality; q <= MaxQuality; q++ {
		for _, lgwin := range []int{10, 16, 22} {
			if q >= 10 && lgwin != 16 {
				continue // one window is enough for the slow qualities
			}
			opts := Options{Quality: q, LGWin: lgwin}
			enc, err := NewEncoder(opts)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			w, err := NewWriter(&buf, opts)
			if err != nil {
				t.Fatal(err)
			}
			for round, body := range [][]byte{in, in, small, small, in} {
				if got := decodeAB(t, enc.Encode(nil, body)); !bytes.Equal(got, body) {
					t.Fatalf("q%d w%d Encoder stream %d: first difference at %d", q, lgwin, round, firstDiff(got, body))
				}
				buf.Reset()
				w.Reset(&buf)
				if _, err := w.Write(body); err != nil {
					t.Fatal(err)
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				if got := decodeAB(t, buf.Bytes()); !bytes.Equal(got, body) {
					t.Fatalf("q%d w%d Writer stream %d: first difference at %d", q, lgwin, round, firstDiff(got, body))
				}
			}
		}
	}
}

// TestReuseAcrossQualities: one Writer, reset with another quality for
// each stream, codes each as a fresh one would: state left by a quality
// with more to describe (literal block types at 10-11, context modeling
// at 5-9) must not leak into the header of one without. Each quality
// follows 11 and 10 once.
func TestReuseAcrossQualities(t *testing.T) {
	oneGoroutine(t)
	in := mixedLiterals(5)[:48<<10]
	var order []int
	for q := MinQuality; q <= MaxQuality; q++ {
		order = append(order, 11, 10, q)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Options{Quality: 11})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range order {
		buf.Reset()
		if err := w.ResetOptions(&buf, Options{Quality: q}); err != nil {
			t.Fatal(err)
		}
		w.Write(in)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		fresh, err := NewWriter(io.Discard, Options{Quality: q})
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		fresh.ResetOptions(&want, Options{Quality: q})
		fresh.Write(in)
		fresh.Close()
		if !bytes.Equal(buf.Bytes(), want.Bytes()) {
			t.Errorf("quality %d after another: %d bytes, a fresh Writer's %d", q, buf.Len(), want.Len())
		}
		if got := decodeAB(t, buf.Bytes()); !bytes.Equal(got, in) {
			t.Fatalf("quality %d after another: first difference at %d", q, firstDiff(got, in))
		}
	}
}
