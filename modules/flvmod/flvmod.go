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

func init() { server.RegisterSwitch("flv", content) }

func content(l *server.Location) (http.Handler, error) {
	files, err := staticmod.CutContent(l, static.FLV)
	if err != nil {
		return nil, err
	}
	return staticmod.GetOrHead(files), nil
}
