package esi

import (
	"bytes"
	"testing"
)

// FuzzDecodePlan: a shared plan comes from outside the process. Decoding
// never panics, and what decodes survives encoding and decoding again.
func FuzzDecodePlan(f *testing.F) {
	rc := &planRecorder{}
	p := NewParser(rc.add)
	p.Feed([]byte(`text <esi:include src="/a"/> more<esi:remove>x</esi:remove>y<esi:vars>$(HTTP_HOST)</esi:vars>`))
	p.Close()
	f.Add((&plan{steps: rc.steps, size: p.off}).encode())
	f.Add([]byte{planVersion, 3, 1, byte(stepMarkup), 3, 'a', 'b', 'c'})
	f.Fuzz(func(t *testing.T, b []byte) {
		pl, err := decodePlan(b)
		if err != nil {
			return
		}
		enc := pl.encode()
		again, err := decodePlan(enc)
		if err != nil || !bytes.Equal(again.encode(), enc) {
			t.Fatalf("%x decodes, encodes to %x, which does not decode alike: %v", b, enc, err)
		}
	})
}
