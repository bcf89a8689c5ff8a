package zstdenc

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// encodeSegments compresses in cut every seg bytes, each piece by a fresh
// encoder (as pool workers would) given up to prefix bytes before it, and
// joins the pieces.
func encodeSegments(t testing.TB, in []byte, seg, prefix int, known bool, opts Options) []byte {
	t.Helper()
	var size int64
	if known {
		size = int64(len(in))
	}
	var out []byte
	for start := 0; start == 0 || start < len(in); start += seg {
		enc, err := NewEncoder(opts)
		if err != nil {
			t.Fatal(err)
		}
		end := min(start+seg, len(in))
		s := Segment{First: start == 0, Last: end == len(in), Prefix: in[max(0, start-prefix):start], ContentSize: size}
		out = enc.EncodeSegment(out, in[start:end], s)
	}
	return out
}

func TestSegmentsJoinIntoOneFrame(t *testing.T) {
	oneGoroutine(t)
	inputs := edgeInputs()
	for name, in := range corpus(t) {
		inputs[name] = in
	}
	for name, in := range inputs {
		// Prefixes of four segments: whole windows before every 1000
		// bytes would enter the input's square in the chains.
		for _, seg := range []int{1000, 64 << 10, 256 << 10} {
			for _, known := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/%d/%v", name, seg, known), func(t *testing.T) {
					out := encodeSegments(t, in, seg, 4*seg, known, Options{})
					decodeBoth(t, out, in)
					// One frame: its header declares the whole input.
					var h zstd.Header
					if err := h.Decode(out); err != nil {
						t.Fatal(err)
					}
					if h.HasFCS != (known && len(in) > 0) || (known && h.FrameContentSize != uint64(len(in))) {
						t.Fatalf("frame content size %v %d, want %v %d", h.HasFCS, h.FrameContentSize, known, len(in))
					}
				})
			}
		}
	}
}

// A piece after the first may not rely on the repeat offsets the one
// before it left in the decoder: here the first piece leaves 1000 in
// front, and the second starts with a run of period 4, which an encoder
// that assumed the frame's initial offsets (1, 4, 8) would code as a
// repeat of 4, decoded as something else.
func TestSegmentRepeatOffsetsStartUnknown(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(5, 6))
	block := make([]byte, 1000)
	for i := range block {
		block[i] = byte(rng.Uint32())
	}
	in := append(append([]byte{}, block...), block...)
	in = append(in, "xyz"...)
	in = append(in, bytes.Repeat([]byte("abcd"), 100)...)
	out := encodeSegments(t, in, 2000, 1<<20, true, Options{})
	decodeBoth(t, out, in)
}

// The window a piece declares bounds its offsets: with a 1 KiB window a
// piece may not copy from further back in its prefix.
func TestSegmentWindowBoundsOffsets(t *testing.T) {
	oneGoroutine(t)
	in := edgeInputs()["mixed"]
	out := encodeSegments(t, in, 50_000, 1<<20, false, Options{WindowLog: MinWindowLog})
	d, err := zstd.NewReader(nil, zstd.WithDecoderMaxWindow(1<<MinWindowLog))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	got, err := d.DecodeAll(out, nil)
	if err != nil || !bytes.Equal(got, in) {
		t.Fatalf("decoder limited to a 1 KiB window: %v, equal %v", err, bytes.Equal(got, in))
	}
}
