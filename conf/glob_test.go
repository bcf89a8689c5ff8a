package conf

import (
	"strings"
	"testing"
)

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"*.conf", "a.conf", true},
		{"*.conf", "a.confx", false},
		{"?.conf", "ab.conf", false},
		{"[ab]*", "b1", true},
		{"[!ab]*", "b1", false},
		{"[!ab]*", "c1", true},
		{"[^ab]*", "c1", true},
		{`\*.conf`, "*.conf", true},
		{`\*.conf`, "a.conf", false},
		{"[a", "[a", true}, // an unterminated class is literal, as in glibc
		{"[a", "a", false},
	}
	for _, c := range cases {
		if got := globMatch(c.pattern, c.name); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v", c.pattern, c.name, got)
		}
	}
	for _, c := range []struct {
		part string
		meta bool
	}{{"a.conf", false}, {"*", true}, {`\*`, false}, {`a\[b`, false}, {"a[b", true}, {`\\*`, true}} {
		if got := hasGlobMeta(c.part); got != c.meta {
			t.Errorf("hasGlobMeta(%q) = %v", c.part, got)
		}
	}
}

func FuzzGlobMatch(f *testing.F) {
	f.Add("*.conf", "a.conf")
	f.Add("[!a]?", "bc")
	f.Add(`\[x`, "[x")
	f.Fuzz(func(t *testing.T, part, name string) {
		if strings.Contains(part, "/") || strings.Contains(name, "/") {
			t.Skip() // components only
		}
		got := globMatch(part, name)
		// A component without wildcards matches exactly its unquoted self.
		if !hasGlobMeta(part) && got != (globUnescape(part) == name) {
			t.Fatalf("literal %q against %q: %v", part, name, got)
		}
	})
}
