package zstdenc

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// FuzzRoundTrip encodes random input whole and in two pieces and decodes
// both with klauspost/compress's decoder.
func FuzzRoundTrip(f *testing.F) {
	for _, in := range edgeInputs() {
		f.Add(in[:min(len(in), 5000)], uint16(len(in)/3), uint8(0))
	}
	d, err := zstd.NewReader(nil, zstd.WithDecoderMaxWindow(1<<MaxWindowLog))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte, cut uint16, wsel uint8) {
		enc, err := NewEncoder(Options{WindowLog: MinWindowLog + int(wsel)%(MaxWindowLog-MinWindowLog+1)})
		if err != nil {
			t.Fatal(err)
		}
		check := func(what string, frame []byte) {
			got, err := d.DecodeAll(frame, nil)
			if err != nil || !bytes.Equal(got, in) {
				t.Fatalf("%s: %v, equal %v", what, err, bytes.Equal(got, in))
			}
		}
		check("whole", enc.Encode(nil, in))
		c := int(cut) % (len(in) + 1)
		out := enc.EncodeSegment(nil, in[:c], Segment{First: true, ContentSize: int64(len(in))})
		out = enc.EncodeSegment(out, in[c:], Segment{Last: true, Prefix: in[:c], ContentSize: int64(len(in))})
		check("pieces", out)
	})
}
