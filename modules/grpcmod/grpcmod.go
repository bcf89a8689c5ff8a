// Package grpcmod wires the gRPC proxy (package grpcproxy) to the server
// as NGINX's ngx_http_grpc_module: grpc_pass to a server, an upstream
// group or a Unix-domain socket, over HTTP/2 in the clear ("grpc://",
// or no scheme) or over TLS ("grpcs://", configured by the grpc_ssl_*
// directives, which are the proxy's proxy_ssl_* under another prefix:
// proxymod.TLSDirectives), grpc_set_header, and the directives every
// gateway shares (modules/gatewaymod) that NGINX's grpc module has.
package grpcmod

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mosaic-edge/mosaic/grpcproxy"
	"github.com/mosaic-edge/mosaic/modules/gatewaymod"
	"github.com/mosaic-edge/mosaic/modules/proxymod"
	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/server"
)

// locConf holds the grpc directives of one level.
type locConf struct {
	gw         gatewaymod.Conf
	headers    []grpcproxy.Header // grpc_set_header
	ownHeaders bool
	ssl        proxymod.TLSConf // grpc_ssl_*, for grpcs
}

var module = &server.Module{
	Name:   "grpc",
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		child.gw.Merge(&parent.gw)
		if !child.ownHeaders {
			child.headers = parent.headers
		}
		child.ssl.Merge(&parent.ssl)
		return nil
	},
}

// grpcDirectives are the shared gateway directives that NGINX's grpc
// module has; the others (grpc_param, grpc_buffering, grpc_store, ...)
// are FastCGI's, uwsgi's or the proxy's only.
var grpcDirectives = []string{"pass", "connect_timeout", "read_timeout", "send_timeout", "intercept_errors",
	"buffer_size", "hide_header", "pass_header", "ignore_headers", "next_upstream", "next_upstream_tries",
	"next_upstream_timeout", "bind", "socket_keepalive"}

func init() {
	module.Directives = slices.DeleteFunc(gatewaymod.Directives("grpc", func(l *locConf) *gatewaymod.Conf { return &l.gw }),
		func(d server.Directive) bool { return !slices.Contains(grpcDirectives, d.Name[len("grpc_"):]) })
	for i, d := range module.Directives {
		if d.Name == "grpc_pass" {
			module.Directives[i].Set = schemePrefix(d.Set)
		}
	}
	module.Directives = append(module.Directives,
		server.Directive{Name: "grpc_set_header", Context: server.CtxHTTPAll, MinArgs: 2, MaxArgs: 2, Set: setHeader})
	module.Directives = append(module.Directives,
		proxymod.TLSDirectives("grpc", func(l *locConf) *proxymod.TLSConf { return &l.ssl })...)
	module.Content = content
	server.Register(module)
}

// schemePrefix reads grpc_pass's scheme as NGINX does: "grpc://" or none
// speaks HTTP/2 in the clear, "grpcs://" over TLS.
func schemePrefix(set func(*server.Cmd) error) func(*server.Cmd) error {
	return func(c *server.Cmd) error {
		target, secure := c.Args[0], false
		switch {
		case len(target) > 7 && strings.EqualFold(target[:7], "grpc://"):
			c.Args[0] = target[7:]
		case len(target) > 8 && strings.EqualFold(target[:8], "grpcs://"):
			c.Args[0], secure = target[8:], true
		}
		// NGINX reads what is left as a host and port: another scheme
		// or a URI makes an invalid host.
		if rest := c.Args[0]; strings.Contains(rest, "://") ||
			!strings.HasPrefix(strings.ToLower(rest), "unix:") && strings.ContainsAny(rest, "/?") {
			return c.Errorf("invalid host in upstream %q", rest)
		}
		if err := set(c); err != nil {
			return err
		}
		c.Loc().(*locConf).gw.PassTLS = secure
		return nil
	}
}

func setHeader(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if !lc.ownHeaders {
		lc.headers, lc.ownHeaders = nil, true
	}
	t := c.MergeTemplate(c.Args[1])
	if t == nil {
		return nil
	}
	value := t.Eval
	if t.Static() {
		v := t.Literal()
		value = func(*http.Request) string { return v }
	}
	lc.headers = append(lc.headers, grpcproxy.Header{Name: c.Args[0], Value: value})
	return nil
}

// passConf returns the settings of the level whose grpc_pass serves l:
// its own, or for an "if" block without one, its location's.
func passConf(l *server.Location) *locConf {
	for server.LocConf[*locConf](l, module).gw.Pass == nil && l.IsImplicit() {
		l = l.Parent()
	}
	return server.LocConf[*locConf](l, module)
}

// content is the location's gRPC proxy, nothing for a location without
// grpc_pass.
func content(l *server.Location) (http.Handler, error) {
	pc := passConf(l)
	if pc.gw.Pass == nil {
		return nil, nil
	}
	lc := server.LocConf[*locConf](l, module)
	g := lc.gw
	g.Pass, g.PassPos, g.PassTLS = pc.gw.Pass, pc.gw.PassPos, pc.gw.PassTLS
	// The shared settings come as the proxy's options: one reading of
	// the directives for every gateway.
	po, err := gatewaymod.Options(l, &g, nil)
	if err != nil {
		return nil, err
	}
	if po.BindTransparent {
		return nil, fmt.Errorf("grpc_pass in %s: grpc_bind transparent is not supported", g.PassPos)
	}
	up := po.Upstream
	if up == nil {
		if up, err = proxy.NewUpstream(g.Pass.Addr(), []proxy.Server{{Addr: g.Pass.Addr(), MaxFails: 1}}, 0); err != nil {
			return nil, fmt.Errorf("grpc_pass in %s: %w", g.PassPos, err)
		}
	}
	o := grpcproxy.Options{
		Name:                up.Name,
		Select:              func(r *http.Request) grpcproxy.Selection { return up.Select(r, po.NextUpstreamTries) },
		MaxHeaderSize:       g.BufferSize(),
		Authority:           authority(g.Pass),
		SetHeaders:          lc.headers,
		HideHeaders:         po.HideHeaders,
		PassHeaders:         po.PassHeaders,
		ConnectTimeout:      po.ConnectTimeout,
		ReadTimeout:         po.ReadTimeout,
		SendTimeout:         po.SendTimeout,
		NextUpstream:        nextUpstream(po.NextUpstream),
		NextUpstreamTimeout: po.NextUpstreamTimeout,
		Intercept:           po.Intercept,
		ErrorResponse:       server.Error,
		Bind:                po.Bind,
		SocketKeepalive:     po.SocketKeepalive,
		Logger:              po.Logger,
	}
	if g.PassTLS {
		to, err := proxymod.TLSOptions(l, &lc.ssl, "grpc")
		if err != nil {
			return nil, err
		}
		if o.TLS, err = to.ClientConfig(g.Pass.Host); err != nil {
			return nil, fmt.Errorf("grpc_pass in %s: %w", g.PassPos, err)
		}
	}
	h, err := grpcproxy.New(o)
	if err != nil {
		return nil, fmt.Errorf("grpc_pass in %s: %w", g.PassPos, err)
	}
	return h, nil
}

// authority is the request's :authority without a grpc_set_header Host:
// the target's host and port as grpc_pass names them (the group's name
// for an upstream group, "localhost" for a Unix-domain socket).
func authority(p *proxy.Pass) string {
	if p.Unix != "" {
		return "localhost"
	}
	if p.Port == "" {
		return p.Host
	}
	return p.Host + ":" + p.Port
}

// nextUpstream keeps of grpc_next_upstream what may apply to a gRPC
// call: the failures to reach a server.
func nextUpstream(n proxy.NextUpstream) grpcproxy.NextUpstream {
	if n == 0 {
		return 0 // NGINX's default, error and timeout
	}
	var g grpcproxy.NextUpstream
	if n&proxy.NextError != 0 {
		g |= grpcproxy.NextError
	}
	if n&proxy.NextTimeout != 0 {
		g |= grpcproxy.NextTimeout
	}
	if n&proxy.NextOff != 0 || g == 0 {
		g = grpcproxy.NextOff
	}
	return g
}
