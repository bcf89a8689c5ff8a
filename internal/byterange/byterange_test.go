package byterange

import (
	"fmt"
	"testing"
)

// The cases NGINX 1.22 was observed to answer so, on a 20-byte file.
func TestParseLikeNGINX(t *testing.T) {
	const size = 20
	for _, c := range []struct {
		spec    string
		verdict Verdict
		ranges  string
	}{
		{"2-4", Partial, "[{2 5}]"},
		{"0-1,5-6", Partial, "[{0 2} {5 7}]"},
		{"-5", Partial, "[{15 20}]"},
		{"10-", Partial, "[{10 20}]"},
		{" 1 - 2 , 4-", Partial, "[{1 3} {4 20}]"},
		{"50-60", NotSatisfiable, "[]"},
		{"0-0,50-60", Partial, "[{0 1}]"},
		{"5-2", NotSatisfiable, "[]"},
		{"-0", NotSatisfiable, "[]"},
		{"a-b", NotSatisfiable, "[]"},
		{"", NotSatisfiable, "[]"},
		{"1-2,", NotSatisfiable, "[]"},
		{"0-15,2-18", Whole, "[]"},
		{"99999999999999999999-", NotSatisfiable, "[]"},
		{"0-99999999999999999999", NotSatisfiable, "[]"},
		{"0-9223372036854775807", Partial, "[{0 20}]"},
	} {
		got, v := Parse(c.spec, size, 0, nil)
		if v != c.verdict || fmt.Sprint(got) != c.ranges {
			t.Errorf("Parse(%q) = %v, %d; want %s, %d", c.spec, got, v, c.ranges, c.verdict)
		}
	}
	// An empty file has nothing to give: "0-" asks for all of it.
	if _, v := Parse("0-", 0, 0, nil); v != Whole {
		t.Errorf("empty file, 0-: verdict %d", v)
	}
	if _, v := Parse("0-1,3-4", size, 1, nil); v != Whole {
		t.Errorf("two ranges over a limit of one: verdict %d", v)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"2-4", "0-1,5-6", "-5", " 1 - 2 , 4-", "0-99999999999999999999"} {
		f.Add(s, int64(20))
	}
	f.Fuzz(func(t *testing.T, spec string, size int64) {
		if size < 0 {
			return
		}
		got, v := Parse(spec, size, 0, nil)
		if v != Partial {
			return
		}
		var total int64
		for _, r := range got {
			if r.Start < 0 || r.End > size || r.Start >= r.End {
				t.Fatalf("Parse(%q, %d): range %v out of bounds", spec, size, r)
			}
			total += r.End - r.Start
		}
		if total > size {
			t.Fatalf("Parse(%q, %d): %d bytes", spec, size, total)
		}
	})
}

// TestPartHeader: each part names the response's type, and a response
// without one gives its parts no Content-Type line (an empty value is no
// media type).
func TestPartHeader(t *testing.T) {
	rg := Range{Start: 2, End: 5}
	for ctype, want := range map[string]string{
		"text/plain": "\r\n--b\r\nContent-Type: text/plain\r\nContent-Range: bytes 2-4/10\r\n\r\n",
		"":           "\r\n--b\r\nContent-Range: bytes 2-4/10\r\n\r\n",
	} {
		if got := string(AppendPartHeader(nil, "b", ctype, rg, 10)); got != want {
			t.Errorf("type %q: %q, want %q", ctype, got, want)
		}
	}
}
