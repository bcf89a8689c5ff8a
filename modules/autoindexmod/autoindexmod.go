// Package autoindexmod wires the autoindex library to the server: the
// autoindex, autoindex_exact_size, autoindex_format and
// autoindex_localtime directives, merged http -> server -> location. The
// static module asks Listing for the listing of a location's directories
// that have no index file, as NGINX's autoindex handler runs after the
// index module declines.
package autoindexmod

import (
	"io/fs"
	"net/http"
	"strings"

	"github.com/mosaic-edge/mosaic/autoindex"
	"github.com/mosaic-edge/mosaic/server"
)

type locConf struct {
	on        server.Setting[bool]
	exact     server.Setting[bool]
	format    server.Setting[autoindex.Format]
	localtime server.Setting[bool]
}

var module = &server.Module{
	Name:   "autoindex",
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		child.on.Merge(parent.on)
		child.exact.Merge(parent.exact)
		child.format.Merge(parent.format)
		child.localtime.Merge(parent.localtime)
		return nil
	},
}

func init() {
	flag := server.SetFlag[*locConf]
	module.Directives = []server.Directive{
		{Name: "autoindex", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *locConf) *server.Setting[bool] { return &l.on })},
		{Name: "autoindex_exact_size", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *locConf) *server.Setting[bool] { return &l.exact })},
		{Name: "autoindex_localtime", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *locConf) *server.Setting[bool] { return &l.localtime })},
		{Name: "autoindex_format", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			lc := c.Loc().(*locConf)
			if lc.format.Set {
				return c.Duplicate()
			}
			f, ok := autoindex.ParseFormat(c.Args[0])
			if !ok {
				return c.Errorf("invalid value %q", c.Args[0])
			}
			lc.format.Put(f)
			return nil
		}},
	}
	server.Register(module)
}

// Listing returns the directory listing of location l for the static
// module's Options.Listing, or nil when autoindex is off there.
func Listing(l *server.Location) func(http.ResponseWriter, *http.Request, fs.FS, string) {
	lc := server.LocConf[*locConf](l, module)
	if !lc.on.Or(false) {
		return nil
	}
	opts := autoindex.Options{
		Format:          lc.format.Or(autoindex.HTML),
		ApproximateSize: !lc.exact.Or(true),
		LocalTime:       lc.localtime.Or(false),
		UTF8:            strings.EqualFold(l.Charset("text/html"), "utf-8"),
		Error:           server.Error,
	}
	return func(w http.ResponseWriter, r *http.Request, dir fs.FS, uri string) {
		autoindex.Serve(w, r, dir, uri, opts)
	}
}
