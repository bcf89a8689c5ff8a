package proxymod

import (
	"strings"

	"github.com/mosaic-edge/mosaic/proxy"
	core "github.com/mosaic-edge/mosaic/server"
)

// Upstream returns the group that an upstream block of cfg defines under
// name, or nil. The gateways (fastcgi_pass, uwsgi_pass) share the groups
// with proxy_pass, as NGINX's upstream blocks serve every module; it is
// valid once the configuration's InitMain has run, that is when the
// locations' content is built.
func Upstream(cfg *core.Config, name string) *proxy.Upstream {
	if u := core.MainConf[*mainConf](cfg, module).upstreamNamed(name); u != nil {
		return u.built
	}
	return nil
}

// upstreamNamed returns the upstream block called name, or nil. NGINX
// compares upstream names ignoring case, so "proxy_pass http://Backend"
// reaches "upstream backend", and two blocks whose names differ only in
// case are duplicates.
func (mc *mainConf) upstreamNamed(name string) *upstreamConf {
	return mc.upstreams[strings.ToLower(name)]
}
