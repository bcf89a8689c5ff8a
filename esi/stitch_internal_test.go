package esi

import (
	"bytes"
	"compress/flate"
	"io"
	"os/exec"
	"testing"

	abrotli "github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// TestStoredSpans: the uncompressed forms of small live spans decode, by
// Go's decoders and by the zstd and brotli tools where they are installed,
// at the sizes where their headers change.
func TestStoredSpans(t *testing.T) {
	for _, n := range []int{1, 255, 256, 257, 1000, maxStoredSpan} {
		p := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]
		// Two blocks, then an empty final one: what a stitched stream is.
		var d []byte
		d = storedBlock(d, p)
		d = storedBlock(d, p)
		d = append(d, finalBlock...)
		got, err := io.ReadAll(flate.NewReader(bytes.NewReader(d)))
		if err != nil || !bytes.Equal(got, append(bytes.Clone(p), p...)) {
			t.Fatalf("deflate, %d bytes: %v, got %d bytes", n, err, len(got))
		}
		z := rawZstdFrame(nil, p)
		z = rawZstdFrame(z, p)
		zr, err := zstd.NewReader(bytes.NewReader(z))
		if err != nil {
			t.Fatal(err)
		}
		got, err = io.ReadAll(zr)
		zr.Close()
		if err != nil || !bytes.Equal(got, append(bytes.Clone(p), p...)) {
			t.Fatalf("zstd, %d bytes: %v, got %d bytes", n, err, len(got))
		}
		if _, lerr := exec.LookPath("zstd"); lerr == nil {
			cmd := exec.Command("zstd", "-dc")
			cmd.Stdin = bytes.NewReader(z)
			out, err := cmd.Output()
			if err != nil || !bytes.Equal(out, got) {
				t.Fatalf("zstd -dc, %d bytes: %v, %d bytes", n, err, len(out))
			}
		}
		// brotli: a header-only first segment, two uncompressed
		// meta-blocks, the empty last one.
		b := append([]byte(nil), brotliBounds(6).head...)
		b = uncompressedMetaBlock(b, p)
		b = uncompressedMetaBlock(b, p)
		b = append(b, brotliBounds(6).tail...)
		got, err = io.ReadAll(abrotli.NewReader(bytes.NewReader(b)))
		if err != nil || !bytes.Equal(got, append(bytes.Clone(p), p...)) {
			t.Fatalf("brotli, %d bytes: %v, got %d bytes", n, err, len(got))
		}
		if _, lerr := exec.LookPath("brotli"); lerr == nil {
			cmd := exec.Command("brotli", "-dc")
			cmd.Stdin = bytes.NewReader(b)
			out, err := cmd.Output()
			if err != nil || !bytes.Equal(out, got) {
				t.Fatalf("brotli -dc, %d bytes: %v, %d bytes", n, err, len(out))
			}
		}
	}
}
