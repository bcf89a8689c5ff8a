// Package uwsgimod wires the uwsgi protocol (package uwsgi) to the server
// as NGINX's ngx_http_uwsgi_module: uwsgi_pass to a server, an upstream
// group or a Unix-domain socket, in the clear or over TLS
// ("suwsgi://", configured by the uwsgi_ssl_* directives, which are the
// proxy's proxy_ssl_* under another prefix: proxymod.TLSDirectives),
// uwsgi_param, uwsgi_modifier1 and uwsgi_modifier2, uwsgi_string, and
// the directives every gateway shares (modules/gatewaymod). The location's content is a proxy.Handler
// speaking uwsgi (proxy.Options.Wire). It also ships Debian's
// uwsgi_params for "include uwsgi_params;".
package uwsgimod

import (
	_ "embed"
	"strings"

	"github.com/mosaic-edge/mosaic/modules/gatewaymod"
	"github.com/mosaic-edge/mosaic/modules/proxymod"
	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/uwsgi"
)

// locConf holds the uwsgi directives of one level.
type locConf struct {
	gw                   gatewaymod.Conf
	modifier1, modifier2 server.Setting[int]
	str                  server.Setting[string]
	passBody             server.Setting[bool]
	ssl                  proxymod.TLSConf // uwsgi_ssl_*, for suwsgi
}

var module = &server.Module{
	Name:   "uwsgi",
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		child.gw.Merge(&parent.gw)
		child.modifier1.Merge(parent.modifier1)
		child.modifier2.Merge(parent.modifier2)
		child.str.Merge(parent.str)
		child.passBody.Merge(parent.passBody)
		child.ssl.Merge(&parent.ssl)
		return child.gw.CheckBuffers("uwsgi")
	},
}

//go:embed nginx/uwsgi_params
var params string

func init() {
	modifier := func(get func(*locConf) *server.Setting[int]) func(*server.Cmd) error {
		return func(c *server.Cmd) error {
			n, err := c.Int(c.Args[0], 0, 255)
			if err != nil {
				return err
			}
			return server.Put(c, get(c.Loc().(*locConf)), n)
		}
	}
	module.Directives = append(gatewaymod.Directives("uwsgi", func(l *locConf) *gatewaymod.Conf { return &l.gw }),
		server.Directive{Name: "uwsgi_modifier1", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: modifier(func(l *locConf) *server.Setting[int] { return &l.modifier1 })},
		server.Directive{Name: "uwsgi_modifier2", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: modifier(func(l *locConf) *server.Setting[int] { return &l.modifier2 })},
		server.Directive{Name: "uwsgi_string", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.Put(c, &c.Loc().(*locConf).str, c.Args[0])
		}},
		server.Directive{Name: "uwsgi_pass_request_body", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutFlag(c, &c.Loc().(*locConf).passBody)
		}},
	)
	module.Directives = append(module.Directives,
		proxymod.TLSDirectives("uwsgi", func(l *locConf) *proxymod.TLSConf { return &l.ssl })...)
	for i, d := range module.Directives {
		if d.Name == "uwsgi_pass" {
			module.Directives[i].Set = schemePrefix(d.Set)
		}
	}
	module.Content = gateway.Content
	server.Register(module)
	server.RegisterInclude("uwsgi_params", params)
}

// schemePrefix lets uwsgi_pass name its protocol, as NGINX's does:
// "uwsgi://127.0.0.1:3031" is "127.0.0.1:3031", and "suwsgi://" the same
// spoken over TLS (the uwsgi_ssl_* directives configure it).
func schemePrefix(set func(*server.Cmd) error) func(*server.Cmd) error {
	return func(c *server.Cmd) error {
		target, secure := c.Args[0], false
		switch {
		case len(target) > 8 && strings.EqualFold(target[:8], "uwsgi://"):
			c.Args[0] = target[8:]
		case len(target) > 9 && strings.EqualFold(target[:9], "suwsgi://"):
			c.Args[0], secure = target[9:], true
		}
		if err := set(c); err != nil {
			return err
		}
		c.Loc().(*locConf).gw.PassTLS = secure
		return nil
	}
}

// gateway builds a location's handler: a proxy speaking uwsgi.
var gateway = gatewaymod.Gateway{
	Conf: func(l *server.Location) *gatewaymod.Conf { return &server.LocConf[*locConf](l, module).gw },
	Wire: func(l *server.Location, g *gatewaymod.Conf) proxy.Wire {
		lc := server.LocConf[*locConf](l, module)
		w := &uwsgi.Wire{
			Modifier1: byte(lc.modifier1.V),
			Modifier2: byte(lc.modifier2.V),
			Vars:      g.Params().Append,
			Extra:     []byte(lc.str.V),
		}
		w.MaxHeaderSize, w.DropBody = g.BufferSize(), !lc.passBody.Or(true)
		return w
	},
	// NGINX's uwsgi module passes a Status header on; FastCGI's hides it.
	Adjust: func(_ *server.Location, o *proxy.Options) { o.DefaultHide = uwsgi.HiddenHeaders },
	TLS: func(l *server.Location) (proxy.TLSOptions, error) {
		return proxymod.TLSOptions(l, &server.LocConf[*locConf](l, module).ssl, "uwsgi")
	},
}

// NewHandler builds the uwsgi gateway of location l, and false when l has
// no uwsgi_pass. adjust, when set, changes the proxy options last (the
// cache reports failures through them).
func NewHandler(l *server.Location, adjust func(*proxy.Options)) (*proxy.Handler, bool, error) {
	return gateway.NewHandler(l, adjust)
}

// IgnoredHeaders is uwsgi_ignore_headers of location l, which the cache
// in front of its gateway (uwsgi_cache) also obeys.
func IgnoredHeaders(l *server.Location) []string {
	return gateway.Conf(l).IgnoredHeaders()
}
