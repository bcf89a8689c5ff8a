// Package additionmod makes package addition a module of the mosaic
// server as NGINX's ngx_http_addition_module: add_before_body,
// add_after_body and addition_types, merged http -> server -> location,
// and the "addition" filter of each location with either URI. The bodies
// are fetched by subrequests, which carry the client's request header as
// SSI's includes do.
package additionmod

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/mosaic-edge/mosaic/addition"
	"github.com/mosaic-edge/mosaic/modules/ssimod"
	"github.com/mosaic-edge/mosaic/server"
)

type locConf struct {
	before, after server.Setting[string]
	types         server.Setting[[]string]
}

var module = &server.Module{
	Name:   "addition",
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		child.before.Merge(parent.before)
		child.after.Merge(parent.after)
		child.types.Merge(parent.types)
		return nil
	},
}

func setURI(get func(*locConf) *server.Setting[string]) func(c *server.Cmd) error {
	return func(c *server.Cmd) error { return server.Put(c, get(c.Loc().(*locConf)), c.Args[0]) }
}

func init() {
	module.Directives = []server.Directive{
		{Name: "add_before_body", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: setURI(func(l *locConf) *server.Setting[string] { return &l.before })},
		{Name: "add_after_body", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: setURI(func(l *locConf) *server.Setting[string] { return &l.after })},
		{Name: "addition_types", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: func(c *server.Cmd) error {
			return server.AppendTypes(c, &c.Loc().(*locConf).types)
		}},
	}
	module.Filter = &server.Filter{
		// NGINX adds to the client's request only: a subrequest (an
		// include of a location with add_before_body) gets nothing.
		Wrap: func(l *server.Location, next http.Handler) (http.Handler, error) {
			lc := server.LocConf[*locConf](l, module)
			return addition.New(next, addition.Options{
				Before: target(lc.before.V),
				After:  target(lc.after.V),
				Types:  lc.types.V,
				Fetch:  fetch,
				Main:   func(r *http.Request) bool { return server.SubrequestDepth(r) == 0 },
				Logger: l.Logger(),
			})
		},
	}
	server.Register(module)
}

// target is the subrequest's target for a configured URI. NGINX takes the
// text as the subrequest's decoded path, unparsed: a "?" or a "%" in it is
// part of the name, so they are escaped for the server, which parses a
// target. A URI that is not absolute is left to be resolved against the
// page's.
func target(uri string) string {
	if !strings.HasPrefix(uri, "/") {
		return uri
	}
	return (&url.URL{Path: uri}).EscapedPath()
}

// fetch asks for uri with a subrequest, whose $request_uri is the page's,
// as in NGINX.
func fetch(parent *http.Request, uri string) (*http.Response, error) {
	return server.Subrequest(parent, uri, ssimod.IncludeHeader(parent))
}

// Unranged returns, for static.Options.Unranged and the cache's
// Transformed, the test of the types l adds to, or nil without
// add_before_body or add_after_body: NGINX's addition filter turns the
// range filter off for them.
func Unranged(l *server.Location) func(contentType string) bool {
	lc := server.LocConf[*locConf](l, module)
	if lc.before.V == "" && lc.after.V == "" {
		return nil
	}
	return addition.Processed(lc.types.V)
}
