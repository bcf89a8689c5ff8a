package percent

import (
	"strings"
	"testing"
)

// TestParseUnsafeURI follows ngx_http_parse_unsafe_uri: arguments after
// the first "?", the path decoded, unsafe values refused.
func TestParseUnsafeURI(t *testing.T) {
	for _, c := range []struct {
		in, path, args string
		ok             bool
	}{
		{"/protected/a.pdf", "/protected/a.pdf", "", true},
		{"/p/a?x=1&y=2", "/p/a", "x=1&y=2", true},
		{"/p/a?x=1?z", "/p/a", "x=1?z", true},
		{"/p/a?", "/p/a", "", true},
		{"/p/fi%6Ce", "/p/file", "", true},
		{"/p/a%3Fb?c", "/p/a?b", "c", true},
		{"/p/%zz", "/p/zz", "", true},
		{"/p/%4zb", "/p/b", "", true},
		{"/p/a%", "/p/a", "", true},
		{"/p/a%4", "/p/a", "", true},
		{"/p/./a", "/p/./a", "", true},
		{"/p/..a", "/p/..a", "", true},
		{"", "", "", false},
		{"?x", "", "", false},
		{"..", "", "", false},
		{"../a", "", "", false},
		{"/p/../a", "", "", false},
		{"/p/..", "", "", false},
		{"/p/%2e%2e/a", "", "", false},
		{"/p/%2E./a", "", "", false},
		{"/p/a%00", "", "", false},
		{"/p/a?../b", "/p/a", "../b", true},
		{"/p/..?x", "/p/..", "x", true},
		{"..?x", "..", "x", true},
		{"/p/a?x%00", "/p/a", "x%00", true},
		{"/p/%2e%2e?x", "", "", false},
	} {
		path, args, ok := ParseUnsafeURI(c.in)
		if ok != c.ok || ok && (path != c.path || args != c.args) {
			t.Errorf("%q: %q %q %v, want %q %q %v", c.in, path, args, ok, c.path, c.args, c.ok)
		}
	}
}

// FuzzParseUnsafeURI: an upstream's X-Accel-Redirect value never yields
// a path that holds a NUL or climbs with a "../" segment, and never
// panics.
func FuzzParseUnsafeURI(f *testing.F) {
	for _, s := range []string{"/protected/a.pdf", "/a?b=1", "@named", "/a/%2e%2e/b", "/a/..?x", "/%00", "/%", "/%4", "..", "?x", "/a/../b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		path, args, ok := ParseUnsafeURI(v)
		if !ok {
			if path != "" || args != "" {
				t.Fatalf("%q refused with %q %q", v, path, args)
			}
			return
		}
		if path == "" || strings.IndexByte(path, 0) >= 0 || strings.HasPrefix(path, "../") || strings.Contains(path, "/../") {
			t.Fatalf("%q gave path %q", v, path)
		}
	})
}
