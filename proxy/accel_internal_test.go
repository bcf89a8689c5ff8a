package proxy

import "testing"

// TestParseAccelTarget follows ngx_http_parse_unsafe_uri: arguments after
// the first "?", the path decoded, unsafe values refused.
func TestParseAccelTarget(t *testing.T) {
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
		path, args, ok := parseAccelTarget(c.in)
		if ok != c.ok || ok && (path != c.path || args != c.args) {
			t.Errorf("%q: %q %q %v, want %q %q %v", c.in, path, args, ok, c.path, c.args, c.ok)
		}
	}
}
