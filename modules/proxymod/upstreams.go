package proxymod

import (
	"fmt"
	"strings"

	"github.com/mosaic-edge/mosaic/proxy"
	core "github.com/mosaic-edge/mosaic/server"
)

// upstreamNamed returns the upstream block called name, or nil. NGINX
// compares upstream names ignoring case, so "proxy_pass http://Backend"
// reaches "upstream backend", and two blocks whose names differ only in
// case are duplicates.
func (mc *mainConf) upstreamNamed(name string) *upstreamConf {
	return mc.upstreams[strings.ToLower(name)]
}

// PassUpstream returns the group that a *_pass target of cfg names: an
// upstream block's name without a port; nil for a host, or for a
// Unix-domain socket (whose Host is "localhost"). As in NGINX, an
// upstream block's name with a port is an error ("upstream may not have
// port"), not a host to resolve. The gateways (fastcgi_pass, uwsgi_pass)
// share the groups with proxy_pass, as NGINX's upstream blocks serve
// every module; the groups exist once the configuration's InitMain has
// run, when the locations' content is built.
func PassUpstream(cfg *core.Config, pass proxy.Pass) (*proxy.Upstream, error) {
	return core.MainConf[*mainConf](cfg, module).passUpstream(pass)
}

func (mc *mainConf) passUpstream(pass proxy.Pass) (*proxy.Upstream, error) {
	if pass.Unix != "" {
		return nil, nil
	}
	u := mc.upstreamNamed(pass.Host)
	switch {
	case u == nil:
		return nil, nil
	case pass.Port != "":
		return nil, fmt.Errorf("upstream %q may not have port %s", pass.Host, pass.Port)
	}
	return u.built, nil
}

// staticTarget reports whether a proxy_pass without variables names p's
// host and port (the scheme's default port when it has none), and no
// upstream block p's host. NGINX makes such a target an implicit
// upstream, resolved when the configuration loads, and a proxy_pass
// with variables whose value names it uses it without a resolver.
func (mc *mainConf) staticTarget(p proxy.Pass) bool {
	return p.Unix == "" && mc.targets[targetKey(p)] && mc.upstreamNamed(p.Host) == nil
}

func targetKey(p proxy.Pass) string {
	return strings.ToLower(p.Host) + ":" + p.ProxyPort()
}
