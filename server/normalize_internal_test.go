package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// resolvePath is a second, independent statement of the normalisation
// normalizeURI makes (NGINX's handling of a decoded path): a scan that
// keeps the segments kept so far and resolves each "." and ".." as it
// ends; with merge, empty segments go. It reports false for a path that
// climbs above the root, holds a NUL or does not start with "/".
func resolvePath(p string, merge bool) (string, bool) {
	if p == "" {
		return "/", true
	}
	if p[0] != '/' || strings.IndexByte(p, 0) >= 0 {
		return "", false
	}
	var kept []string
	rest := p[1:]
	for {
		seg, more, found := strings.Cut(rest, "/")
		last := !found
		switch {
		case seg == "..":
			if len(kept) == 0 {
				return "", false
			}
			kept = kept[:len(kept)-1]
			if last {
				kept = append(kept, "") // "/a/.." is "/", "/a/b/.." is "/a/"
			}
		case seg == "." || seg == "":
			// A "." goes; an empty segment goes when merged, but the
			// last one is the trailing slash either way.
			if last || (seg == "" && !merge) {
				kept = append(kept, "")
			}
		default:
			kept = append(kept, seg)
		}
		if last {
			break
		}
		rest = more
	}
	return "/" + strings.Join(kept, "/"), true
}

// TestNormalizeURIRules holds both statements of the rules to paths whose
// normal forms NGINX gives.
func TestNormalizeURIRules(t *testing.T) {
	for _, tc := range []struct {
		in, merged, unmerged string
		ok                   bool
	}{
		{"/", "/", "/", true},
		{"/a/b", "/a/b", "/a/b", true},
		{"//a///b//", "/a/b/", "//a///b//", true},
		{"/a/./b/.", "/a/b/", "/a/b/", true},
		{"/a/b/..", "/a/", "/a/", true},
		{"/a/b/../../c", "/c", "/c", true},
		{"/a/..", "/", "/", true},
		{"/..", "", "", false},
		{"/a/../..", "", "", false},
		{"/a/.../b", "/a/.../b", "/a/.../b", true},
		{"/a/..b/.c", "/a/..b/.c", "/a/..b/.c", true},
		{"/a\x00b", "", "", false},
	} {
		for _, merge := range []bool{true, false} {
			want := tc.merged
			if !merge {
				want = tc.unmerged
			}
			got, ok := resolvePath(tc.in, merge)
			if ok != tc.ok || got != want {
				t.Errorf("resolvePath(%q, %v) = %q, %v; want %q, %v", tc.in, merge, got, ok, want, tc.ok)
			}
			r := &http.Request{URL: &url.URL{Path: tc.in}}
			if ok := normalizeURI(r, merge); ok != tc.ok || ok && r.URL.Path != want {
				t.Errorf("normalizeURI(%q, %v) = %q, %v; want %q, %v", tc.in, merge, r.URL.Path, ok, want, tc.ok)
			}
		}
	}
}

// FuzzNormalizeURI holds normalizeURI, which every request's path goes
// through before a location is chosen, to an independent statement of
// the same rules (resolvePath), and checks what routing relies on: a
// path it accepts holds no dot segment and no NUL, starts with "/", has
// no empty segment when merged, comes out the same when normalised
// again, and is what the request target sent upstream names.
func FuzzNormalizeURI(f *testing.F) {
	for _, s := range []string{
		"/", "", "/a/b", "//a//b", "/a/./b", "/a/../b", "/../a", "/a/b/..", "/a/.", "/./",
		"/a/..%2fb", "/a/\x00", "/a b/c", "/%", "/a?b", "/a#b", "*", "a/b", "/a\\..\\b", "/.../..",
		"/a/", "/a.b/c.d", "/a//", "\\", "/\x00", "/a\\b",
	} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, p string, merge bool) {
		// The target as a client sends it: the path escaped (origin form),
		// or the absolute form, whose path may be empty.
		sent := "http://example.com?q=1"
		if p != "" {
			sent = (&url.URL{Path: p}).EscapedPath() + "?q=1"
		}
		// plainPath's one pass says what four searches said.
		plain := !strings.Contains(p, "//") && !strings.Contains(p, "/.") &&
			!strings.Contains(p, "\\") && strings.IndexByte(p, 0) < 0
		if plainPath(p) != plain {
			t.Fatalf("plainPath(%q) = %v, want %v", p, !plain, plain)
		}
		r := &http.Request{URL: &url.URL{Path: p, RawQuery: "q=1"}, RequestURI: sent}
		ok := normalizeURI(r, merge)
		want, wantOK := resolvePath(p, merge)
		if ok != wantOK {
			t.Fatalf("normalizeURI(%q, %v) accepted %v; the rules say %v", p, merge, ok, wantOK)
		}
		if !ok {
			return
		}
		got := r.URL.Path
		if got != want {
			t.Fatalf("normalizeURI(%q, %v) = %q; the rules say %q", p, merge, got, want)
		}
		if got[0] != '/' || strings.IndexByte(got, 0) >= 0 {
			t.Fatalf("normalizeURI(%q) = %q: not a rooted path without NUL", p, got)
		}
		for seg := range strings.SplitSeq(got[1:], "/") {
			if seg == "." || seg == ".." {
				t.Fatalf("normalizeURI(%q) = %q keeps a dot segment", p, got)
			}
		}
		if merge && strings.Contains(got, "//") {
			t.Fatalf("normalizeURI(%q) = %q keeps an empty segment", p, got)
		}
		again := &http.Request{URL: &url.URL{Path: got}}
		if !normalizeURI(again, merge) || again.URL.Path != got {
			t.Fatalf("normalizeURI(%q) = %q, which normalises again to %q", p, got, again.URL.Path)
		}
		if got == p && r.RequestURI != sent {
			t.Fatalf("normalizeURI(%q) left the path alone but changed the target to %q", p, r.RequestURI)
		}
		// The target sent on (the proxy's and the gateways' rule: the
		// client's, unless it is not in origin form) names the path that
		// was routed, with the query kept: an upstream cannot resolve it
		// to another.
		target := r.RequestURI
		if target == "" || target[0] != '/' {
			target = r.URL.RequestURI()
		}
		u, err := url.ParseRequestURI(target)
		if err != nil {
			t.Fatalf("normalizeURI(%q): target %q does not parse: %v", p, target, err)
		}
		if u.Path != got || u.RawQuery != "q=1" {
			t.Fatalf("normalizeURI(%q): routed %q but the target %q names %q?%s", p, got, target, u.Path, u.RawQuery)
		}
	})
}

// TestRelativeTarget: an internal redirect's path without its leading
// slash goes on to routing as NGINX takes it, unless it holds what would
// be refused or resolved against a root (a NUL, a dot segment).
func TestRelativeTarget(t *testing.T) {
	for p, want := range map[string]bool{
		"rel": true, "a/b": true, "a/b/": true, "a.b": true, "..a": true,
		"": false, "/rel": false, "..": false, ".": false, "a/../b": false, "a/./b": false,
		"a/..": false, "rel\x00": false,
	} {
		if got := relativeTarget(p); got != want {
			t.Errorf("relativeTarget(%q) = %v, want %v", p, got, want)
		}
	}
}
