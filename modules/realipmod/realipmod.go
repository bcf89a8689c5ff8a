// Package realipmod wires the realip library to the server:
// set_real_ip_from, real_ip_header and real_ip_recursive, their
// inheritance, and the two places NGINX runs the module: the post-read
// step with the server's settings, before the server's rewrite phase, and
// the preaccess step with the location's, for a request whose address the
// server level left alone.
package realipmod

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"

	"github.com/mosaic-edge/mosaic/realip"
	"github.com/mosaic-edge/mosaic/server"
)

// locConf is one level's settings. from lists are inherited whole by a
// level that has none of its own, as NGINX merges them.
type locConf struct {
	from      []netip.Prefix
	fromUnix  bool
	ownFrom   bool
	source    server.Setting[headerConf]
	recursive server.Setting[bool]
	built     *realip.Config
}

type headerConf struct {
	source realip.Source
	name   string
}

var module = &server.Module{
	Name: "realip",
	Directives: []server.Directive{
		{Name: "set_real_ip_from", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setFrom},
		{Name: "real_ip_header", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			s, name := realip.ParseSource(c.Args[0])
			return server.Put(c, &c.Loc().(*locConf).source, headerConf{s, name})
		}},
		{Name: "real_ip_recursive", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: server.SetFlag(func(l *locConf) *server.Setting[bool] { return &l.recursive })},
	},
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		if !child.ownFrom {
			child.from, child.fromUnix = parent.from, parent.fromUnix
		}
		child.source.Merge(parent.source)
		child.recursive.Merge(parent.recursive)
		return nil
	},
}

func init() {
	module.PostRead = func(srv *server.Location) (func(*http.Request), error) {
		c := configOf(srv)
		if !c.Enabled() {
			return nil, nil
		}
		return func(r *http.Request) { c.Apply(r) }, nil
	}
	module.Preaccess = func(l *server.Location, next http.Handler) (http.Handler, error) {
		return realip.Handler(configOf(l), next), nil
	}
	server.Register(module)
}

// configOf returns the library settings of a level, made once.
func configOf(l *server.Location) *realip.Config {
	lc := server.LocConf[*locConf](l, module)
	if lc.built == nil {
		lc.built = &realip.Config{
			From:      lc.from,
			FromUnix:  lc.fromUnix,
			Source:    lc.source.V.source,
			Header:    lc.source.V.name,
			Recursive: lc.recursive.V,
			// real_ip_header proxy_protocol: the header the listener read.
			ProxyProtocol: server.ProxyProtocolSource,
		}
	}
	return lc.built
}

// setFrom reads set_real_ip_from: "unix:", an address or CIDR block, or
// a host name, resolved now, each of whose addresses is trusted.
func setFrom(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if !lc.ownFrom {
		lc.from, lc.fromUnix, lc.ownFrom = nil, false, true
	}
	arg := c.Args[0]
	if arg == "unix:" {
		lc.fromUnix = true
		return nil
	}
	p, partial, err := realip.ParseFrom(arg)
	if err == nil {
		if partial {
			c.Notice(fmt.Sprintf("low address bits of %s are meaningless", arg))
		}
		lc.from = append(lc.from, p)
		return nil
	}
	ips, lerr := net.LookupIP(arg)
	if lerr != nil || len(ips) == 0 {
		return c.Errorf("host not found in set_real_ip_from %q", arg)
	}
	for _, ip := range ips {
		a, _ := netip.AddrFromSlice(ip)
		a = a.Unmap()
		lc.from = append(lc.from, netip.PrefixFrom(a, a.BitLen()))
	}
	return nil
}
