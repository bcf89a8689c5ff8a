// Package scgimod wires the SCGI protocol (package scgi) to the server as
// NGINX's ngx_http_scgi_module: scgi_pass to a server, an upstream group
// or a Unix-domain socket, scgi_param, scgi_pass_request_body, and the
// directives every gateway shares (modules/gatewaymod). The location's
// content is a proxy.Handler speaking SCGI (proxy.Options.Wire). It also
// ships Debian's scgi_params for "include scgi_params;".
package scgimod

import (
	_ "embed"

	"github.com/mosaic-edge/mosaic/modules/gatewaymod"
	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/scgi"
	"github.com/mosaic-edge/mosaic/server"
)

// locConf holds the SCGI directives of one level.
type locConf struct {
	gw       gatewaymod.Conf
	passBody server.Setting[bool]
}

var module = &server.Module{
	Name:   "scgi",
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		child.gw.Merge(&parent.gw)
		child.passBody.Merge(parent.passBody)
		return child.gw.CheckBuffers("scgi")
	},
}

//go:embed nginx/scgi_params
var params string

func init() {
	module.Directives = append(gatewaymod.Directives("scgi", func(l *locConf) *gatewaymod.Conf { return &l.gw }),
		server.Directive{Name: "scgi_pass_request_body", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutFlag(c, &c.Loc().(*locConf).passBody)
		}},
	)
	module.Content = gateway.Content
	server.Register(module)
	server.RegisterInclude("scgi_params", params)
}

// gateway builds a location's handler: a proxy speaking SCGI. NGINX's
// SCGI module hides the Status header, as FastCGI's does: gatewaymod's
// default.
var gateway = gatewaymod.Gateway{
	Conf: func(l *server.Location) *gatewaymod.Conf { return &server.LocConf[*locConf](l, module).gw },
	Wire: func(l *server.Location, g *gatewaymod.Conf) proxy.Wire {
		w := &scgi.Wire{Vars: g.Params().Append}
		w.MaxHeaderSize, w.DropBody = g.BufferSize(), !server.LocConf[*locConf](l, module).passBody.Or(true)
		return w
	},
}

// NewHandler builds the SCGI gateway of location l, and false when l has
// no scgi_pass. adjust, when set, changes the proxy options last (the
// cache reports failures through them).
func NewHandler(l *server.Location, adjust func(*proxy.Options)) (*proxy.Handler, bool, error) {
	return gateway.NewHandler(l, adjust)
}

// IgnoredHeaders is scgi_ignore_headers of location l, which the cache
// in front of its gateway (scgi_cache) also obeys.
func IgnoredHeaders(l *server.Location) []string {
	return gateway.Conf(l).IgnoredHeaders()
}
