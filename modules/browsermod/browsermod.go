// Package browsermod wires the browser library to the server as NGINX's
// ngx_http_browser_module: modern_browser, ancient_browser and their
// _value directives, and the variables $modern_browser, $ancient_browser
// and $msie.
package browsermod

import (
	"net/http"

	"github.com/mosaic-edge/mosaic/browser"
	"github.com/mosaic-edge/mosaic/internal/useragent"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/vars"
)

// locConf is one level's settings; policy is built when it is merged.
type locConf struct {
	modern    []browser.Rule // nil: no modern_browser rule at this level
	unlisted  bool
	ancient   []string // nil: no ancient_browser substring at this level
	netscape4 bool
	// raw: modern was written at the http level (browser.Options.Raw).
	raw                       bool
	modernValue, ancientValue *string
	policy                    *browser.Policy
}

var module = &server.Module{
	Name: "browser",
	Directives: []server.Directive{
		{Name: "modern_browser", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 2, Set: setModern},
		{Name: "ancient_browser", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: setAncient},
		{Name: "modern_browser_value", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: setValue(func(lc *locConf) **string { return &lc.modernValue })},
		{Name: "ancient_browser_value", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: setValue(func(lc *locConf) **string { return &lc.ancientValue })},
	},
	NewLoc:   func() any { return &locConf{} },
	MergeLoc: merge,
}

func init() {
	// All three are changeable in NGINX: "set" may override them.
	vars.RegisterChangeable("modern_browser", value(true))
	vars.RegisterChangeable("ancient_browser", value(false))
	vars.RegisterChangeable("msie", func(r *http.Request, _ *vars.State) string {
		if useragent.MSIE(r.Header.Get("User-Agent")) {
			return "1"
		}
		return ""
	})
	server.Register(module)
}

func setModern(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if len(c.Args) == 1 {
		if c.Args[0] != "unlisted" {
			// NGINX fails here without a message.
			return c.Invalid(c.Args[0], `a single parameter must be "unlisted"`)
		}
		lc.unlisted = true
		return nil
	}
	name, ok := browser.LookupName(c.Args[0])
	if !ok {
		return c.Errorf("unknown browser name %q", c.Args[0])
	}
	v, ok := browser.ParseVersion(c.Args[1])
	if !ok {
		return c.Errorf("invalid browser version %q", c.Args[1])
	}
	lc.modern = append(lc.modern, browser.Rule{Browser: name, Version: v})
	lc.raw = c.Context() == server.CtxHTTP
	return nil
}

// setValue sets a _value directive's string; a second line replaces the
// first, as in NGINX.
func setValue(field func(*locConf) **string) func(*server.Cmd) error {
	return func(c *server.Cmd) error {
		v := c.Args[0]
		*field(c.Loc().(*locConf)) = &v
		return nil
	}
}

func setAncient(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	for _, a := range c.Args {
		if a == "netscape4" {
			lc.netscape4 = true
			continue
		}
		lc.ancient = append(lc.ancient, a)
	}
	return nil
}

// merge inherits as NGINX does: the modern rules with "unlisted" when a
// level has neither, the ancient substrings with "netscape4" when it has
// neither, and each value on its own.
func merge(p, c any) error {
	parent, child := p.(*locConf), c.(*locConf)
	if child.modern == nil && !child.unlisted {
		child.modern, child.unlisted, child.raw = parent.modern, parent.unlisted, parent.raw
	}
	if child.ancient == nil && !child.netscape4 {
		child.ancient, child.netscape4 = parent.ancient, parent.netscape4
	}
	if child.modernValue == nil {
		child.modernValue = parent.modernValue
	}
	if child.ancientValue == nil {
		child.ancientValue = parent.ancientValue
	}
	child.policy = browser.New(browser.Options{
		Modern: child.modern, Unlisted: child.unlisted, Raw: child.raw,
		Ancient: child.ancient, Netscape4: child.netscape4,
	})
	return nil
}

// value is $modern_browser (modern true) or $ancient_browser for the
// location serving r: its _value ("1" unless set) when the browser is of
// that kind, else empty.
func value(modern bool) vars.Getter {
	return func(r *http.Request, _ *vars.State) string {
		l := server.CurrentLocation(r)
		if l == nil {
			return ""
		}
		lc := server.LocConf[*locConf](l, module)
		if lc.policy.Request(r) != modern {
			return ""
		}
		v := lc.ancientValue
		if modern {
			v = lc.modernValue
		}
		if v == nil {
			return "1"
		}
		return *v
	}
}
