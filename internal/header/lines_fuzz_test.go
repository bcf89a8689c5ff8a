package header

import (
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// FuzzLines: walked against the map the parse makes of them (values that
// are pieces of the text, or copies, as a module's rebuilt map holds),
// the lines come back each once, in order, with their own values, Host
// unmapped and nothing after them; with one name taken out of the map,
// that name's lines come back unmapped and the others as before; with
// the name also written raw, each value of both keys comes back once. A walk
// that loses, repeats or moves a line changes what a gateway's
// application reads as the client's header.
func FuzzLines(f *testing.F) {
	f.Add("Host: a\nx-B: 1\ncookie: c=1\nX-a:  2 \nCookie: c=2\nX-B: 3\n", uint8(1))
	f.Add("A: gzip\nB: b\nA: gzip\na: gzip\n", uint8(0))
	f.Add("A:\nA: \nA:x\n", uint8(0))
	f.Add("x-a: 1\nX-A: 2\nx-a: 3\n", uint8(0x80))
	f.Fuzz(func(t *testing.T, in string, drop uint8) {
		var text strings.Builder
		for _, line := range strings.Split(in, "\n") {
			name, value, ok := strings.Cut(line, ":")
			if !ok || !IsToken(name) || strings.ContainsAny(value, "\r\x00") {
				continue
			}
			text.WriteString(name + ":" + value + "\r\n")
		}
		all := text.String()
		parsed, copied := http.Header{}, http.Header{}
		var want, wantKeys, keys []string // wantKeys: each line's key, "" for Host
		for rest := all; rest != ""; {
			var line string
			line, rest = CutLine(rest)
			name, raw, _ := strings.Cut(line, ":")
			key, _, _ := CanonicalName(name)
			v := TrimOWS(strings.TrimSuffix(raw, "\r"))
			if key == "Host" {
				want = append(want, "-"+name+": "+v)
				wantKeys = append(wantKeys, "")
				continue
			}
			if _, seen := parsed[key]; !seen {
				keys = append(keys, key)
			}
			parsed[key] = append(parsed[key], v)
			copied[key] = append(copied[key], strings.Clone(v))
			want = append(want, name+": "+v)
			wantKeys = append(wantKeys, key)
		}
		for _, h := range []http.Header{parsed, copied} {
			if got := walk(all, h); !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
				t.Fatalf("%q against %q:\n got %q\nwant %q", all, h, got, want)
			}
		}
		// Without the Host line's lookup the walk is the same, and
		// HostMissed says so; with Host put in the map, it says the walk
		// is to be made again wherever a line was named Host as sent.
		hostLine := strings.HasPrefix(all, "Host:") || strings.Contains(all, "\nHost:")
		for _, h := range []http.Header{parsed, {"Host": {"m"}}} {
			_, added := h["Host"]
			got, missed := walkSkippingHost(all, h)
			if missed != (added && hostLine) {
				t.Fatalf("%q against %q: HostMissed %t", all, h, missed)
			}
			if plain := walk(all, h); !missed && !reflect.DeepEqual(got, plain) {
				t.Fatalf("%q against %q, Host's lookup skipped:\n got %q\nwant %q", all, h, got, plain)
			}
		}
		if len(keys) == 0 {
			return
		}
		gone := keys[int(drop)%len(keys)]
		// A module writing the name raw beside its canonical key
		// (h["x-foo"] beside X-Foo), with a value of its own or the
		// canonical key's first, a piece of the text: the walk and Rest
		// give every value of each key once.
		if raw := strings.ToLower(gone); raw != gone {
			both := maps.Clone(parsed)
			both[raw] = []string{"m"}
			if drop&0x80 != 0 {
				both[raw] = parsed[gone][:1]
			}
			var want []string
			for k, vv := range both {
				for _, v := range vv {
					want = append(want, k+": "+v)
				}
			}
			got, rest := walkKeys(all, both)
			got = append(got, rest...)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("%q against %q, each value once:\n got %q\nwant %q", all, both, got, want)
			}
		}
		delete(parsed, gone)
		var wantLess []string
		for i, w := range want {
			if wantKeys[i] == gone {
				w = "-" + w
			}
			wantLess = append(wantLess, w)
		}
		if got := walk(all, parsed); !reflect.DeepEqual(got, wantLess) {
			t.Fatalf("%q against %q (%s taken out):\n got %q\nwant %q", all, parsed, gone, got, wantLess)
		}
	})
}

// walkSkippingHost is walk with Lines.SkipHostLookup, and what HostMissed
// says after.
func walkSkippingHost(text string, h http.Header) ([]string, bool) {
	var out []string
	l := NewLines(text, h)
	l.SkipHostLookup()
	for {
		name, _, value, mapped, ok := l.Next()
		if !ok {
			break
		}
		if !mapped {
			name = "-" + name
		}
		out = append(out, name+": "+value)
	}
	missed := l.HostMissed()
	for _, f := range l.Rest(nil) {
		for _, v := range f.Values {
			out = append(out, "+"+f.Name+": "+v)
		}
	}
	return out, missed
}
