package header

import (
	"fmt"
	"net/http"
	"net/textproto"
	"reflect"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/cputime"
)

// TestCanonicalNameAndToken checks the table-driven CanonicalName and
// IsToken against their definitions: a name is a token, put in
// textproto's canonical form, odd when it has a byte other than a letter,
// a digit or '-' (what NGINX's ignore_invalid_headers may drop).
func TestCanonicalNameAndToken(t *testing.T) {
	isTok := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(s[i])) &&
				!('0' <= s[i] && s[i] <= '9' || 'a' <= s[i] && s[i] <= 'z' || 'A' <= s[i] && s[i] <= 'Z') {
				return false
			}
		}
		return s != ""
	}
	names := []string{"", "a", "A", "host", "Host", "HOST", "x-forwarded-for", "X-Forwarded-For", "X-FORWARDED-for",
		"-a", "a-", "a--b", "A_b", "a.b", "Content-Length", "content-length", "1a-2b", "a b", "a:b", "é", "a\x00",
		// commonName's, as sent and not quite: another case, one byte off.
		"Accept", "accept", "Cookie", "cookie", "Referer", "referer", "User-Agent", "user-agent", "Connection",
		"connection", "Cache-Control", "cache-control", "Accept-Encoding", "accept-encoding", "Accept-Language",
		"ACCEPT-LANGUAGE", "Hosu", "Accepu", "User-Agent_", "User_Agent", "Connection ", "Accept-Encodinh"}
	for c := range 256 {
		names = append(names, string(rune(c))[:1], "a"+string([]byte{byte(c)}), "-"+string([]byte{byte(c)}))
		// IsToken reads four bytes a step, then the rest one by one: the
		// byte at each place of a nine-byte name.
		for at := range 9 {
			names = append(names, strings.Repeat("a", at)+string([]byte{byte(c)})+strings.Repeat("B", 8-at))
		}
	}
	for _, s := range names {
		got, ok, odd := CanonicalName(s)
		want := ""
		if isTok(s) {
			want = textproto.CanonicalMIMEHeaderKey(s)
		}
		wantOdd := isTok(s) && strings.IndexFunc(s, func(r rune) bool {
			return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-')
		}) >= 0
		if ok != isTok(s) || got != want || odd != wantOdd {
			t.Errorf("CanonicalName(%q) = %q, %v, %v; want %q, %v, %v", s, got, ok, odd, want, isTok(s), wantOdd)
		}
		if IsToken(s) != isTok(s) {
			t.Errorf("IsToken(%q) = %v", s, !isTok(s))
		}
	}
}

// walk returns what Lines gives for text against h: "name: value" for
// each line, "-name: value" for an unmapped one, then "+Name: value" for
// each value of Rest.
func walk(text string, h http.Header) []string {
	var out []string
	l := NewLines(text, h)
	for {
		name, key, value, mapped, ok := l.Next()
		if !ok {
			break
		}
		if key != textproto.CanonicalMIMEHeaderKey(name) {
			out = append(out, "bad key "+key)
		}
		if !mapped {
			name = "-" + name
		}
		out = append(out, name+": "+value)
	}
	for _, f := range l.Rest(nil) {
		for _, v := range f.Values {
			out = append(out, "+"+f.Name+": "+v)
		}
	}
	return out
}

// The lines come in the client's order and case, each value of a
// repeated name at its own line, with the map's values: what a module
// took out is left out, what it changed or added shows.
func TestLines(t *testing.T) {
	text := "Host: a\r\nx-B: 1\r\ncookie: c=1\nX-a:  2 \r\nCookie: c=2\r\nX-B: 3\r\n"
	parsed := http.Header{"X-B": {"1", "3"}, "Cookie": {"c=1", "c=2"}, "X-A": {"2"}}
	for _, c := range []struct {
		name string
		h    http.Header
		want []string
	}{
		{"as parsed", parsed, []string{"-Host: a", "x-B: 1", "cookie: c=1", "X-a: 2", "Cookie: c=2", "X-B: 3"}},
		{"a name taken out", http.Header{"X-B": {"1", "3"}, "X-A": {"2"}},
			[]string{"-Host: a", "x-B: 1", "-cookie: c=1", "X-a: 2", "-Cookie: c=2", "X-B: 3"}},
		{"values changed", http.Header{"X-B": {"9"}, "Cookie": {"c=1", "c=2", "c=3"}, "X-A": {"7"}},
			[]string{"-Host: a", "x-B: 9", "cookie: c=1", "X-a: 7", "Cookie: c=2", "+Cookie: c=3"}},
		{"fields added", http.Header{"X-B": {"1", "3"}, "Cookie": {"c=1", "c=2"}, "X-A": {"2"}, "Z": {"z"}, "Host": {"h"}, "B": {"b"}},
			[]string{"Host: h", "x-B: 1", "cookie: c=1", "X-a: 2", "Cookie: c=2", "X-B: 3", "+B: b", "+Z: z"}},
		{"fewer values", http.Header{"X-B": {"1", "3"}, "Cookie": {"c=1"}, "X-A": {"2"}},
			[]string{"-Host: a", "x-B: 1", "cookie: c=1", "X-a: 2", "X-B: 3"}},
		{"lines joined", http.Header{"X-B": {"1", "3"}, "Cookie": {"c=1; c=2"}, "X-A": {"2"}},
			[]string{"-Host: a", "x-B: 1", "cookie: c=1; c=2", "X-a: 2", "X-B: 3"}},
	} {
		if got := walk(text, c.h); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	// A line without a colon is a name with an empty value, as NGINX
	// takes it; the colon of a later line is not its.
	if got := walk("x-a\r\nX-B\nX-A: 1\r\n", http.Header{"X-A": {"", "1"}, "X-B": {""}}); !reflect.DeepEqual(got,
		[]string{"x-a: ", "X-B: ", "X-A: 1"}) {
		t.Errorf("lines without a colon: %q", got)
	}
	// A module's field beside one: Rest knows the line without a colon
	// for sent, and gives only what was added.
	if got := walk("X-A\r\n", http.Header{"X-A": {""}, "Y": {"2"}}); !reflect.DeepEqual(got, []string{"X-A: ", "+Y: 2"}) {
		t.Errorf("a line without a colon, a field added: %q", got)
	}
	if got := walk("", http.Header{"B": {"1"}, "A": {"2", "3"}}); !reflect.DeepEqual(got, []string{"+A: 2", "+A: 3", "+B: 1"}) {
		t.Errorf("no text: %q", got)
	}
}

// A name the client sent on two lines with the same value, which a module
// made one value (the cache's Accept-Encoding, normalized), goes once:
// each line's value equals the map's, but the map holds it once; and a
// field added beside it is not lost for the name counted twice.
func TestLinesSameValueReduced(t *testing.T) {
	text := "Host: a\r\nA: gzip\r\nB: b\r\nA: gzip\r\n"
	lines := func(text string) (v []string) { // the values as the parse makes them, substrings of text
		for rest := text; rest != ""; {
			var line string
			line, rest = CutLine(rest)
			_, value, _ := strings.Cut(line, ": ")
			v = append(v, value)
		}
		return v
	}(text)
	for _, c := range []struct {
		name string
		h    http.Header
		want []string
	}{
		{"a new value", http.Header{"A": {"gzip"}, "B": {"b"}},
			[]string{"-Host: a", "A: gzip", "B: b"}},
		{"the first line's value", http.Header{"A": {lines[1]}, "B": {lines[2]}},
			[]string{"-Host: a", "A: gzip", "B: b"}},
		{"the second line's value", http.Header{"A": {lines[3]}, "B": {lines[2]}},
			[]string{"-Host: a", "A: gzip", "B: b"}},
		{"a field added", http.Header{"A": {"gzip"}, "B": {lines[2]}, "If-None-Match": {`"e"`}},
			[]string{"-Host: a", "A: gzip", "B: b", `+If-None-Match: "e"`}},
		{"empty values", http.Header{"A": {""}}, nil},
	} {
		text := text
		if c.h["A"][0] == "" {
			text, c.want = "A:\r\nA: \r\n", []string{"A: "}
		}
		if got := walk(text, c.h); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	// A value a module cut out of the line's own: the line gives it.
	own := "A: gzip, br\r\n"
	if got := walk(own, http.Header{"A": {own[3:7]}}); !reflect.DeepEqual(got, []string{"A: gzip"}) {
		t.Errorf("part of the line's value: %q", got)
	}
}

// BenchmarkLines walks a browser's usual dozen lines.
func BenchmarkLines(b *testing.B) {
	text := "Host: example.com\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64)\r\nAccept: text/html\r\n" +
		"Accept-Language: en-US,en;q=0.5\r\nAccept-Encoding: gzip, deflate, br\r\nConnection: keep-alive\r\n" +
		"Cookie: a=1; b=2\r\nUpgrade-Insecure-Requests: 1\r\nSec-Fetch-Dest: document\r\nSec-Fetch-Mode: navigate\r\n" +
		"Sec-Fetch-Site: none\r\nPriority: u=0, i\r\n"
	h := http.Header{}
	for rest := text; rest != ""; {
		var line string
		line, rest = CutLine(rest)
		name, value, _ := strings.Cut(line, ": ")
		if name != "Host" {
			h[name] = append(h[name], value)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		l := NewLines(text, h)
		for {
			if _, _, _, _, ok := l.Next(); !ok {
				break
			}
		}
		if l.Rest(nil) != nil {
			b.Fatal("rest")
		}
	}
}

// A header of thousands of names, each on two lines or each with an
// empty value (which take Next's slower way), walks in time linear in its
// lines: a client's 64 KB header must not cost the square of its lines.
// Eight times the lines may take about eight times as long, far from
// the sixty-four times of a walk over the names met for each line. The
// times are the thread's processor time, the least of interleaved
// repeats: on a loaded machine the longer walk is preempted more often,
// which the wall clock would charge it.
func TestLinesLinear(t *testing.T) {
	walk := func(line func(b *strings.Builder, i int), size int) func() {
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			line(&b, i)
		}
		text := b.String()
		h := http.Header{}
		for rest := text; rest != ""; {
			var line string
			line, rest = CutLine(rest)
			name, value, _ := strings.Cut(line, ":")
			k, _, _ := CanonicalName(name)
			h[k] = append(h[k], value)
		}
		return func() {
			l := NewLines(text, h)
			for {
				if _, _, _, _, ok := l.Next(); !ok {
					break
				}
			}
		}
	}
	for name, line := range map[string]func(b *strings.Builder, i int){
		"two lines a name": func(b *strings.Builder, i int) { fmt.Fprintf(b, "x%d:a\r\nx%d:b\r\n", i, i) },
		"empty values":     func(b *strings.Builder, i int) { fmt.Fprintf(b, "x%d:\r\n", i) },
	} {
		took := cputime.Least(9, walk(line, 8<<10), walk(line, 64<<10))
		small, large := took[0], took[1]
		if large > 24*small {
			t.Errorf("%s: 8 KB walked in %v, 64 KB in %v", name, small, large)
		}
	}
}

// TestLinesSkipHostLookup: with SkipHostLookup, a Host line is given as
// not in the map, and HostMissed tells, after the walk, exactly when the
// map holds Host (a module's), whether or not the other lines gave all
// the map's other names; a host line spelled otherwise is looked up.
func TestLinesSkipHostLookup(t *testing.T) {
	for _, c := range []struct {
		name, text string
		h          http.Header
		missed     bool
	}{
		{"as parsed", "Host: a\r\nX-A: 1\r\n", http.Header{"X-A": {"1"}}, false},
		{"another field added", "Host: a\r\nX-A: 1\r\n", http.Header{"X-A": {"1"}, "Y": {"2"}}, false},
		{"a line taken out", "Host: a\r\nX-A: 1\r\n", http.Header{}, false},
		{"Host added", "Host: a\r\nX-A: 1\r\n", http.Header{"X-A": {"1"}, "Host": {"b"}}, true},
		{"Host added alone", "Host: a\r\n", http.Header{"Host": {"a"}}, true},
		{"Host and another added", "Host: a\r\nX-A: 1\r\n", http.Header{"X-A": {"1"}, "Host": {"b"}, "Y": {"2"}}, true},
		{"no Host line", "X-A: 1\r\n", http.Header{"X-A": {"1"}, "Host": {"b"}}, false},
		{"host spelled otherwise", "host: a\r\n", http.Header{"Host": {"b"}}, false},
	} {
		l := NewLines(c.text, c.h)
		l.SkipHostLookup()
		var got []string
		for {
			name, _, value, mapped, ok := l.Next()
			if !ok {
				break
			}
			got = append(got, fmt.Sprintf("%s=%s,%t", name, value, mapped))
		}
		if l.HostMissed() != c.missed {
			t.Errorf("%s: HostMissed %t, want %t (lines %v)", c.name, !c.missed, c.missed, got)
		}
		if len(got) > 0 && strings.HasPrefix(got[0], "Host=") && got[0] != "Host=a,false" {
			t.Errorf("%s: the Host line %q", c.name, got[0])
		}
		if c.name == "host spelled otherwise" && got[0] != "host=b,true" {
			t.Errorf("%s: the host line %q, want the map's", c.name, got[0])
		}
	}
}

// TestLinesGaveAll: GaveAll is true exactly when the keys the walk gave
// mapped are every key of the map, each once.
func TestLinesGaveAll(t *testing.T) {
	const text = "Host: h\r\nX-A: 1\r\nx-b: 2\r\n"
	at := func(v string) string { i := strings.Index(text, v); return text[i : i+len(v)] } // the line's very text
	for _, c := range []struct {
		name string
		h    http.Header
		want bool
	}{
		{"as parsed", http.Header{"X-A": {at("1")}, "X-B": {at("2")}}, true},
		{"copied values", http.Header{"X-A": {"1"}, "X-B": {"2"}}, false},
		{"a field added", http.Header{"X-A": {at("1")}, "X-B": {at("2")}, "Y": {"3"}}, false},
		{"a field taken out", http.Header{"X-A": {at("1")}}, true},
		{"no values", http.Header{"X-A": {}, "X-B": {at("2")}}, false},
		{"as sent beside canonical", http.Header{"X-A": {at("1")}, "x-b": {at("2")}, "X-B": {at("2")}}, false},
		{"as sent alone", http.Header{"X-A": {at("1")}, "x-b": {at("2")}}, true},
	} {
		l := NewLines(text, c.h)
		gave := map[string]bool{}
		for {
			_, key, _, mapped, ok := l.Next()
			if !ok {
				break
			}
			if mapped {
				gave[key] = true
			}
		}
		if got := l.GaveAll(); got != c.want {
			t.Errorf("%s: GaveAll %t, want %t", c.name, got, c.want)
		}
		if l.GaveAll() && len(gave) != len(c.h) {
			t.Errorf("%s: GaveAll with %v of %v given", c.name, gave, c.h)
		}
	}
}

// TestLinesHostMissedRawKey: a key as sent (not canonical) whose one
// value is its first line's very text, the name repeated: the walk
// counts that key twice in found (its second line does not see the
// first's, looked for by the canonical name), which must not hide a
// Host a module put in the map.
func TestLinesHostMissedRawKey(t *testing.T) {
	const text = "Host: a\r\nx-a: 1\r\nx-a: 2\r\n"
	i := strings.Index(text, "1")
	l := NewLines(text, http.Header{"Host": {"m"}, "x-a": {text[i : i+1]}})
	l.SkipHostLookup()
	for {
		if _, _, _, _, ok := l.Next(); !ok {
			break
		}
	}
	if !l.HostMissed() {
		t.Error("HostMissed false with Host in the map")
	}
}

// walkKeys is walk by the keys Next gives (a raw key where the map holds
// the name as sent), what a gateway's encoder names its pairs by: the
// mapped lines, then what Rest gives.
func walkKeys(text string, h http.Header) (lines, rest []string) {
	l := NewLines(text, h)
	for {
		_, key, value, mapped, ok := l.Next()
		if !ok {
			break
		}
		if mapped {
			lines = append(lines, key+": "+value)
		}
	}
	for _, f := range l.Rest(nil) {
		for _, v := range f.Values {
			rest = append(rest, f.Name+": "+v)
		}
	}
	return lines, rest
}

// TestLinesBothSpellings: a map holding a name both as sent (a module
// writing h["x-foo"] raw) and canonical gives every value of both keys
// once: the key a line finds at the line's place, as Next looks it up
// (the name as sent first), and the other key with the fields a module
// added, sorted, after the lines; values beyond a key's lines last.
func TestLinesBothSpellings(t *testing.T) {
	piece := func(text, v string) string { // v as the parse makes it, a piece of text
		i := strings.Index(text, ": "+v+"\r") + 2
		return text[i : i+len(v)]
	}
	const one, two, rep = "x-foo: a\r\n", "x-foo: a\r\nX-Foo: b\r\n", "x-a: 1\r\nx-a: 2\r\n"
	for _, c := range []struct {
		name, text string
		h          http.Header
		want       []string
	}{
		{"raw key found by the line", one,
			http.Header{"x-foo": {"m"}, "X-Foo": {piece(one, "a")}},
			[]string{"x-foo: m", "+X-Foo: a"}},
		{"raw key the line's own value", one,
			http.Header{"x-foo": {piece(one, "a")}, "X-Foo": {"c"}},
			[]string{"x-foo: a", "+X-Foo: c"}},
		{"canonical key found by the line", "X-Foo: a\r\n",
			http.Header{"X-Foo": {piece("X-Foo: a\r\n", "a")}, "x-foo": {"m"}},
			[]string{"X-Foo: a", "+x-foo: m"}},
		{"each spelling a line", two,
			http.Header{"x-foo": {"m"}, "X-Foo": {piece(two, "a"), piece(two, "b")}},
			[]string{"x-foo: m", "X-Foo: a", "+X-Foo: b"}},
		{"raw key repeated, one value", rep,
			http.Header{"x-a": {piece(rep, "1")}},
			[]string{"x-a: 1"}},
		{"raw key repeated, one value, canonical too", rep,
			http.Header{"x-a": {piece(rep, "1")}, "X-A": {"c"}},
			[]string{"x-a: 1", "+X-A: c"}},
	} {
		lines, rest := walkKeys(c.text, c.h)
		for _, r := range rest {
			lines = append(lines, "+"+r)
		}
		if got := lines; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q against %q:\n got %q\nwant %q", c.name, c.text, c.h, got, c.want)
		}
	}
}
