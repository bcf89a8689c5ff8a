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

func init() { server.RegisterSwitch("empty_gif", content) }

func content(l *server.Location) (http.Handler, error) {
	ims := staticmod.IfModifiedSince(l)
	return emptygif.Handler{
		Preconditions: func(r *http.Request, mtime int64) int {
			return static.Preconditions(r, nil, mtime, ims, false)
		},
		Error: server.Error,
	}, nil
}
