// Package submod makes package sub a module of the mosaic server: the
// sub_filter* directives, merged http -> server -> location as NGINX
// merges them, and the "sub" filter of each location with a sub_filter.
package submod

import (
	"net/http"

	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/sub"
)

// maxPairs is NGINX's limit on the sub_filter lines of one level: its
// tables index the patterns with a byte.
const maxPairs = 255

type locConf struct {
	// pairs are inherited only by a level that has none of its own, as
	// in NGINX.
	pairs        []sub.Pair
	once         server.Setting[bool]
	lastModified server.Setting[bool]
	types        server.Setting[[]string]
}

var module = &server.Module{
	Name:   "sub",
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		if child.pairs == nil {
			child.pairs = parent.pairs
		}
		child.once.Merge(parent.once)
		child.lastModified.Merge(parent.lastModified)
		child.types.Merge(parent.types)
		return nil
	},
}

func flag(get func(*locConf) *server.Setting[bool]) func(c *server.Cmd) error {
	return func(c *server.Cmd) error { return server.PutFlag(c, get(c.Loc().(*locConf))) }
}

func init() {
	module.Directives = []server.Directive{
		{Name: "sub_filter", Context: server.CtxHTTPAll, MinArgs: 2, MaxArgs: 2, Set: setSubFilter},
		{Name: "sub_filter_once", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *locConf) *server.Setting[bool] { return &l.once })},
		{Name: "sub_filter_last_modified", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *locConf) *server.Setting[bool] { return &l.lastModified })},
		{Name: "sub_filter_types", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: func(c *server.Cmd) error {
			return server.AppendTypes(c, &c.Loc().(*locConf).types)
		}},
	}
	module.Filter = &server.Filter{
		// NGINX's sub filter rewrites the bodies of subrequests (SSI
		// includes) too, by the included location's sub_filter.
		InSubrequest: true,
		Wrap: func(l *server.Location, next http.Handler) (http.Handler, error) {
			lc := server.LocConf[*locConf](l, module)
			if len(lc.pairs) == 0 {
				return next, nil
			}
			return sub.New(next, sub.Options{
				Pairs:        lc.pairs,
				Once:         lc.once.Or(true),
				Types:        lc.types.V,
				LastModified: lc.lastModified.V,
				Subrequest:   func(r *http.Request) bool { return server.SubrequestDepth(r) > 0 },
			}), nil
		},
	}
	server.Register(module)
}

func setSubFilter(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if c.Args[0] == "" {
		return c.Errorf("empty search pattern")
	}
	if len(lc.pairs) == maxPairs {
		return c.Errorf("number of search patterns exceeds 255")
	}
	m, err := c.Template(c.Args[0])
	if err != nil {
		return err
	}
	r, err := c.Template(c.Args[1])
	if err != nil {
		return err
	}
	lc.pairs = append(lc.pairs, sub.Pair{Match: m, Replace: r})
	return nil
}

// Unranged returns, for static.Options.Unranged and the cache's
// Transformed, the test of the types l rewrites, or nil without
// sub_filter: NGINX's range filter offers no range of a body whose length
// the sub filter made unknown.
func Unranged(l *server.Location) func(contentType string) bool {
	if len(server.LocConf[*locConf](l, module).pairs) == 0 {
		return nil
	}
	return sub.Processed(server.LocConf[*locConf](l, module).types.V)
}
