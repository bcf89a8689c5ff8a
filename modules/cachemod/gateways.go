package cachemod

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/mosaic-edge/mosaic/cache"
	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/modules/fastcgimod"
	"github.com/mosaic-edge/mosaic/modules/scgimod"
	"github.com/mosaic-edge/mosaic/modules/uwsgimod"
	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/server"
)

// gatewayCache is the cache of an application gateway (fastcgi_cache,
// uwsgi_cache, scgi_cache): NGINX gives each gateway module its own set of
// cache directives, named after it, with the same meanings as
// proxy_cache's, in front of the same zones (declared by its
// *_cache_path). Each set is a module of its own, so that its settings are
// inherited apart from the proxy's, sharing this module's zones and
// content.
type gatewayCache struct {
	prefix string
	module *server.Module
	// handler builds the gateway of a location with the options adjusted
	// for the cache, and false when the location does not pass to it.
	handler func(l *server.Location, adjust func(*proxy.Options)) (http.Handler, bool, error)
	// ignored is the location's *_ignore_headers, which the gateway's
	// module reads (it also concerns the relay).
	ignored func(l *server.Location) []string
}

var gateways = []*gatewayCache{
	newGatewayCache("fastcgi", gatewayHandler(fastcgimod.NewHandler), fastcgimod.IgnoredHeaders),
	newGatewayCache("uwsgi", gatewayHandler(uwsgimod.NewHandler), uwsgimod.IgnoredHeaders),
	newGatewayCache("scgi", gatewayHandler(scgimod.NewHandler), scgimod.IgnoredHeaders),
}

// gatewayHandler adapts a gateway module's NewHandler to the table: no
// handler is a nil http.Handler, not a nil *proxy.Handler inside one.
func gatewayHandler(newHandler func(*server.Location, func(*proxy.Options)) (*proxy.Handler, bool, error)) func(*server.Location, func(*proxy.Options)) (http.Handler, bool, error) {
	return func(l *server.Location, adjust func(*proxy.Options)) (http.Handler, bool, error) {
		h, ok, err := newHandler(l, adjust)
		if !ok || err != nil {
			return nil, ok, err
		}
		return h, true, nil
	}
}

// proxyOnly are proxy_cache directives that a gateway has no twin of:
// those of mosaic's endpoints, NGINX's proxy-only convert_head, and
// *_ignore_headers, which the gateway's module registers.
var proxyOnly = map[string]bool{"cache_purge": true, "cache_status": true, "cache_convert_head": true, "ignore_headers": true}

// newGatewayCache registers the cache directives of a gateway under its
// prefix: the proxy_cache ones renamed, with the same parsing.
func newGatewayCache(prefix string, handler func(*server.Location, func(*proxy.Options)) (http.Handler, bool, error),
	ignored func(*server.Location) []string) *gatewayCache {
	g := &gatewayCache{prefix: prefix, handler: handler, ignored: ignored}
	g.module = &server.Module{Name: prefix + "_cache", NewLoc: func() any { return &locConf{} }, MergeLoc: mergeLoc}
	return g
}

func init() {
	for _, g := range gateways {
		for _, d := range module.Directives {
			rest, ok := strings.CutPrefix(d.Name, "proxy_")
			if !ok || proxyOnly[rest] {
				continue
			}
			d.Name = g.prefix + "_" + rest
			g.module.Directives = append(g.module.Directives, d)
		}
		server.Register(g.module)
	}
}

// gatewayContent is the content of a location that caches what a gateway
// answers: the gateway's handler behind a Cache, as cachedProxy builds the
// proxy's. nil when no gateway cache applies.
func gatewayContent(l *server.Location) (http.Handler, error) {
	for _, g := range gateways {
		lc := server.LocConf[*locConf](l, g.module)
		if lc.zone.V == "" {
			continue
		}
		z, ok := zoneFor(l, lc.zone.V)
		if !ok {
			return nil, conf.Errorf(lc.zoneAt, "\"%s_cache\" zone %q is unknown", g.prefix, lc.zone.V)
		}
		h, passes, err := g.handler(l, forCache)
		if err != nil || !passes {
			return nil, err
		}
		if lc.key.V == nil {
			// NGINX has no default key for a gateway's cache.
			return nil, fmt.Errorf("no \"%s_cache_key\" for \"%s_cache\" in %s", g.prefix, g.prefix, lc.zoneAt.Pos())
		}
		opts := lc.options(z, proxy.Pass{}, nil, l) // the key is set, nil is never called
		opts.IgnoreHeaders = g.ignored(l)
		c, err := cache.New(h, opts)
		if err != nil {
			return nil, fmt.Errorf("%s_cache in %s: %w", g.prefix, lc.zoneAt.Pos(), err)
		}
		return c, nil
	}
	return nil, nil
}
