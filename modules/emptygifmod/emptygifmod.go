// Package emptygifmod wires package emptygif to the server as NGINX's
// ngx_http_empty_gif_module: "empty_gif;" in a location makes the
// transparent 1x1 GIF its content.
package emptygifmod

import (
	"net/http"

	"github.com/mosaic-edge/mosaic/emptygif"
	"github.com/mosaic-edge/mosaic/modules/staticmod"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/static"
)

// locConf holds the location's own "empty_gif" line: like NGINX's
// content handler, it is not inherited by nested locations, only by the
// "if" blocks inside the location.
type locConf struct{ on bool }

var module = &server.Module{
	Name: "empty_gif",
	Directives: []server.Directive{
		{Name: "empty_gif", Context: server.CtxLocation, Set: func(c *server.Cmd) error {
			c.Loc().(*locConf).on = true
			return nil
		}},
	},
	NewLoc: func() any { return &locConf{} },
}

func init() {
	module.Content = content
	server.Register(module)
}

func content(l *server.Location) (http.Handler, error) {
	if !server.LocConf[*locConf](l.Own(), module).on {
		return nil, nil
	}
	ims := staticmod.IfModifiedSince(l)
	return emptygif.Handler{
		Preconditions: func(r *http.Request, mtime int64) int {
			return static.Preconditions(r, nil, mtime, ims, false)
		},
		Error: server.Error,
	}, nil
}
