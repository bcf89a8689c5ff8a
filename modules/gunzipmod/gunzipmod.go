// Package gunzipmod makes package gunzip the "gunzip" output filter of
// the mosaic server, at the place of NGINX's gunzip filter: inside
// sub_filter, SSI, charset and addition, so that they read the decoded
// text, and inside compression (server/order.go). The gunzip directive
// is compressmod's, beside the gzip directives (gzip_http_version,
// gzip_proxied, gzip_disable, gzip_vary) that decide with it which
// client gets a gzip body decoded.
package gunzipmod

import (
	"net/http"

	"github.com/mosaic-edge/mosaic/compress"
	"github.com/mosaic-edge/mosaic/gunzip"
	"github.com/mosaic-edge/mosaic/modules/compressmod"
	"github.com/mosaic-edge/mosaic/server"
)

var module = &server.Module{
	Name: "gunzip",
	Filter: &server.Filter{
		// NGINX decodes a subrequest's gzip body whatever the client
		// takes: an SSI include goes into a page as text.
		InSubrequest: true,
		Wrap: func(l *server.Location, next http.Handler) (http.Handler, error) {
			opts := compressmod.LocationOptions(l)
			test, err := compress.GunzipTest(opts)
			if err != nil || test == nil {
				return next, err
			}
			return gunzip.New(next, gunzip.Options{
				Decode: func(w http.ResponseWriter, r *http.Request, h http.Header) bool {
					return server.SubrequestDepth(r) > 0 || test(w, r, h)
				},
				Vary:   opts.Vary,
				Logger: l.Logger(),
			})
		},
	},
}

func init() { server.Register(module) }
