// Package randomindexmod wires NGINX's ngx_http_random_index_module to
// the server: "random_index on;" makes the static module answer a
// request for a directory with one of its files chosen at random
// (static.Options.RandomIndex), before the index files are tried.
package randomindexmod

import "github.com/mosaic-edge/mosaic/server"

type locConf struct{ on server.Setting[bool] }

var module = &server.Module{
	Name: "random_index",
	Directives: []server.Directive{
		{Name: "random_index", Context: server.CtxLocation, MinArgs: 1, MaxArgs: 1,
			Set: server.SetFlag(func(l *locConf) *server.Setting[bool] { return &l.on })},
	},
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		c.(*locConf).on.Merge(p.(*locConf).on)
		return nil
	},
}

func init() { server.Register(module) }

// Enabled reports whether random_index is on for l.
func Enabled(l *server.Location) bool {
	return server.LocConf[*locConf](l, module).on.V
}
