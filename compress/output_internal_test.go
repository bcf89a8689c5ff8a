package compress

import (
	"bytes"
	"io"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// TestHeldOutputShrinks checks that a response whose compressed output
// outgrew gzip_buffers before the headers went out holds a buffer of one
// buffer's size afterwards, for the rest of a body a slow client may take
// long to read, and that the body still arrives whole.
func TestHeldOutputShrinks(t *testing.T) {
	body := make([]byte, 600<<10) // random: its gzip is larger than 32 × 4 KB
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range body {
		body[i] = byte(rng.Uint32())
	}
	opts := DefaultOptions()
	opts.Gzip.Enable = true
	opts.Gzip.Types = []string{"text/plain"}
	held := make(chan int, 1)
	h, err := New(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for p := body; len(p) > 0; p = p[min(len(p), 4<<10):] {
			_, _ = w.Write(p[:min(len(p), 4<<10)])
		}
		rw := w.(*responseWriter)
		if !rw.headerSent {
			t.Error("the headers are still held after 600 KB of output")
		}
		held <- cap(rw.out)
	}), opts)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := askGzip(t, h)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if got := resp.Header.Get("Content-Encoding"); got != "gzip" {
		t.Fatalf("Content-Encoding %q, want gzip", got)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("body: %d bytes, %v; want the %d written", len(got), err, len(body))
	}
	chunk := opts.Gzip.Buffers.Size
	if c := <-held; c > max(2*chunk, outBufStart) {
		t.Errorf("held output buffer has capacity %d after the headers, want at most %d", c, max(2*chunk, outBufStart))
	}
}
