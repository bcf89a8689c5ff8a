package header

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"
	"unsafe"
)

func TestJoin(t *testing.T) {
	h := http.Header{"A": {"1"}, "B": {"1", "2"}}
	if Join(h, "A") != "1" || Join(h, "B") != "1, 2" || Join(h, "C") != "" {
		t.Fatal(Join(h, "A"), Join(h, "B"))
	}
}

// First answers what Get answers for a canonical name, an empty line
// included.
func TestFirst(t *testing.T) {
	h := http.Header{}
	h.Add("Content-Type", "text/css")
	h.Add("Content-Type", "text/plain")
	h["Upgrade"] = []string{""}
	h["Vary"] = nil
	for _, k := range []string{"Content-Type", "Upgrade", "Vary", "Etag"} {
		if got, want := First(h, k), h.Get(k); got != want {
			t.Errorf("First(%s) = %q, Get = %q", k, got, want)
		}
	}
}

// WeakenETag weakens a strong validator, keeps a weak one and drops one
// that is neither, whichever way the handler spelled ETag.
func TestWeakenETag(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"x"`, `W/"x"`}, {`W/"x"`, `W/"x"`}, {"x", ""}, {"", ""},
	} {
		h := http.Header{}
		if c.in != "" {
			h.Set("ETag", c.in)
		}
		WeakenETag(h)
		if got := h.Get("ETag"); got != c.want || len(h["Etag"]) > 1 {
			t.Errorf("%q: %q (%q)", c.in, got, h["Etag"])
		}
		if c.want == "" && h["Etag"] != nil {
			t.Errorf("%q: kept %q", c.in, h["Etag"])
		}
	}
}

// WeakenETagInto writes the weak form into the caller's buffer where it
// fits, with no allocation, and makes it apart where it does not.
func TestWeakenETagInto(t *testing.T) {
	var slot [1]string
	var buf [16]byte
	h := http.Header{}
	for _, c := range []struct {
		in     string
		inBuf  bool
		allocs float64
	}{
		{`"6571a3b2-800"`, true, 0},   // 16 bytes weak: fits exactly
		{`"6571a3b2-8000"`, false, 1}, // one more: concatenated
	} {
		var got string
		in := []string{c.in}
		allocs := testing.AllocsPerRun(100, func() {
			in[0] = c.in
			h["Etag"] = in
			WeakenETagInto(h, slot[:], buf[:])
			got = h["Etag"][0]
		})
		if got != "W/"+c.in || &h["Etag"][0] != &slot[0] {
			t.Errorf("%s: %q", c.in, h["Etag"])
		}
		if inBuf := unsafe.StringData(got) == &buf[0]; inBuf != c.inBuf || allocs != c.allocs {
			t.Errorf("%s: in the buffer %v, %v allocations", c.in, inBuf, allocs)
		}
	}
}

func TestHasToken(t *testing.T) {
	for _, c := range []struct {
		values []string
		token  string
		want   bool
	}{
		{[]string{"keep-alive, Upgrade"}, "upgrade", true},
		{[]string{"a", " b ,c"}, "b", true},
		{[]string{`private="set-cookie", max-age=5`}, "private", true},
		{[]string{"max-age=5"}, "max-age", true},
		{[]string{"no-cachex"}, "no-cache", false},
		{nil, "x", false},
		{[]string{"Accept-Encoding"}, "accept-encoding", true},
	} {
		if got := HasToken(c.values, c.token); got != c.want {
			t.Errorf("%q %q = %v", c.values, c.token, got)
		}
	}
}

// AppendDate writes what time.Time.Format(http.TimeFormat) writes.
func TestAppendDate(t *testing.T) {
	times := []time.Time{time.Unix(0, 0), time.Unix(1<<31, 0), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(2026, 2, 3, 4, 5, 6, 0, time.FixedZone("x", 3600)), time.Now()}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		times = append(times, time.Unix(r.Int64N(253402300799), 0))
	}
	for _, tm := range times {
		want := tm.UTC().Format(http.TimeFormat)
		if got := string(AppendDate(nil, tm)); got != want {
			t.Errorf("%v: %q, want %q", tm, got, want)
		}
		if got := FormatDate(tm); got != want {
			t.Errorf("FormatDate(%v) = %q, want %q", tm, got, want)
		}
	}
}

// FormatDate's buffer stays on the stack: the string is its one
// allocation.
func TestFormatDateAllocs(t *testing.T) {
	tm := time.Now()
	if n := testing.AllocsPerRun(100, func() { _ = FormatDate(tm) }); n > 1 {
		t.Errorf("FormatDate: %v allocations, want 1", n)
	}
}

func BenchmarkAppendDate(b *testing.B) {
	buf := make([]byte, 0, 64)
	tm := time.Now()
	for b.Loop() {
		buf = AppendDate(buf[:0], tm)
	}
}

func TestTypeMatcher(t *testing.T) {
	m := TypeMatcher([]string{" Text/Plain "})
	for ct, want := range map[string]bool{"text/html": true, "TEXT/HTML; charset=utf-8": true, "text/plain;x=1": true, "text/css": false, "": false} {
		if m(ct) != want {
			t.Errorf("%q: %v", ct, !want)
		}
	}
	if !TypeMatcher([]string{"*"})("image/png") {
		t.Error(`"*" does not match image/png`)
	}
}

func TestLowerASCII(t *testing.T) {
	for in, want := range map[string]string{"": "", "abc": "abc", "A.Example.COM": "a.example.com", "ÄB\xff": "Äb\xff"} {
		if got := LowerASCII(in); got != want {
			t.Errorf("LowerASCII(%q) = %q, want %q", in, got, want)
		}
	}
}

// SortFields orders names as strings order, by insertion or not, whether
// their first bytes differ or not (an empty name first), and keeps each
// name's values with it.
func TestSortFields(t *testing.T) {
	for _, n := range []int{0, 1, 2, 5, 12, 16, 17, 40} {
		var fs []Field
		for i := range n {
			name := fmt.Sprintf("X-%03d", (i*37)%n)
			switch i % 4 {
			case 1:
				name = fmt.Sprintf("%c-%d", 'A'+(i*7)%26, i)
			case 2:
				name = fmt.Sprintf("x%d", i) // lower case sorts after upper
			}
			if i == n/2 && n > 2 {
				name = ""
			}
			fs = append(fs, Field{Name: name, Values: []string{"v" + name}})
		}
		rand.Shuffle(len(fs), func(i, j int) { fs[i], fs[j] = fs[j], fs[i] })
		want := make([]string, len(fs))
		for i, f := range fs {
			want[i] = f.Name
		}
		slices.Sort(want)
		SortFields(fs)
		for i, f := range fs {
			if f.Name != want[i] || len(f.Values) != 1 || f.Values[0] != "v"+f.Name {
				t.Fatalf("n=%d: at %d %q %q, want %q", n, i, f.Name, f.Values, want[i])
			}
		}
	}
}

// Seen finds a name among names while names had room for all, and in the
// header once it is full.
func TestSeen(t *testing.T) {
	h := http.Header{"A": {"1"}, "B": {"2"}}
	room := append(make([]string, 0, 4), "A", "B")
	if !Seen(h, room, "B") || Seen(h, room, "C") {
		t.Error("names with room: B not seen or C seen")
	}
	full := append(make([]string, 0, 1), "A")
	if !Seen(h, full, "B") || Seen(h, full, "C") {
		t.Error("names full: B not seen in the header or C seen")
	}
}

// TestDigits holds Digits to strconv on the values it takes, and to
// false on the rest.
func TestDigits(t *testing.T) {
	for _, s := range []string{"0", "7", "2032", "00012", "999999999999999999"} {
		want, _ := strconv.ParseInt(s, 10, 64)
		if n, ok := Digits(s); !ok || n != want {
			t.Errorf("Digits(%q) = %d, %v, want %d, true", s, n, ok, want)
		}
	}
	for _, s := range []string{"", " 1", "1 ", "+1", "-1", "1a", "0x1", "1000000000000000000", "１"} {
		if n, ok := Digits(s); ok {
			t.Errorf("Digits(%q) = %d, true, want false", s, n)
		}
	}
	// Every byte in the middle: the loop's unsigned d > 9 must refuse the
	// neighbours of '0' and '9' ('/', ':') and every byte past them.
	for c := range 256 {
		s := "12" + string([]byte{byte(c)}) + "4"
		want, err := strconv.ParseInt(s, 10, 64)
		if n, ok := Digits(s); ok != (err == nil) || ok && n != want {
			t.Errorf("Digits(%q) = %d, %v; ParseInt gives %d, %v", s, n, ok, want, err)
		}
	}
}

// TestVaryAdds: VaryAcceptEncoding puts its line first, AddVary its name
// last; neither adds a name Vary already has (in any case, in any line)
// or one beside "*".
func TestVaryAdds(t *testing.T) {
	for _, c := range []struct {
		in, first, last []string
	}{
		{nil, []string{"Accept-Encoding"}, []string{"X"}},
		{[]string{"Origin"}, []string{"Accept-Encoding", "Origin"}, []string{"Origin", "X"}},
		{[]string{"Origin, accept-encoding", "x"}, []string{"Origin, accept-encoding", "x"}, []string{"Origin, accept-encoding", "x"}},
		{[]string{"*"}, []string{"*"}, []string{"*"}},
		{[]string{"Cookie", " * "}, []string{"Cookie", " * "}, []string{"Cookie", " * "}},
	} {
		h := http.Header{"Vary": slices.Clone(c.in)}
		VaryAcceptEncoding(h)
		if !slices.Equal(h["Vary"], c.first) {
			t.Errorf("VaryAcceptEncoding of %q: %q, want %q", c.in, h["Vary"], c.first)
		}
		h = http.Header{"Vary": slices.Clone(c.in)}
		AddVary(h, "X")
		if !slices.Equal(h["Vary"], c.last) {
			t.Errorf("AddVary of %q: %q, want %q", c.in, h["Vary"], c.last)
		}
	}
}
