package zstdenc

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/mosaic-edge/mosaic/internal/testcorpus"
)

// corpus reads the shared corpus; tests that need it skip without it.
var corpus = testcorpus.Files

// edgeInputs exercise every block and section type.
func edgeInputs() map[string][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 300_000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	// Few symbols, skewed: long Huffman codes, FSE-compressed weights.
	skewed := make([]byte, 200_000)
	for i := range skewed {
		skewed[i] = byte(geometric(rng.Uint32()))
	}
	wide := make([]byte, 150_000) // all 256 byte values, text-like weights
	for i := range wide {
		if rng.IntN(4) == 0 {
			wide[i] = byte(rng.Uint32())
		} else {
			wide[i] = "etaoinshrdlu "[rng.IntN(13)]
		}
	}
	text := bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog; "), 5000)
	mixed := append(append([]byte{}, random[:70_000]...), text[:100_000]...)
	mixed = append(mixed, random[:70_000]...) // a repeat 170 KB back
	return map[string][]byte{
		"empty":      {},
		"one":        {'x'},
		"seven":      []byte("abcdefg"),
		"same-300K":  bytes.Repeat([]byte{'a'}, 300_000),
		"pairs":      bytes.Repeat([]byte{'a', 'b'}, 70_000),
		"random":     random,
		"random-40":  random[:40],
		"random-2K":  random[:2000],
		"skewed":     skewed,
		"skewed-600": skewed[:600],
		"wide":       wide,
		"text":       text,
		"text-1000":  text[:1000],
		"mixed":      mixed,
	}
}

// geometric draws 0..16 with each value half as likely as the one before.
func geometric(r uint32) int {
	n := 0
	for r&1 == 1 && n < 16 {
		n++
		r >>= 1
	}
	return n
}

// decodeBoth decodes frame with klauspost/compress's decoder and the zstd
// command-line tool and fails unless both give want.
func decodeBoth(t testing.TB, frame, want []byte) {
	t.Helper()
	d, err := zstd.NewReader(nil, zstd.WithDecoderMaxWindow(1<<MaxWindowLog))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	got, err := d.DecodeAll(frame, nil)
	if err != nil {
		t.Fatalf("klauspost decoder: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("klauspost decoder: %d bytes differ from the %d encoded (first at %d)", len(got), len(want), firstDiff(got, want))
	}
	if _, err := exec.LookPath("zstd"); err != nil {
		t.Skip("no zstd tool")
	}
	cmd := exec.Command("zstd", "-d", "-c", "-q")
	cmd.Stdin = bytes.NewReader(frame)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err = cmd.Output()
	if err != nil {
		t.Fatalf("zstd -d: %v: %s", err, stderr.Bytes())
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("zstd -d: %d bytes differ from the %d encoded (first at %d)", len(got), len(want), firstDiff(got, want))
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

func TestRoundTrip(t *testing.T) {
	oneGoroutine(t)
	for _, wlog := range []int{MinWindowLog, 17, MaxWindowLog} {
		enc, err := NewEncoder(Options{WindowLog: wlog})
		if err != nil {
			t.Fatal(err)
		}
		for name, in := range edgeInputs() {
			t.Run(fmt.Sprintf("w%d/%s", wlog, name), func(t *testing.T) {
				out := enc.Encode(nil, in)
				decodeBoth(t, out, in)
			})
		}
	}
}

func TestRoundTripCorpus(t *testing.T) {
	oneGoroutine(t)
	enc, err := NewEncoder(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range corpus(t) {
		t.Run(name, func(t *testing.T) {
			out := enc.Encode(nil, in)
			t.Logf("%d -> %d", len(in), len(out))
			decodeBoth(t, out, in)
		})
	}
}
