package vmap

import (
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/header"
)

type line struct{ key, val string }

func build(t testing.TB, hostnames bool, lines ...line) *Map[string] {
	t.Helper()
	b := NewBuilder[string]()
	if hostnames {
		b.Hostnames()
	}
	for _, l := range lines {
		if err := b.Add(l.key, l.val); err != nil {
			t.Fatalf("%q: %v", l.key, err)
		}
	}
	return b.Map()
}

func TestFind(t *testing.T) {
	exact := build(t, false,
		line{"default", "dflt"},
		line{"", "empty"},
		line{"Text/HTML", "html"},
		line{`\default`, "the word"},
		line{`\~tilde`, "literal tilde"},
		line{"*.example.com", "not a wildcard"},
		line{"~^/img/(?P<name>[a-z]+)\\.(png|jpg)$", "image"},
		line{"~*^/DOC/", "doc"},
		line{"~^/img/", "second regex"},
	)
	hosts := build(t, true,
		line{"example.com", "exact"},
		line{"*.example.com", "star"},
		line{"*.a.example.com", "star a"},
		line{".example.org", "dot"},
		line{"www.example.*", "tail"},
		line{"www.*", "www tail"},
		line{"~^(?<sub>[a-z]+)\\.test$", "regex $sub"},
	)
	none := build(t, false, line{"a", "1"})
	for _, c := range []struct {
		m          *Map[string]
		in, want   string
		found      bool
		regex      int
		firstGroup string
	}{
		{exact, "text/html", "html", true, -1, ""},
		{exact, "TEXT/html", "html", true, -1, ""},
		{exact, "", "empty", true, -1, ""},
		{exact, "default", "the word", true, -1, ""},
		{exact, "~tilde", "literal tilde", true, -1, ""},
		{exact, "x.example.com", "dflt", false, -1, ""},
		{exact, "*.example.com", "not a wildcard", true, -1, ""},
		{exact, "/img/logo.png", "image", true, 0, "logo"},
		{exact, "/IMG/logo.png", "dflt", false, -1, ""}, // ~ is case-sensitive
		{exact, "/img/Logo.png", "second regex", true, 2, ""},
		{exact, "/doc/x", "doc", true, 1, ""},
		{exact, "text/plain", "dflt", false, -1, ""},
		{none, "b", "", false, -1, ""},

		{hosts, "example.com", "exact", true, -1, ""},
		{hosts, "EXAMPLE.com.", "exact", true, -1, ""}, // trailing dot ignored
		{hosts, "x.example.com", "star", true, -1, ""},
		{hosts, "x.y.example.com", "star", true, -1, ""},
		{hosts, "x.a.example.com", "star a", true, -1, ""},
		{hosts, "a.example.com", "star", true, -1, ""}, // *.a.example.com needs a label before a
		{hosts, "example.org", "dot", true, -1, ""},
		{hosts, "w.example.org", "dot", true, -1, ""},
		{hosts, "www.example.net", "tail", true, -1, ""},
		{hosts, "www.example.co.uk", "tail", true, -1, ""},
		{hosts, "www.other.net", "www tail", true, -1, ""},
		{hosts, "www.example", "www tail", true, -1, ""}, // www.example.* needs a dot after it
		{hosts, "www", "", false, -1, ""},
		{hosts, "abc.test", "regex $sub", true, 0, "abc"},
		{hosts, "notexample.com", "", false, -1, ""},
	} {
		res, err := c.m.Find(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if res.Value != c.want || res.Found != c.found || res.Regex != c.regex {
			t.Errorf("Find(%q) = %q found %v regex %d; want %q %v %d", c.in, res.Value, res.Found, res.Regex, c.want, c.found, c.regex)
		}
		if c.firstGroup != "" && (len(res.Captures) < 2 || res.Captures[1] != c.firstGroup) {
			t.Errorf("Find(%q) captures %q, want $1 %q", c.in, res.Captures, c.firstGroup)
		}
	}
}

// An empty string is never tried against the regular expressions: NGINX
// gives the default (or the "" key's value).
func TestEmptySkipsRegexes(t *testing.T) {
	m := build(t, false, line{"~.*", "any"}, line{"default", "d"})
	if res, _ := m.Find(""); res.Value != "d" || res.Found {
		t.Errorf("empty string: %+v", res)
	}
	if res, _ := m.Find("x"); res.Value != "any" {
		t.Errorf("x: %+v", res)
	}
}

func TestRefuses(t *testing.T) {
	for _, c := range []struct {
		hostnames bool
		lines     []line
		want      string
	}{
		{false, []line{{"default", "a"}, {"default", "b"}}, "duplicate default map parameter"},
		{false, []line{{"abc", "a"}, {"ABC", "b"}}, `conflicting parameter "ABC"`},
		{false, []line{{"~(", "a"}}, "compile() failed"},
		{true, []line{{"*.a.*", "a"}}, `invalid hostname or wildcard "*.a.*"`},
		{true, []line{{"a.*.b", "a"}}, `invalid hostname or wildcard "a.*.b"`},
		{true, []line{{"*", "a"}}, `invalid hostname or wildcard "*"`},
		{true, []line{{"a..b", "a"}}, `invalid hostname or wildcard "a..b"`},
		{true, []line{{"example.com", "a"}, {".example.com", "b"}}, `conflicting parameter ".example.com"`},
		{true, []line{{".example.com", "a"}, {"example.com", "b"}}, `conflicting parameter "example.com"`},
		{true, []line{{".example.com", "a"}, {"*.example.com", "b"}}, `conflicting parameter "*.example.com"`},
		{true, []line{{"www.*", "a"}, {"WWW.*", "b"}}, `conflicting parameter "WWW.*"`},
	} {
		b := NewBuilder[string]()
		if c.hostnames {
			b.Hostnames()
		}
		var err error
		for _, l := range c.lines {
			if err = b.Add(l.key, l.val); err != nil {
				break
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.lines, err, c.want)
		}
	}
	// Without hostnames, wildcards are plain keys, and "*.x" and ".x" differ.
	b := NewBuilder[string]()
	for _, k := range []string{"*.x", ".x", "x", "*"} {
		if err := b.Add(k, k); err != nil {
			t.Errorf("%q: %v", k, err)
		}
	}
}

// FuzzFind looks up arbitrary strings, as requests supply them, in a table
// with every kind of key: no panic, and an exact key always wins.
func FuzzFind(f *testing.F) {
	for _, s := range []string{"", ".", "a.example.com", "www.example.", "..", "*.example.com", "abc.test", "ÄB.example.com"} {
		f.Add(s)
	}
	m := build(f, true,
		line{"example.com", "exact"},
		line{"*.example.com", "star"},
		line{".example.org", "dot"},
		line{"www.example.*", "tail"},
		line{"~^(?<sub>[a-z]+)\\.test$", "regex"},
		line{"default", "d"},
	)
	f.Fuzz(func(t *testing.T, s string) {
		res, err := m.Find(s)
		if err != nil {
			t.Fatal(err)
		}
		if header.LowerASCII(strings.TrimSuffix(s, ".")) == "example.com" && res.Value != "exact" {
			t.Errorf("%q: %q", s, res.Value)
		}
		if !res.Found && res.Value != "d" {
			t.Errorf("%q: not found but %q", s, res.Value)
		}
		if res.Regex >= 0 && res.Captures == nil {
			t.Errorf("%q: regex %d without captures", s, res.Regex)
		}
	})
}
