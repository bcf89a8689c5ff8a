package gateway

import (
	"bytes"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"slices"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/vars"
)

// toyHead is a length-prefixed encoding of a parameter's head: the
// name's length, the value's length in one byte up to 3 (toyShort) or
// else as 0xff and two bytes, then the name, so that a head made once
// and patched (PairEncoding.Short) is seen at and past its boundary.
func toyHead(dst []byte, name string, n int) []byte {
	dst = append(dst, byte(len(name)))
	if n <= toyShort {
		dst = append(dst, byte(n))
	} else {
		dst = append(dst, 0xff, byte(n>>8), byte(n))
	}
	return append(dst, name...)
}

const toyShort = 3

func toyPair(dst []byte, name, value string) []byte {
	return append(toyHead(dst, name, len(value)), value...)
}

// TestEncoderMatchesAppend: whether heads are made once (Short) or not,
// an Encoder writes what Append's parameters make pair by pair, for
// computed values and templates of lengths 0, Short and Short+1, with
// and without if_not_empty.
func TestEncoderMatchesAppend(t *testing.T) {
	tmpl := vars.MustCompile("$arg_a$arg_b")
	val := func(s string) func(*http.Request, *vars.State) string {
		return func(*http.Request, *vars.State) string { return s }
	}
	p := NewParams([]Param{
		{Name: "FIXED", Literal: "f"},
		{Name: "EMPTY", Value: val("")},
		{Name: "GONE", Value: val(""), IfNotEmpty: true},
		{Name: "SHORT", Value: val("sss")},
		{Name: "LONGER", Value: val("llll")},
		{Name: "T", Value: tmpl.EvalState, Template: tmpl},
		{Name: "TGONE", Value: tmpl.EvalState, Template: tmpl, IfNotEmpty: true},
	}, false)
	for _, args := range []string{"", "a=1&b=22", "a=12&b=34"} {
		r := httptest.NewRequest("GET", "/?"+args, nil)
		var want []byte
		for _, v := range p.Append(nil, r) {
			want = toyPair(want, v.Name, v.Value)
		}
		for _, short := range []int{0, toyShort} {
			got := p.Encoder(&PairEncoding{Pair: toyPair, Head: toyHead, Short: short})(nil, r)
			if !bytes.Equal(got, want) {
				t.Errorf("args %q, Short %d:\ngot  %q\nwant %q", args, short, got, want)
			}
		}
		// The template's value is there: its arguments, or nothing, and
		// then if_not_empty leaves its second pair out.
		if strings.Contains(string(want), "TGONE"+r.URL.Query().Get("a")) != (args != "") {
			t.Errorf("args %q: the templates' pairs %q", args, want)
		}
	}
}

// TestEncoderHeaderLines: the client's header lines written with the
// heads made once for common names (lineHeads) are the pairs Append's
// parameters make, for every common name, one not in the table and one
// spelled out of canonical case, with values of 0, Short and Short+1
// bytes, whether the lines are walked as sent (HeaderLines) or from the
// map, and with a configured HTTP_* parameter that takes a line's place.
func TestEncoderHeaderLines(t *testing.T) {
	names := append(slices.Clone(commonHeaders), "X-Uncommon-Name", "x-lower-case")
	for _, value := range []string{"", "abc", "abcd"} {
		var text strings.Builder
		r := httptest.NewRequest("GET", "/", nil)
		r.Header = http.Header{}
		for _, k := range names {
			text.WriteString(k + ": " + value + "\r\n")
			switch {
			case k == "Host":
				r.Host = value
			case k == "Transfer-Encoding":
			default:
				r.Header[textproto.CanonicalMIMEHeaderKey(k)] = []string{value}
			}
		}
		for _, configured := range [][]Param{nil, {{Name: "HTTP_ACCEPT", Literal: "x"}}} {
			p := NewParams(configured, true)
			for _, lines := range []string{"", text.String()} {
				rr := r.WithContext(vars.NewContext(r.Context(), &vars.State{HeaderLines: lines}))
				var want []byte
				for _, v := range p.Append(nil, rr) {
					want = toyPair(want, v.Name, v.Value)
				}
				if !bytes.Contains(want, []byte("HTTP_X_UNCOMMON_NAME")) || !bytes.Contains(want, []byte("HTTP_USER_AGENT")) {
					t.Fatalf("value %q: the lines are not all there: %q", value, want)
				}
				for _, short := range []int{0, toyShort} {
					got := p.Encoder(&PairEncoding{Pair: toyPair, Head: toyHead, Short: short})(nil, rr)
					if !bytes.Equal(got, want) {
						t.Errorf("value %q, %d configured, lines %t, Short %d:\ngot  %q\nwant %q",
							value, len(configured), lines != "", short, got, want)
					}
				}
			}
		}
	}
}

// TestEncoderAbsentFields: an Encoder that walks the header lines first
// and tells the configured values which fields the map lacks
// (vars.Absent) writes what Append's parameters make, which ask the map,
// whether each of Content-Type, Content-Length and Authorization came as
// a line, came and was taken out of the map since, or was put in the map
// by a module (no line), with the lines walked as sent and from the map;
// and State.Absent is as it was after.
func TestEncoderAbsentFields(t *testing.T) {
	var list []Param
	for _, v := range []string{"content_type", "content_length", "remote_user"} {
		tmpl := vars.MustCompile("$" + v)
		list = append(list, Param{Name: strings.ToUpper(v), Value: tmpl.EvalState})
	}
	var seen vars.Absent // what the configured values were told
	list = append(list, Param{Name: "FIXED", Literal: "f"}, Param{Name: "SEEN", IfNotEmpty: true,
		Value: func(_ *http.Request, st *vars.State) string { seen = st.Absent; return "" }})
	p := NewParams(list, true)
	fields := map[string]string{
		"Content-Type":   "text/plain",
		"Content-Length": "0",
		"Authorization":  "Basic dXNlcjpwdw==", // user:pw
	}
	for mask := range 1 << 3 { // each field: sent as a line or not
		for _, change := range []string{"", "add", "remove"} {
			var text strings.Builder
			text.WriteString("Host: h\r\nAccept: */*\r\n")
			i := 0
			for _, k := range slices.Sorted(maps.Keys(fields)) {
				if mask&(1<<i) != 0 {
					text.WriteString(k + ": " + fields[k] + "\r\n")
				}
				i++
			}
			r := httptest.NewRequest("GET", "/", nil)
			r.Header = parsedHeader(text.String())
			switch change {
			case "add": // a module's field, with no line
				r.Header["Authorization"] = []string{"Basic bW9kOnB3"} // mod:pw
			case "remove": // a line the map no longer has
				delete(r.Header, "Content-Type")
			}
			for _, lines := range []string{"", text.String()} {
				st := linesState(lines)
				rr := r.WithContext(vars.NewContext(r.Context(), st))
				var want []byte
				for _, v := range p.Append(nil, rr) {
					want = toyPair(want, v.Name, v.Value)
				}
				got := p.Encoder(&PairEncoding{Pair: toyPair, Head: toyHead, Short: toyShort})(nil, rr)
				if !bytes.Equal(got, want) {
					t.Errorf("mask %03b, %q, lines %t:\ngot  %q\nwant %q", mask, change, lines != "", got, want)
				}
				// The lookups spared where the walk vouches for the map:
				// always from the map's keys, from the lines unless a
				// module added a field (header.Lines.GaveAll).
				var wantSeen vars.Absent
				if lines == "" || change != "add" {
					for k := range fields {
						if _, in := r.Header[k]; !in {
							wantSeen |= vars.AbsentField(k)
						}
					}
				}
				if seen != wantSeen {
					t.Errorf("mask %03b, %q, lines %t: the values were told %03b absent, want %03b",
						mask, change, lines != "", seen, wantSeen)
				}
				if st.Absent != 0 {
					t.Errorf("mask %03b, %q: State.Absent left %b", mask, change, st.Absent)
				}
			}
		}
	}
}

// TestParamsHostPutByModule: the lines' walk takes the Host line without
// its lookup, and walks again when a module put Host in the map: its
// value goes, where the line's is, as before; without it, the line's.
func TestParamsHostPutByModule(t *testing.T) {
	text := "Host: client.test\r\nAccept: */*\r\nX-A: 1\r\n"
	for _, c := range []struct {
		name string
		h    http.Header
		want string
	}{
		{"as parsed", http.Header{"Accept": {"*/*"}, "X-A": {"1"}}, "client.test"},
		{"another field added", http.Header{"Accept": {"*/*"}, "X-A": {"1"}, "Y": {"2"}}, "client.test"},
		{"Host put by a module", http.Header{"Accept": {"*/*"}, "X-A": {"1"}, "Host": {"module.test"}}, "module.test"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host, r.Header = "client.test", c.h
		r = r.WithContext(vars.NewContext(r.Context(), &vars.State{HeaderLines: text}))
		p := NewParams(nil, true)
		got := p.Append(nil, r)
		if len(got) == 0 || got[0] != (Var{"HTTP_HOST", c.want}) {
			t.Errorf("%s: %v, want HTTP_HOST=%s first", c.name, got, c.want)
		}
		var want []byte
		for _, v := range got {
			want = toyPair(want, v.Name, v.Value)
		}
		for _, short := range []int{0, toyShort} {
			if enc := p.Encoder(&PairEncoding{Pair: toyPair, Head: toyHead, Short: short})(nil, r); !bytes.Equal(enc, want) {
				t.Errorf("%s, Short %d: the Encoder's %q, want %q", c.name, short, enc, want)
			}
		}
	}
}

// TestEncoderAbsentAfterPanic: a configured value that panics leaves
// State.Absent as it was. The State outlives the panic (the access log
// written as it unwinds, a cache fill's recover that serves the stale
// entry): a variable read after, of a map changed since, must ask the
// map, here $remote_user of an Authorization the walk did not see.
func TestEncoderAbsentAfterPanic(t *testing.T) {
	p := NewParams([]Param{{Name: "BOOM", Value: func(*http.Request, *vars.State) string { panic("value") }}}, true)
	r := httptest.NewRequest("GET", "/", nil)
	r.Header = http.Header{"Accept": {"*/*"}}
	st := &vars.State{HeaderLines: "Host: h\r\nAccept: */*\r\n"}
	r = r.WithContext(vars.NewContext(r.Context(), st))
	enc := p.Encoder(&PairEncoding{Pair: toyPair, Head: toyHead, Short: toyShort})
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the value's panic did not reach the caller")
			}
		}()
		enc(nil, r)
	}()
	if st.Absent != 0 {
		t.Fatalf("State.Absent left %b after a panic", st.Absent)
	}
	r.Header["Authorization"] = []string{"Basic dXNlcjpwdw=="} // user:pw, as a later phase sees it
	if got := vars.MustCompile("$remote_user").Eval(r); got != "user" {
		t.Errorf("$remote_user after the panic: %q", got)
	}
}

// BenchmarkEncoderLines is the Encoder of a location with the three
// variables vars.Absent spares and curl's three lines walked as sent:
// for counting its instructions by function (fastcgi README).
func BenchmarkEncoderLines(b *testing.B) {
	var list []Param
	for _, v := range []string{"content_type", "content_length", "remote_user", "request_method"} {
		list = append(list, Param{Name: strings.ToUpper(v), Value: vars.MustCompile("$" + v).EvalState})
	}
	p := NewParams(append(list, Param{Name: "FIXED", Literal: "f"}), true)
	const text = "Host: h\r\nUser-Agent: curl/8\r\nAccept: */*\r\n"
	r := httptest.NewRequest("GET", "/", nil)
	r.Header = parsedHeader(text)
	st := &vars.State{HeaderLines: text}
	r = r.WithContext(vars.NewContext(r.Context(), st))
	enc := p.Encoder(&PairEncoding{Pair: toyPair, Head: toyHead, Short: toyShort})
	buf := make([]byte, 0, 4096)
	for b.Loop() {
		buf = enc(buf[:0], r)
	}
	if st.Absent != 0 || len(buf) == 0 {
		b.Fatalf("Absent %b, %d bytes", st.Absent, len(buf))
	}
}

// TestEncoderAbsentRawMap: maps a module could write raw, which the
// lines' walk does not give key by key, still read as Append's
// parameters, which ask the map: Content-Type both under a name as sent
// and canonical (the walk gives the one it finds first, Rest the other),
// and a Content-Length of no values, whose line the walk leaves out.
func TestEncoderAbsentRawMap(t *testing.T) {
	var list []Param
	for _, v := range []string{"content_type", "content_length"} {
		list = append(list, Param{Name: strings.ToUpper(v), Value: vars.MustCompile("$" + v).EvalState})
	}
	p := NewParams(list, true)
	for _, c := range []struct {
		name, text string
		h          http.Header
	}{
		{"both spellings", "Host: h\r\ncontent-type: a/b\r\n", http.Header{"content-type": {"mod/x"}, "Content-Type": {"a/b"}}},
		{"no values", "Host: h\r\nContent-Length: 5\r\n", http.Header{"Content-Length": {}}},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header = c.h
		r = r.WithContext(vars.NewContext(r.Context(), linesState(c.text)))
		var want []byte
		for _, v := range p.Append(nil, r)[:len(list)] { // the lines' pairs: Lines' own matter
			want = toyPair(want, v.Name, v.Value)
		}
		got := p.Encoder(&PairEncoding{Pair: toyPair, Head: toyHead, Short: toyShort})(nil, r)
		if !bytes.HasPrefix(got, want) {
			t.Errorf("%s:\ngot  %q\nwant %q first", c.name, got, want)
		}
	}
}

// parsedHeader is the map the parse makes of text's lines: canonical
// keys, Host left out, values that are pieces of the text itself, which
// the lines' walk (header.Lines) tells from a value a module set.
func parsedHeader(text string) http.Header {
	h := http.Header{}
	for rest := text; rest != ""; {
		var line string
		line, rest = header.CutLine(rest)
		name, value, _ := strings.Cut(line, ":")
		if key, ok, _ := header.CanonicalName(name); ok && key != "Host" {
			h[key] = append(h[key], header.TrimOWS(value))
		}
	}
	return h
}

// TestEncoderBothSpellings: a map holding a name both as sent (a module
// writing r.Header["x-foo"] raw) and canonical: the pairs made walking
// the client's lines are those made from the map alone, each value of
// each key once, only in the lines' order; and the Encoder writes them.
func TestEncoderBothSpellings(t *testing.T) {
	p := NewParams(nil, true)
	for _, c := range []struct {
		text string
		h    http.Header
	}{
		{"Host: h\r\nx-foo: a\r\n", http.Header{"x-foo": {"m"}, "X-Foo": {"a"}}},
		{"Host: h\r\nX-Foo: a\r\n", http.Header{"x-foo": {"m"}, "X-Foo": {"a"}}},
		{"Host: h\r\nx-foo: a\r\nX-Foo: b\r\n", http.Header{"x-foo": {"m"}, "X-Foo": {"a", "b"}}},
		{"Host: h\r\nx-a: 1\r\nx-a: 2\r\n", http.Header{"x-a": {"1"}, "X-A": {"c"}}},
	} {
		pairs := func(lines string) []string {
			r := httptest.NewRequest("GET", "/", nil)
			r.Host, r.Header = "h", c.h
			r = r.WithContext(vars.NewContext(r.Context(), &vars.State{HeaderLines: lines}))
			var out []string
			var want []byte
			for _, v := range p.Append(nil, r) {
				out = append(out, v.Name+"="+v.Value)
				want = toyPair(want, v.Name, v.Value)
			}
			if got := p.Encoder(&PairEncoding{Pair: toyPair, Head: toyHead, Short: toyShort})(nil, r); !bytes.Equal(got, want) {
				t.Errorf("%q, lines %t: the Encoder:\ngot  %q\nwant %q", c.text, lines != "", got, want)
			}
			slices.Sort(out)
			return out
		}
		if got, want := pairs(c.text), pairs(""); !slices.Equal(got, want) {
			t.Errorf("%q against %q, the lines walked:\n got %q\nwant %q (the map's)", c.text, c.h, got, want)
		}
	}
}

// linesState is a State with the header lines given and a body length
// known without a Content-Length line ($content_length 7).
func linesState(lines string) *vars.State {
	st := &vars.State{HeaderLines: lines}
	st.MakeRare().BodyLength = "7"
	return st
}
