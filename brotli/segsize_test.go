package brotli

import "testing"

// segmented cuts body into pieces of n bytes and encodes them as
// segments with q, each given the whole content before it as Prefix and
// bodyLen as BodyLen; it checks that they decode and returns the total.
func segmented(t *testing.T, body []byte, q, n, bodyLen int, prefix func(off int) []byte) int {
	t.Helper()
	enc, err := NewEncoder(Options{Quality: q})
	if err != nil {
		t.Fatal(err)
	}
	var stream []byte
	for off := 0; off < len(body); off += n {
		end := min(off+n, len(body))
		stream = enc.EncodeSegment(stream, body[off:end], Segment{
			First: off == 0, Last: end == len(body), Prefix: prefix(off), BodyLen: bodyLen,
		})
	}
	checkBoth(t, stream, body)
	return len(stream)
}

// TestSegmentBodyLen cuts the 1 MB react-dom into 512 KiB segments: at
// qualities 5 and 6 a body of 1 MiB hashes 5 bytes, and its pieces
// alone would hash 4 (2.8% and 2.3% larger than the body in one stream).
// Told the body's length, the segments must code within 1% of the whole;
// given the whole content before them as Prefix but no length, they must
// come out smaller than given only its last 256 KiB: the body is taken to
// be at least the whole Prefix and the piece long.
func TestSegmentBodyLen(t *testing.T) {
	oneGoroutine(t)
	body := corpus(t)["react-dom.development.js"]
	if len(body) < 1<<20 {
		t.Skip("react-dom.development.js missing from the corpus")
	}
	whole := func(off int) []byte { return body[:off] }
	tail := func(off int) []byte { return body[max(off-256<<10, 0):off] }
	for q := 5; q <= 6; q++ {
		one, err := Encode(nil, body, Options{Quality: q})
		if err != nil {
			t.Fatal(err)
		}
		told := segmented(t, body, q, 512<<10, len(body), whole)
		if told > len(one)*101/100 {
			t.Errorf("q%d: segments told the body's length %d bytes, whole %d (over 1%% more)", q, told, len(one))
		}
		fromPrefix := segmented(t, body, q, 512<<10, 0, whole)
		fromTail := segmented(t, body, q, 512<<10, 0, tail)
		if fromPrefix >= fromTail {
			t.Errorf("q%d: segments with the whole prefix %d bytes, with its last 256 KiB %d", q, fromPrefix, fromTail)
		}
		t.Logf("q%d: whole %d, segments told the length %d, whole prefix %d, last 256 KiB %d", q, len(one), told, fromPrefix, fromTail)
	}
}
