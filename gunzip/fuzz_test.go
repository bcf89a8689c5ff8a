package gunzip

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// FuzzDecoder: an upstream's gzip body, handed to the decoder in writes
// of any sizes (split, a byte each: where the cuts go), decodes to what
// gzip's reader makes of it whole, and fails where that fails; the
// handoff between the handler and the reader's goroutine never hangs,
// whatever the bytes (a hung decoder is a hung response).
func FuzzDecoder(f *testing.F) {
	var one, two bytes.Buffer
	zw := gzip.NewWriter(&one)
	zw.Write([]byte("hello, world"))
	zw.Close()
	two.Write(one.Bytes())
	two.Write(one.Bytes())
	corrupt := bytes.Clone(one.Bytes())
	corrupt[len(corrupt)-5] ^= 1 // the CRC
	for _, s := range [][]byte{one.Bytes(), two.Bytes(), one.Bytes()[:15], corrupt, append(bytes.Clone(one.Bytes()), "junk"...), nil} {
		f.Add(s, []byte{3, 7, 1})
	}
	f.Fuzz(func(t *testing.T, in, split []byte) {
		var want []byte
		zr, werr := gzip.NewReader(bytes.NewReader(in))
		if werr == nil {
			want, werr = io.ReadAll(zr)
		} else if werr == io.EOF {
			werr = nil // no body at all
		}

		var got bytes.Buffer
		done := make(chan error, 1)
		go func() {
			d := newDecoder(got.Write)
			rest := in
			for i := 0; len(rest) > 0; i++ {
				n := len(rest)
				if len(split) > 0 {
					n = min(n, int(split[i%len(split)])+1)
				}
				if _, err := d.write(rest[:n]); err != nil {
					d.close()
					done <- err
					return
				}
				rest = rest[n:]
			}
			done <- d.close()
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("decoder hung on %q split %v", in, split)
		}
		if (err == nil) != (werr == nil) || !bytes.HasPrefix(want, got.Bytes()) || err == nil && got.Len() != len(want) {
			t.Fatalf("%q split %v: decoded %q, %v; gzip reader %q, %v", in, split, got.Bytes(), err, want, werr)
		}
	})
}
