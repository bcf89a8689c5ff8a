// Package geomod wires the geo table to the server: the geo block
// (NGINX's ngx_http_geo_module), which defines a variable whose value
// depends on the client's address or on another variable's.
package geomod

import (
	"net/http"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/geo"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/vars"
)

var module = &server.Module{
	Name: "geo",
	Directives: []server.Directive{
		{Name: "geo", Context: server.CtxHTTP, Block: true, MinArgs: 1, MaxArgs: 2, Set: setGeo},
	},
}

func init() { server.Register(module) }

// geoVar is one geo block turned into a variable.
type geoVar struct {
	source *vars.Template // the address: $remote_addr unless the block names one
	table  *geo.Table
}

func setGeo(c *server.Cmd) error {
	srcText, target := "$remote_addr", c.Args[0]
	if len(c.Args) == 2 {
		if c.Args[0] == "" || c.Args[0][0] != '$' {
			return c.Errorf("invalid variable name %q", c.Args[0])
		}
		srcText, target = c.Args[0], c.Args[1]
	}
	if target == "" || target[0] != '$' {
		return c.Errorf("invalid variable name %q", target)
	}
	scope := c.Config().Vars()
	source, err := scope.Compile(srcText, c.Directive)
	if err != nil {
		return c.Errorf("%v", err)
	}
	b := geo.NewBuilder()
	for _, d := range c.Block {
		if d.Block != nil {
			return conf.Errorf(d, "unexpected \"{\"")
		}
		warn, err := b.Line(d.Name, d.Args)
		if err != nil {
			return conf.Errorf(d, "%v", err)
		}
		for _, w := range warn {
			c.NoticeAt(d, w)
		}
	}
	g := &geoVar{source: source, table: b.Table()}
	if _, err := scope.Define(target[1:], g.get, false); err != nil {
		return c.Errorf("%v", err)
	}
	return nil
}

func (g *geoVar) get(r *http.Request, st *vars.State) string {
	return g.table.Lookup(g.source.EvalState(r, st), r.Header)
}
