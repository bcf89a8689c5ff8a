package reqrule_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/reqrule"
)

func TestMethod(t *testing.T) {
	cases := map[string]int{
		"GET": 0, "POST": 0, "PROPFIND": 0, "G_T": 0, "M-SEARCH": 0,
		"get": 400, "G!T": 400, "GET1": 400, "": 400, "G T": 400, "GÉT": 400,
		"CONNECT": 405, "TRACE": 405,
	}
	for m, want := range cases {
		if got := reqrule.Method(m); got != want {
			t.Errorf("Method(%q) = %d, want %d", m, got, want)
		}
	}
}

func TestHost(t *testing.T) {
	ok := map[string]string{
		"":                 "",
		"example.com":      "example.com",
		"A.Example.:80":    "a.example",
		"a:b:c":            "a", // the name ends at the first colon, as in NGINX
		"[::1]:8080":       "[::1]",
		"[::1]":            "[::1]",
		"[::1":             "[::1",
		"a_b":              "a_b",
		"a@b":              "a@b",
		"\xc3\xa9.example": "\xc3\xa9.example",
		"x.example.":       "x.example",
		"EXAMPLE.COM:PORT": "example.com",
	}
	for in, want := range ok {
		got, good := reqrule.Host(in)
		if !good || got != want {
			t.Errorf("Host(%q) = %q, %v; want %q, true", in, got, good, want)
		}
	}
	bad := []string{
		"...", "..", ".", "...:80", "a..b", ":80", ".example.com", ".git",
		"a/b", "a\\b", "a b", "a\x00b", "a\tb", "a\x7fb", "example.com..", "a.:80..",
	}
	for _, in := range bad {
		if got, good := reqrule.Host(in); good {
			t.Errorf("Host(%q) = %q, accepted; want refused", in, got)
		}
	}
}

func TestTarget(t *testing.T) {
	cases := []struct {
		target, path, query, host string // host: r.Host after the check
		ok                        bool
	}{
		{"/a/b?x=1", "/a/b", "x=1", "h", true},
		{"/admin/panel#/../../x", "/admin/panel", "", "h", true},
		{"/x?a=1#frag", "/x", "a=1", "h", true},
		{"/x%23y", "/x#y", "", "h", true}, // an escaped '#' is a character of the path
		{"http://other.example/p#q", "/p", "", "other.example", true},
		{"HTTPS://other.example/p", "/p", "", "other.example", true},
		{"*", "", "", "h", false},
		{"host:443", "", "", "h", false},
		{"x", "", "", "h", false},
		{"1http://a/b", "", "", "h", false},
		{"/a b", "", "", "h", false}, // HTTP/2's :path can carry a space
		{"/a?x y", "", "", "h", false},
		{"http://u@other.example/p", "", "", "h", false}, // userinfo, which NGINX refuses
		{"http://u:pw@other.example/p#q", "", "", "h", false},
		{"http://other.example/p@q", "/p@q", "", "other.example", true}, // '@' in the path is a path's
		{"http:///p/../x", "", "", "h", false},                          // no host: NGINX refuses the line
		{"http://?q", "", "", "h", false},
	}
	for _, c := range cases {
		r := &http.Request{Method: "GET", RequestURI: c.target, Host: "h", Header: http.Header{}}
		u, err := url.ParseRequestURI(c.target)
		if err != nil {
			u = &url.URL{}
		}
		r.URL = u
		if u.Host != "" {
			r.Host = u.Host
		}
		if got := reqrule.Target(r); got != c.ok {
			t.Errorf("Target(%q) = %v, want %v", c.target, got, c.ok)
			continue
		}
		if !c.ok {
			continue
		}
		if r.URL.Path != c.path || r.URL.RawQuery != c.query || r.Host != c.host {
			t.Errorf("Target(%q): path %q query %q host %q, want %q %q %q", c.target, r.URL.Path, r.URL.RawQuery, r.Host, c.path, c.query, c.host)
		}
		if strings.Contains(r.RequestURI, "#") {
			t.Errorf("Target(%q): RequestURI %q keeps the fragment", c.target, r.RequestURI)
		}
	}
}

func TestHeaderNames(t *testing.T) {
	base := func() http.Header {
		return http.Header{
			"X-Forwarded-For": {"1.2.3.4"},
			"X_forwarded_for": {"6.6.6.6"},
			"X.forwarded-For": {"6.6.6.6"},
			"Accept":          {"*/*"},
		}
	}
	cases := []struct {
		rule reqrule.HeaderNames
		keep []string
	}{
		{reqrule.HeaderNames{IgnoreInvalid: true}, []string{"X-Forwarded-For", "Accept"}},
		{reqrule.HeaderNames{IgnoreInvalid: true, Underscores: true}, []string{"X-Forwarded-For", "Accept", "X_forwarded_for"}},
		{reqrule.HeaderNames{}, []string{"X-Forwarded-For", "Accept", "X_forwarded_for", "X.forwarded-For"}},
	}
	for _, c := range cases {
		h := base()
		dropped := c.rule.Filter(h)
		if len(h) != len(c.keep) || len(dropped) != 4-len(c.keep) {
			t.Errorf("%+v: kept %v, dropped %v; want %v", c.rule, h, dropped, c.keep)
		}
		for _, k := range c.keep {
			if _, ok := h[k]; !ok {
				t.Errorf("%+v: %s dropped", c.rule, k)
			}
		}
	}
}

// FuzzHost checks that whatever a client sends as Host, the name that
// comes out can be put in a file path without climbing or hiding: no "..",
// no separator, no control byte, no leading dot, lower-case, and stable
// when checked again.
func FuzzHost(f *testing.F) {
	for _, s := range []string{"example.com", "...", "A.b.:80", "[::1]:80", "a/b", ".x", "a..b", "x.:y", "[", "]", ":"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		h, ok := reqrule.Host(in)
		if !ok {
			return
		}
		if in != "" && h == "" {
			t.Fatalf("Host(%q) accepted with an empty name", in)
		}
		if strings.Contains(h, "..") || strings.ContainsAny(h, "/\\\x00") || strings.HasPrefix(h, ".") || h == "." {
			t.Fatalf("Host(%q) = %q: unsafe in a path", in, h)
		}
		for i := 0; i < len(h); i++ {
			if c := h[i]; c <= ' ' || c == 0x7f || 'A' <= c && c <= 'Z' {
				t.Fatalf("Host(%q) = %q: byte %q", in, h, c)
			}
		}
		if again, ok := reqrule.Host(h); !ok || again != h {
			t.Fatalf("Host(%q) = %q, which checks again as %q, %v", in, h, again, ok)
		}
	})
}

func BenchmarkHost(b *testing.B) {
	for _, h := range []string{"example.com", "www.Example.COM:8080"} {
		b.Run(h, func(b *testing.B) {
			for b.Loop() {
				reqrule.Host(h)
			}
		})
	}
}

func TestOriginForm(t *testing.T) {
	for in, want := range map[string]string{
		"/x.php?a=1":                       "/x.php?a=1",
		"http://other.example/x.php?a=1":   "/x.php?a=1",
		"HTTPS://h:8443/a%2Fb/caf\xc3\xa9": "/a%2Fb/caf\xc3\xa9",
		"http://h":                         "/",
		"http://h?a=1":                     "/?a=1",
		"http://h/":                        "/",
		"*":                                "*",
		"":                                 "",
		"/p?u=http://h/x":                  "/p?u=http://h/x",
	} {
		if got := reqrule.OriginForm(in); got != want {
			t.Errorf("OriginForm(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDotDot(t *testing.T) {
	for p, want := range map[string]int{
		"": -1, "..": 0, "../a": 0, "a/..": 2, "a/../b": 2, "/..": 1,
		"a..b": -1, "...": -1, "a/...": -1, "..a/b": -1, "a/b..": -1,
		"a..b/..": 5, "x/.../../y": 6,
	} {
		if got := reqrule.DotDot(p); got != want {
			t.Errorf("DotDot(%q) = %d, want %d", p, got, want)
		}
	}
}
