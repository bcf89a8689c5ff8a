// Package referermod wires the referer library to the server as NGINX's
// ngx_http_referer_module: valid_referers, the referer_hash_* tuning
// directives and $invalid_referer, which is "1" when the request's
// Referer is not among the valid ones of the location serving it and
// empty otherwise ("if ($invalid_referer) { return 403; }").
package referermod

import (
	"fmt"
	"net/http"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/referer"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/vars"
)

// locConf is one level's settings. The words of its valid_referers lines
// are collected while the level is read and built into policy when it is
// merged, once the server's names are known (server_names may come
// before server_name in the file).
type locConf struct {
	words      *referer.Builder
	first      *conf.Directive // the first valid_referers line, for errors
	srv        *server.VServer // the server the lines are in
	policy     *referer.Policy // nil: every Referer is valid
	maxSize    server.Setting[int]
	bucketSize server.Setting[int]
}

var module = &server.Module{
	Name: "referer",
	Directives: []server.Directive{
		{Name: "valid_referers", Context: server.CtxServer | server.CtxLocation, MinArgs: 1, MaxArgs: server.Unlimited, Set: setValid},
		{Name: "referer_hash_max_size", Context: server.CtxServer | server.CtxLocation, MinArgs: 1, MaxArgs: 1,
			Set: setHashSize(func(lc *locConf) *server.Setting[int] { return &lc.maxSize })},
		{Name: "referer_hash_bucket_size", Context: server.CtxServer | server.CtxLocation, MinArgs: 1, MaxArgs: 1,
			Set: setHashSize(func(lc *locConf) *server.Setting[int] { return &lc.bucketSize })},
	},
	NewLoc:   func() any { return &locConf{} },
	MergeLoc: merge,
}

func init() {
	vars.RegisterValue("invalid_referer", vars.Always(invalidReferer)) // "" or "1"
	server.Register(module)
}

func setValid(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if lc.words == nil {
		lc.words, lc.first, lc.srv = referer.NewBuilder(), c.Directive, c.Server()
	}
	for _, w := range c.Args {
		if err := lc.words.Add(w); err != nil {
			return c.Errorf("%v", err)
		}
	}
	return nil
}

// setHashSize accepts a referer_hash_* number, which sizes NGINX's static
// hash tables; Go's maps size themselves, so it changes nothing.
func setHashSize(field func(*locConf) *server.Setting[int]) func(*server.Cmd) error {
	return func(c *server.Cmd) error {
		if err := server.PutNum(c, field(c.Loc().(*locConf))); err != nil {
			return err
		}
		c.Notice(fmt.Sprintf("ignoring %q directive (Go's maps need no sizing)", c.Name))
		return nil
	}
}

// merge builds a level's own list, with its server's names when it says
// server_names, or takes its parent's whole, as NGINX's merge does.
func merge(p, c any) error {
	parent, child := p.(*locConf), c.(*locConf)
	if child.words == nil {
		if child.first == nil { // no valid_referers of its own
			child.policy = parent.policy
		}
		return nil
	}
	if child.words.UsesServerNames() && child.srv != nil {
		names, regexes := child.srv.Names()
		for _, n := range names {
			if err := child.words.AddServerName(n, ""); err != nil {
				return conf.Errorf(child.first, "%v", err)
			}
		}
		for _, re := range regexes {
			child.words.AddServerNameRegex(re)
		}
	}
	policy, err := child.words.Policy(parent.policy)
	if err != nil {
		return conf.Errorf(child.first, "%v", err)
	}
	child.policy, child.words = policy, nil
	return nil
}

// invalidReferer is $invalid_referer for the location serving r: "1"
// when its Referer is invalid, else empty. A regular expression that
// could not finish is logged and makes it invalid.
func invalidReferer(r *http.Request, _ *vars.State) string {
	l := server.CurrentLocation(r)
	if l == nil {
		return ""
	}
	p := server.LocConf[*locConf](l, module).policy
	if p == nil {
		return ""
	}
	ok, err := p.Check(r)
	if err != nil {
		l.Logger().Error(fmt.Sprintf("valid_referers: %v", err))
	}
	if ok {
		return ""
	}
	return "1"
}
