package server

import (
	"sort"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/pcre"
	"github.com/mosaic-edge/mosaic/vars"
)

// locationTree holds the locations of one level (a server, or a location
// with nested ones) and finds the one for a URI with NGINX's rules:
//
//  1. an exact "=" match ends the search;
//  2. otherwise the longest matching prefix is remembered; if it is "^~",
//     the search ends; if it has nested locations, they are searched the
//     same way, and their result wins unless it is a plain prefix;
//  3. regular expressions are tried in the order they appear; the first
//     that matches wins, or the first of the regexes nested in it that
//     matches (matchRegex);
//  4. otherwise the longest prefix is used.
//
// Before step 2's nested search, a URI that no exact or prefix location
// names as it is, and that a location with autoRedirect names with a
// slash after it, is answered with a redirect to that location (NGINX's
// auto_redirect, ngx_http_core_find_static_location's NGX_DONE): no
// nested or regex location is tried.
type locationTree struct {
	exact    map[string]*Location
	prefixes []*Location // sorted by length, longest first
	regexes  []*Location // in configuration order
	all      []*Location // in configuration order, for walking
	// slashless maps "/app" to the "= /app/" or "/app/" location whose
	// proxy_pass (or other gateway) redirects "/app" to it; nil when none
	// does.
	slashless map[string]*Location
	// slashLens has bit n set when a key of slashless is n bytes long
	// (bit 63: 63 or more), so that a URI of another length, nearly every
	// request's, is not hashed for a lookup that cannot hit.
	slashLens uint64
}

func newLocationTree() *locationTree {
	return &locationTree{exact: map[string]*Location{}}
}

func (t *locationTree) add(l *Location) bool {
	switch l.kind {
	case levelExact:
		if _, dup := t.exact[l.pattern]; dup {
			return false
		}
		t.exact[l.pattern] = l
	case levelPrefix, levelNoRegex:
		for _, o := range t.prefixes {
			if o.pattern == l.pattern {
				return false
			}
		}
		t.prefixes = append(t.prefixes, l)
	case levelRegex:
		t.regexes = append(t.regexes, l)
	}
	t.all = append(t.all, l)
	return true
}

// finish orders the prefixes once the tree is complete.
func (t *locationTree) finish() {
	sort.SliceStable(t.prefixes, func(i, j int) bool { return len(t.prefixes[i].pattern) > len(t.prefixes[j].pattern) })
	for _, l := range t.all {
		// "/" redirects no URI (every URI starts with it): kept out,
		// "location / { fastcgi_pass ...; }" leaves the map nil and the
		// search without a lookup per request.
		if !l.autoRedirect || l.pattern == "/" {
			continue
		}
		// NGINX's tree node "/app/" holds both "= /app/" and "/app/": it
		// redirects if either set auto_redirect, with the exact one's
		// settings when there is one.
		if e := t.exact[l.pattern]; e != nil {
			l = e
		}
		if t.slashless == nil {
			t.slashless = map[string]*Location{}
		}
		name := strings.TrimSuffix(l.pattern, "/")
		t.slashless[name] = l
		t.slashLens |= 1 << min(len(name), 63)
	}
	for _, l := range t.all {
		if l.nested != nil {
			l.nested.finish()
		}
	}
}

func (t *locationTree) walk(f func(*Location)) {
	for _, l := range t.all {
		f(l)
		if l.nested != nil {
			l.nested.walk(f)
		}
	}
}

// match returns the location for uri, nil when nothing matched; redirect
// says that the location is not to serve uri but to be redirected to
// (auto_redirect). A regex location that matches records its captures in
// st. An error is a regex match that could not be completed, in the
// words of the error log.
func (t *locationTree) match(uri string, st *vars.State) (l *Location, redirect bool, err error) {
	if l, ok := t.exact[uri]; ok {
		return l, false, nil
	}
	var prefix *Location
	for _, l := range t.prefixes {
		if strings.HasPrefix(uri, l.pattern) {
			prefix = l
			break
		}
	}
	if t.slashLens&(1<<min(len(uri), 63)) != 0 && (prefix == nil || len(prefix.pattern) < len(uri)) {
		if l := t.slashless[uri]; l != nil {
			return l, true, nil
		}
	}
	if prefix != nil {
		// As NGINX's ngx_http_core_find_location: whether this level's
		// regexes are tried depends on the prefix matched here ("^~"), not
		// on what its nested locations matched; an exact or regex match
		// among them ends the search, a prefix one (even "^~") does not.
		noregex := prefix.kind == levelNoRegex
		if prefix.nested != nil {
			l, redirect, err := prefix.nested.match(uri, st)
			if err != nil || redirect {
				return l, redirect, err
			}
			if l != nil && (l.kind == levelExact || l.kind == levelRegex) {
				return l, false, nil
			} else if l != nil {
				prefix = l
			}
		}
		if noregex {
			return prefix, false, nil
		}
	}
	if l, err := t.matchRegex(uri, st); err != nil || l != nil {
		return l, false, err
	}
	return prefix, false, nil
}

// matchRegex returns the first of t's regex locations that matches uri,
// or the one inside it that does: as in NGINX, the regexes nested in a
// regex location that matched are searched in turn, their captures
// replacing the outer one's. The exact and prefix locations inside a
// regex location are not: NGINX builds no tree of them
// (ngx_http_init_static_location_trees skips the regex ones), so they
// load but never serve.
func (t *locationTree) matchRegex(uri string, st *vars.State) (*Location, error) {
	for _, l := range t.regexes {
		ok, err := l.re.exec(uri, st)
		if err != nil {
			return nil, pcre.MatchError(err, uri, l.re.Regexp)
		}
		if !ok {
			continue
		}
		if l.nested != nil {
			if n, err := l.nested.matchRegex(uri, st); err != nil || n != nil {
				return n, err
			}
		}
		return l, nil
	}
	return nil, nil
}
