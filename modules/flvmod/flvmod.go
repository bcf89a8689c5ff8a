// Package flvmod wires NGINX's ngx_http_flv_module to the server: "flv;"
// in a location makes its files answer "?start=N" with the FLV header and
// the file from byte N (static.FLV), the rest as the static module does.
package flvmod

import (
	"net/http"

	"github.com/mosaic-edge/mosaic/modules/staticmod"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/static"
)

// locConf holds the location's own "flv" line: like NGINX's content
// handler, it is not inherited by nested locations, only by the "if"
// blocks inside the location.
type locConf struct{ on bool }

var module = &server.Module{
	Name: "flv",
	Directives: []server.Directive{
		{Name: "flv", Context: server.CtxLocation, Set: func(c *server.Cmd) error {
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
	files, err := staticmod.CutContent(l, static.FLV)
	if err != nil {
		return nil, err
	}
	return staticmod.GetOrHead(files), nil
}
