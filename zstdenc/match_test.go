package zstdenc

import "testing"

// A match of lazyEnough bytes is taken where it is found, though one byte
// on a longer one starts; a shorter one gives way to it.
func TestLazySearchesStopAtLongMatches(t *testing.T) {
	oneGoroutine(t)
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

// The hash covers minMatch bytes whatever the table's size: a search
// finds a match behind more positions than its depth that share only its
// first four bytes, in a short input's table of 2^12 heads as in a long
// one's of 2^18 (a table's index is the hash's top bits, as for the
// largest).
func TestSearchPastFourByteTwins(t *testing.T) {
	oneGoroutine(t)
	for _, size := range []int{2 << 10, 20 << 10, 70 << 10, 300 << 10} {
		r := randomBytes(12, size)
		tail := r[:30]
		var in []byte
		in = append(in, "abcdQ"...)
		in = append(in, tail...)
		// Twins: "abcd" and a fifth byte other than 'Q' that agrees with
		// it in its five low bits, twice the search's depth of them.
		for d, n := 0, 0; n < 2*DefaultDepth; d++ {
			if b := byte(d<<5 | 'Q'&31); b != 'Q' {
				in = append(in, "abcd"...)
				in = append(in, b)
				in = append(in, r[100+n*8:108+n*8]...)
				n++
			}
		}
		in = append(in, r[1000:]...)
		p := len(in)
		in = append(in, "abcdQ"...)
		in = append(in, tail...)
		in = append(in, "end of input"...)

		enc, err := NewEncoder(Options{})
		if err != nil {
			t.Fatal(err)
		}
		enc.buf = append(enc.buf[:0], in...)
		enc.mf.reset(enc, enc.windowLogFor(int64(len(in))), 0)
		enc.mf.insert(enc.buf, p)
		l, off := enc.mf.search(enc.buf, p, len(in)-p, enc.depth)
		if want := 5 + len(tail); l != want || off != p {
			t.Errorf("%d bytes, 2^%d heads: match of %d at offset %d, want %d at %d", len(in), maxHashLog-enc.mf.hashDrop, l, off, want, p)
		}
		decodeBoth(t, enc.Encode(nil, in), in)
	}
}
