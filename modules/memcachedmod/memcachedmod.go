// Package memcachedmod wires package memcached to the server as NGINX's
// ngx_http_memcached_module: memcached_pass to a server, a Unix-domain
// socket or an upstream group (with its balancer and keepalive pool), the
// key from $memcached_key, and the directives the module shares with the
// gateways (modules/gatewaymod) under its prefix: memcached_bind,
// memcached_socket_keepalive, the timeouts, memcached_buffer_size and
// memcached_next_upstream*. The location's content is a proxy.Handler
// speaking memcached (proxy.Options.Wire), with the settings NGINX's
// module fixes: no buffering, errors intercepted (a miss is a 404 that
// error_page may answer), ranges served from every hit.
package memcachedmod

import (
	"net/http"
	"slices"

	"github.com/mosaic-edge/mosaic/memcached"
	"github.com/mosaic-edge/mosaic/modules/gatewaymod"
	"github.com/mosaic-edge/mosaic/modules/proxymod"
	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/vars"
)

// locConf holds the memcached directives of one level.
type locConf struct {
	gw       gatewaymod.Conf
	key      *vars.Template // $memcached_key, for a level with memcached_pass
	gzipFlag server.Setting[int]
}

var module = &server.Module{
	Name:   "memcached",
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		child.gw.Merge(&parent.gw)
		child.gzipFlag.Merge(parent.gzipFlag)
		return nil
	},
}

// shared are the gateway directives that NGINX's memcached module has;
// the others (params, headers, buffering, store ...) concern HTTP
// requests and responses, which a get has none of.
var shared = []string{
	"memcached_pass", "memcached_bind", "memcached_socket_keepalive",
	"memcached_connect_timeout", "memcached_send_timeout", "memcached_read_timeout",
	"memcached_buffer_size", "memcached_next_upstream",
	"memcached_next_upstream_tries", "memcached_next_upstream_timeout",
}

// nextConditions are memcached_next_upstream's parameters, which name
// the proxy's invalid_header and http_404 otherwise.
var nextConditions = map[string]proxy.NextUpstream{
	"error":            proxy.NextError,
	"timeout":          proxy.NextTimeout,
	"invalid_response": proxy.NextInvalidHeader,
	"not_found":        proxy.NextHTTP404,
	"off":              proxy.NextOff,
}

func init() {
	conf := func(l *locConf) *gatewaymod.Conf { return &l.gw }
	ds := slices.DeleteFunc(gatewaymod.Directives("memcached", conf), func(d server.Directive) bool {
		return !slices.Contains(shared, d.Name)
	})
	for i, d := range ds {
		switch d.Name {
		case "memcached_pass":
			ds[i].Set = withKey(d.Set)
		case "memcached_next_upstream":
			ds[i].Set = func(c *server.Cmd) error {
				return proxymod.AddNextConditions(c, nextCond(c), nextConditions)
			}
		}
	}
	module.Directives = append(ds, server.Directive{Name: "memcached_gzip_flag", Context: server.CtxHTTPAll,
		MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutNum(c, &c.Loc().(*locConf).gzipFlag)
		}})
	module.Content = content
	server.Register(module)
}

// nextCond returns the level's memcached_next_upstream setting.
func nextCond(c *server.Cmd) *server.Setting[proxy.NextUpstream] {
	return c.Loc().(*locConf).gw.NextUpstreamSetting()
}

// withKey reads memcached_pass and binds $memcached_key, which a "set"
// anywhere in the configuration must define (NGINX's "unknown
// "memcached_key" variable" otherwise).
func withKey(set func(*server.Cmd) error) func(*server.Cmd) error {
	return func(c *server.Cmd) error {
		if err := set(c); err != nil {
			return err
		}
		t, err := c.Template("$memcached_key")
		if err != nil {
			return err
		}
		c.Loc().(*locConf).key = t
		return nil
	}
}

var gateway = gatewaymod.Gateway{
	Conf: func(l *server.Location) *gatewaymod.Conf { return &server.LocConf[*locConf](l, module).gw },
	Wire: func(l *server.Location, g *gatewaymod.Conf) proxy.Wire {
		lc := server.LocConf[*locConf](l, module)
		key := passLevel(l).key
		return &memcached.Wire{
			Key:         key.Eval,
			GzipFlag:    uint64(lc.gzipFlag.V),
			ContentType: func(r *http.Request) string { return l.ContentType(r.URL.Path) },
			MaxLineSize: g.BufferSize(),
			Logger:      l.Logger(),
		}
	},
	Adjust: func(l *server.Location, o *proxy.Options) {
		// What NGINX's module fixes: the value is relayed as it comes,
		// a miss (404) is the server's error page or error_page, and a
		// Range is cut from any hit.
		o.BufferingOff = true
		// Nor is there an X-Accel-Limit-Rate to read: a get's answer
		// has no header, and NGINX's module reads none. Marked
		// ignored, the gateway does not make every location of the
		// configuration look for a rate at run time
		// (throttlemod.MayLimit); unbuffered, the answer itself is
		// never paced, as in NGINX.
		o.IgnoreAccelLimitRate = true
		o.ForceRanges = true
		o.Intercept = func(_ *http.Request, status int) bool {
			return status == http.StatusNotFound || status >= 300 && l.HasErrorPage(status)
		}
	},
}

// passLevel returns the settings of the level whose memcached_pass
// serves l: its own, or for an "if" block without one, its location's.
func passLevel(l *server.Location) *locConf {
	for server.LocConf[*locConf](l, module).key == nil && l.IsImplicit() {
		l = l.Parent()
	}
	return server.LocConf[*locConf](l, module)
}

// content is the module's content: GET and HEAD only (405 otherwise, as
// NGINX's handler answers before anything else), the request body left
// unread (the server discards it), then the get.
func content(l *server.Location) (http.Handler, error) {
	unranged, err := proxymod.Unranged(l)
	if err != nil {
		return nil, err
	}
	h, ok, err := gateway.NewHandler(l, func(o *proxy.Options) { o.Unranged = unranged })
	if err != nil || !ok {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			server.Error(w, r, http.StatusMethodNotAllowed)
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			r = r.WithContext(r.Context())
			r.Body, r.ContentLength = http.NoBody, 0
		}
		h.ServeHTTP(w, r)
	}), nil
}
