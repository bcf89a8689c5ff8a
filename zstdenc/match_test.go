package zstdenc

import "testing"

// A match of lazyEnough bytes is taken where it is found, though one byte
// on a longer one starts; a shorter one gives way to it.
func TestLazySearchesStopAtLongMatches(t *testing.T) {
	for _, short := range []int{lazyEnough, lazyEnough - 1} {
		// long: 40 bytes that recur one byte after p. The shorter
		// match at p is c and long's first short-1 bytes, which
		// recurred before p followed by another byte.
		r := randomBytes(11, 200)
		long, c := r[:40], r[40]
		var in []byte
		in = append(in, long...)
		in = append(in, r[50:100]...)
		in = append(in, c)
		in = append(in, long[:short-1]...)
		in = append(in, ^long[short-1])
		in = append(in, r[100:150]...)
		p := len(in)
		in = append(in, c)
		in = append(in, long...)
		in = append(in, r[150:200]...)

		enc, err := NewEncoder(Options{})
		if err != nil {
			t.Fatal(err)
		}
		decodeBoth(t, enc.Encode(nil, in), in)
		// The parse again, to see where its matches start.
		enc.buf = append(enc.buf[:0], in...)
		enc.mf.reset(enc, enc.windowLogFor(int64(len(in))), 0)
		enc.rep = [3]uint32{1, 4, 8}
		_, seqs := enc.mf.parse(enc, 0, len(in), nil, nil)
		at, found := 0, false
		for _, s := range seqs {
			at += int(s.litLen)
			if at == p || at == p+1 {
				found = true
				wantAt, wantLen := p, short
				if short < lazyEnough {
					wantAt, wantLen = p+1, len(long)
				}
				if at != wantAt || int(s.matchLen) != wantLen {
					t.Errorf("match of %d before: a match of %d bytes at p%+d, want %d at p%+d", short, s.matchLen, at-p, wantLen, wantAt-p)
				}
			}
			at += int(s.matchLen)
		}
		if !found {
			t.Errorf("match of %d before: no match starts at p or p+1 (%d sequences)", short, len(seqs))
		}
	}
}
