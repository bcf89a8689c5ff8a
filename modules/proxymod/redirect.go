package proxymod

import (
	"net/http"

	"github.com/mosaic-edge/mosaic/proxy"
	core "github.com/mosaic-edge/mosaic/server"
)

// setRedirect records a proxy_redirect line: "off", "default", a value
// and its replacement, or "~regex" ("~*" caseless) and a replacement
// (variables allowed in both; a regex's captures in the replacement).
// The lines of a level are tried in order; see proxy.Options.Redirects.
func setRedirect(c *core.Cmd) error {
	lc := c.Loc().(*locConf)
	return lc.redirects.add(c, func() (proxy.Redirect, error) {
		if len(c.Args) == 1 {
			if c.Args[0] != "default" {
				return proxy.Redirect{}, c.Errorf("invalid parameter %q", c.Args[0])
			}
			return defaultRedirect(c, lc)
		}
		return redirectRule(c)
	})
}

// defaultRedirect is "proxy_redirect default" as NGINX builds it: the
// proxy_pass of the level, written before it, becomes the pattern, and
// the location's prefix the replacement ("/" for both ends when proxy_pass
// has no URI part). The pair is fixed here, so a location that inherits
// the line rewrites with its parent's pair, as in NGINX.
func defaultRedirect(c *core.Cmd, lc *locConf) (proxy.Redirect, error) {
	if lc.passVar != nil {
		return proxy.Redirect{}, c.Errorf("\"proxy_redirect default\" cannot be used with \"proxy_pass\" directive with variables")
	}
	if lc.pass == nil {
		return proxy.Redirect{}, c.Errorf("\"proxy_redirect default\" should be placed after the \"proxy_pass\" directive")
	}
	return lc.defaultPair(), nil
}

// defaultPair is the default line of a level with a proxy_pass without
// variables: its target (with "/" when it has no URI part) replaced by
// the location's prefix ("/").
func (lc *locConf) defaultPair() proxy.Redirect {
	from, to := lc.pass.String()+"/", "/"
	if lc.pass.HasURI {
		from, to = lc.pass.String(), lc.passPrefix
	}
	constant := func(s string) func(*http.Request) string { return func(*http.Request) string { return s } }
	return proxy.RedirectPrefix(constant(from), constant(to))
}

// inheritedRedirects is what a level passes on to the levels inside it
// (nested locations, "if" and limit_except blocks). NGINX's merge gives
// a level with a proxy_pass without variables and no proxy_redirect
// line the default line, built from that proxy_pass, and an inner level
// with no line of its own takes it as it is, whatever its own
// proxy_pass: "location /a/ { proxy_pass http://b; location /a/c/ {
// proxy_pass http://b/x/; } }" rewrites "http://b/x/k" to "/x/k", not
// to "/a/c/k".
func (lc *locConf) inheritedRedirects() ruleList[proxy.Redirect] {
	if lc.redirects.set || lc.pass == nil {
		return lc.redirects
	}
	return ruleList[proxy.Redirect]{rules: []proxy.Redirect{lc.defaultPair()}, set: true}
}

// redirectRule builds a line of two values. A regex is matched against
// the whole value, which the replacement then replaces; a plain value is
// a prefix, compared with case, that the replacement takes the place of.
func redirectRule(c *core.Cmd) (proxy.Redirect, error) {
	m, err := parseMatcher(c, c.Args[0], false)
	if err != nil {
		return proxy.Redirect{}, err
	}
	repl, err := c.Template(c.Args[1])
	if err != nil {
		return proxy.Redirect{}, err
	}
	if m.re == nil {
		return proxy.RedirectPrefix(m.value.Eval, repl.Eval), nil
	}
	return proxy.Redirect{Rewrite: func(r *http.Request, v string) (string, bool) {
		if !m.match(r, v) {
			return "", false
		}
		return repl.Eval(r), true
	}}, nil
}
