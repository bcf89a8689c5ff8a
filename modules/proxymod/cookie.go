package proxymod

import (
	"net/http"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/pcre"
	"github.com/mosaic-edge/mosaic/proxy"
	core "github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/vars"
)

// ruleList is one level's lines of proxy_redirect, proxy_cookie_domain,
// proxy_cookie_path or proxy_cookie_flags. As in NGINX, a level without
// any inherits its parent's; "off" keeps a level from inheriting, and
// may not share the level with rules.
type ruleList[T any] struct {
	rules []T
	off   bool
	set   bool
}

func (c *ruleList[T]) merge(parent ruleList[T]) {
	if !c.set {
		*c = parent
	}
}

// add records a line: "off", or a rule that parse builds from the
// arguments.
func (c *ruleList[T]) add(cmd *core.Cmd, parse func() (T, error)) error {
	if c.off {
		return cmd.Duplicate()
	}
	if len(cmd.Args) == 1 && cmd.Args[0] == "off" {
		if c.set {
			return cmd.Duplicate()
		}
		c.off, c.set = true, true
		return nil
	}
	r, err := parse()
	if err != nil {
		return err
	}
	c.rules, c.set = append(c.rules, r), true
	return nil
}

// pairOnly refuses a line of one argument other than "off", for the
// directives whose rules take two or more.
func pairOnly[T any](c *core.Cmd, parse func(*core.Cmd) (T, error)) func() (T, error) {
	return func() (T, error) {
		if len(c.Args) == 1 {
			var zero T
			return zero, c.Errorf("invalid parameter %q", c.Args[0])
		}
		return parse(c)
	}
}

// matcher is the first argument of a cookie line: "~regex" ("~*regex"
// for proxy_cookie_path, caseless) or a value with variables.
type matcher struct {
	re    *pcre.Regexp
	value *vars.Template
}

func parseMatcher(c *core.Cmd, arg string, caselessTilde bool) (matcher, error) {
	if rest, ok := strings.CutPrefix(arg, "~"); ok {
		caseless := caselessTilde
		if r2, ok := strings.CutPrefix(rest, "*"); ok && !caselessTilde {
			rest, caseless = r2, true
		}
		re, err := pcre.Compile(rest, caseless)
		if err != nil {
			return matcher{}, c.Errorf("%v", err)
		}
		return matcher{re: re}, nil
	}
	t, err := c.Template(arg)
	return matcher{value: t}, err
}

// match runs the regex on s; the captures go to the request, for $1..$9
// in the replacement, as NGINX's regex rules set them.
func (m matcher) match(r *http.Request, s string) bool {
	caps, err := m.re.Match(s)
	if caps == nil || err != nil {
		return false
	}
	if st := vars.FromContext(r.Context()); st != nil {
		st.Captures = caps
	}
	return true
}

// domainRule and pathRule build proxy_cookie_domain and
// proxy_cookie_path lines.
func domainRule(c *core.Cmd) (proxy.CookieRule, error) { return valueRule(c, true) }
func pathRule(c *core.Cmd) (proxy.CookieRule, error)   { return valueRule(c, false) }

// valueRule builds a proxy_cookie_domain or proxy_cookie_path line.
func valueRule(c *core.Cmd, domain bool) (proxy.CookieRule, error) {
	pattern, repl := c.Args[0], c.Args[1]
	if domain && !strings.HasPrefix(pattern, "~") {
		// A plain domain and its replacement are compared and written
		// without a leading ".", which the cookie's own value keeps.
		pattern = strings.TrimPrefix(pattern, ".")
		repl = strings.TrimPrefix(repl, ".")
	}
	m, err := parseMatcher(c, pattern, domain)
	if err != nil {
		return nil, err
	}
	rt, err := c.Template(repl)
	if err != nil {
		return nil, err
	}
	if m.re != nil {
		// A regex replaces the whole value.
		return func(r *http.Request, v string) (string, bool) {
			if !m.match(r, v) {
				return "", false
			}
			return rt.Eval(r), true
		}, nil
	}
	if domain {
		return proxy.CookieDomainRule(m.value.Eval, rt.Eval), nil
	}
	return proxy.CookiePathRule(m.value.Eval, rt.Eval), nil
}

// flagsRule builds a proxy_cookie_flags line: a cookie name (ignoring
// case; "~regex" is caseless) and flag words with variables.
func flagsRule(c *core.Cmd) (proxy.CookieFlags, error) {
	m, err := parseMatcher(c, c.Args[0], true)
	if err != nil {
		return proxy.CookieFlags{}, err
	}
	var words []*vars.Template
	for _, a := range c.Args[1:] {
		t, err := c.Template(a)
		if err != nil {
			return proxy.CookieFlags{}, err
		}
		words = append(words, t)
	}
	f := proxy.CookieFlags{Flags: func(r *http.Request) []string {
		out := make([]string, len(words))
		for i, w := range words {
			out[i] = w.Eval(r)
		}
		return out
	}}
	if m.re != nil {
		f.Match = m.match
	} else {
		f.Match = func(r *http.Request, name string) bool { return strings.EqualFold(name, m.value.Eval(r)) }
	}
	return f, nil
}

func cookieDirectives() []core.Directive {
	return []core.Directive{
		{Name: "proxy_cookie_domain", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 2, Set: func(c *core.Cmd) error {
			return c.Loc().(*reqConf).cookieDomain.add(c, pairOnly(c, domainRule))
		}},
		{Name: "proxy_cookie_path", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 2, Set: func(c *core.Cmd) error {
			return c.Loc().(*reqConf).cookiePath.add(c, pairOnly(c, pathRule))
		}},
		{Name: "proxy_cookie_flags", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 4, Set: func(c *core.Cmd) error {
			return c.Loc().(*reqConf).cookieFlags.add(c, pairOnly(c, flagsRule))
		}},
	}
}

// cookieOptions returns the proxy's cookie rules for a level, nil without
// any.
func cookieOptions(rc *reqConf) *proxy.Cookies {
	if len(rc.cookieDomain.rules)+len(rc.cookiePath.rules)+len(rc.cookieFlags.rules) == 0 {
		return nil
	}
	return &proxy.Cookies{Domain: rc.cookieDomain.rules, Path: rc.cookiePath.rules, Flags: rc.cookieFlags.rules}
}
