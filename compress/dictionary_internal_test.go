package compress

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/header"
)

func TestParseByteSequence(t *testing.T) {
	h := sha256.Sum256([]byte("dictionary"))
	b64 := base64.StdEncoding.EncodeToString(h[:])
	for _, c := range []struct {
		in string
		ok bool
	}{
		{":" + b64 + ":", true},
		{b64, false},                                   // no colons
		{":" + b64, false},                             // one colon
		{":" + b64[:43] + ":", false},                  // short
		{":" + b64 + "A:", false},                      // long
		{":" + b64[:43] + "B:", false},                 // padding bits set: not canonical
		{":" + b64[:42] + "==:", false},                // padding where a digit belongs
		{"::", false},                                  // empty
		{":" + b64[:20] + "*" + b64[21:] + ":", false}, // not base64
	} {
		got, ok := parseByteSequence(c.in)
		if ok != c.ok || (ok && got != h) {
			t.Errorf("parseByteSequence(%q) = %x, %v; want ok %v", c.in, got, ok, c.ok)
		}
	}
}

// FuzzAvailableDictionary checks that a request's dictionary headers never
// panic the lookup, and that a dictionary is found only by its own hash,
// written as the one canonical byte sequence, with dcb or dcz accepted.
func FuzzAvailableDictionary(f *testing.F) {
	d, err := NewDictionary("test", []byte("an old version of a script"))
	if err != nil {
		f.Fatal(err)
	}
	t := newDictTable([]*Dictionary{d})
	f.Add(d.AvailableDictionary(), "br, dcb, dcz")
	f.Add(" "+d.AvailableDictionary()+"\t", "dcz;q=0.5")
	f.Add(d.AvailableDictionary(), "dcb;q=0, *")
	f.Add(":AAAA:", "dcb")
	f.Add("", "")
	f.Fuzz(func(tt *testing.T, avail, accept string) {
		r := &http.Request{Header: http.Header{"Available-Dictionary": {avail}, "Accept-Encoding": {accept}}}
		q := t.lookup(r)
		if q.dict == nil {
			if q.dcb || q.dcz {
				tt.Fatalf("codings %v %v without a dictionary", q.dcb, q.dcz)
			}
			return
		}
		if q.dict != d || header.TrimOWS(avail) != d.AvailableDictionary() || !(q.dcb || q.dcz) {
			tt.Fatalf("Available-Dictionary %q, Accept-Encoding %q: found %v (dcb %v, dcz %v)", avail, accept, q.dict.name, q.dcb, q.dcz)
		}
	})
}
