package proxymod

import (
	"fmt"
	"net/http"
	"os"

	"github.com/mosaic-edge/mosaic/compress"
	"github.com/mosaic-edge/mosaic/modules/charsetmod"
	"github.com/mosaic-edge/mosaic/modules/compressmod"
	"github.com/mosaic-edge/mosaic/modules/imagefiltermod"
	"github.com/mosaic-edge/mosaic/modules/ssimod"
	"github.com/mosaic-edge/mosaic/modules/staticmod"
	"github.com/mosaic-edge/mosaic/modules/submod"
	"github.com/mosaic-edge/mosaic/proxy"
	core "github.com/mosaic-edge/mosaic/server"
)

// SharedConf holds one level's settings of the directives that the proxy
// and the gateways (modules/gatewaymod) have alike under their prefix:
// PREFIX_bind, PREFIX_socket_keepalive, PREFIX_limit_rate,
// PREFIX_force_ranges, PREFIX_store and PREFIX_store_access. Each module
// embeds one in its location settings, lists SharedDirectives among its
// directives, merges it and applies it to its proxy.Options.
type SharedConf struct {
	bind        core.Setting[bindConf]
	keepalive   core.Setting[bool]
	limitRate   core.Setting[int64]
	forceRanges core.Setting[bool]
	store       core.Setting[storeConf]
	storeAccess core.Setting[os.FileMode]
	tempPath    core.Setting[core.TempPath] // *_temp_path
}

// bindConf is a *_bind line: the local address (nil for "off"), which may
// hold variables, and "transparent".
type bindConf struct {
	addr        func(*http.Request) string
	transparent bool
}

// Merge fills what s's level does not set from its parent's.
func (s *SharedConf) Merge(parent *SharedConf) {
	s.bind.Merge(parent.bind)
	s.keepalive.Merge(parent.keepalive)
	s.limitRate.Merge(parent.limitRate)
	s.forceRanges.Merge(parent.forceRanges)
	s.store.Merge(parent.store)
	s.storeAccess.Merge(parent.storeAccess)
	s.tempPath.Merge(parent.tempPath)
}

// Apply sets what the level's directives, in location l, ask of the
// proxy.
func (s *SharedConf) Apply(l *core.Location, o *proxy.Options) error {
	o.Bind, o.BindTransparent = s.bind.V.addr, s.bind.V.transparent
	o.SocketKeepalive = s.keepalive.V
	o.LimitRate = s.limitRate.V
	o.ForceRanges = s.forceRanges.V
	// Where the body read ahead of the client (Buffers.Apply) goes once
	// the buffers are full.
	o.AheadTempFile = s.tempPath.V.Or("mosaic-response-").Create
	if o.ForceRanges {
		u, err := Unranged(l)
		if err != nil {
			return err
		}
		o.Unranged = u
	}
	return nil
}

// Unranged returns, for proxy.Options.Unranged, the test of the responses
// that l's filters rebuild, which NGINX's range filter, running after
// them, finds without a length and sends whole: a gzip body that gunzip
// decodes for its client, a type that sub_filter or SSI processes. nil
// when l has none of those filters.
func Unranged(l *core.Location) (func(http.ResponseWriter, *http.Request, http.Header) bool, error) {
	gunzips, err := compress.GunzipTest(compressmod.LocationOptions(l))
	if err != nil {
		return nil, fmt.Errorf("forced ranges: %w", err)
	}
	processed := staticmod.AnyType(ssimod.Transformed(l), submod.Unranged(l), charsetmod.Unranged(l), imagefiltermod.Unranged(l))
	if gunzips == nil && processed == nil {
		return nil, nil
	}
	return func(w http.ResponseWriter, r *http.Request, h http.Header) bool {
		return gunzips != nil && gunzips(w, r, h) || processed != nil && processed(h.Get("Content-Type"))
	}, nil
}

// SharedDirectives returns the shared directives under prefix ("proxy",
// "fastcgi"), for a module whose location settings are T, with get
// returning their SharedConf.
func SharedDirectives[T any](prefix string, get func(T) *SharedConf) []core.Directive {
	conf := func(c *core.Cmd) *SharedConf { return get(c.Loc().(T)) }
	return []core.Directive{
		{Name: prefix + "_bind", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 2,
			Set: func(c *core.Cmd) error { return setBind(c, conf(c)) }},
		{Name: prefix + "_socket_keepalive", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: func(c *core.Cmd) error { return core.PutFlag(c, &conf(c).keepalive) }},
		{Name: prefix + "_limit_rate", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *core.Cmd) error {
			n, err := c.Size(c.Args[0])
			if err != nil {
				return err
			}
			return core.Put(c, &conf(c).limitRate, n)
		}},
		{Name: prefix + "_temp_path", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 4, Set: func(c *core.Cmd) error {
			p, err := core.ParseTempPath(c)
			if err != nil {
				return err
			}
			return core.Put(c, &conf(c).tempPath, p)
		}},
		{Name: prefix + "_force_ranges", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: func(c *core.Cmd) error { return core.PutFlag(c, &conf(c).forceRanges) }},
		{Name: prefix + "_store", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *core.Cmd) error {
			sc := storeConf{on: c.Args[0] != "off"}
			if sc.on && c.Args[0] != "on" {
				t, err := c.Template(c.Args[0])
				if err != nil {
					return err
				}
				sc.path = t
			}
			return core.Put(c, &conf(c).store, sc)
		}},
		{Name: prefix + "_store_access", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 3, Set: func(c *core.Cmd) error {
			mode, err := parseAccess(c)
			if err != nil {
				return err
			}
			return core.Put(c, &conf(c).storeAccess, mode)
		}},
	}
}

// setBind reads "*_bind address [transparent] | off". An address without
// variables must be an IP address, with a port or not; one with
// variables is read per request.
func setBind(c *core.Cmd, s *SharedConf) error {
	if len(c.Args) == 1 && c.Args[0] == "off" {
		return core.Put(c, &s.bind, bindConf{})
	}
	var b bindConf
	if len(c.Args) == 2 {
		if c.Args[1] != "transparent" {
			return c.Errorf("invalid parameter %q", c.Args[1])
		}
		if !proxy.TransparentSupported {
			return c.Errorf("transparent proxying is not supported on this platform")
		}
		b.transparent = true
	}
	t, err := c.Template(c.Args[0])
	if err != nil {
		return err
	}
	b.addr = t.Eval
	if t.Static() {
		v := t.Literal()
		if _, err := proxy.ParseLocal(v); err != nil {
			return c.Errorf("%v", err)
		}
		b.addr = func(*http.Request) string { return v }
	}
	return core.Put(c, &s.bind, b)
}

// WrapStore returns h behind the writer that *_store asks for (the
// prefix names the directive in the error log), or h when the level does
// not store.
func (s *SharedConf) WrapStore(l *core.Location, prefix string, h http.Handler) http.Handler {
	if !s.store.V.on {
		return h
	}
	return storeHandler(l, fmt.Sprintf("%s_store", prefix), s.store.V, s.storeAccess.Or(0o600), h)
}
