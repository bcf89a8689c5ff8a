package proxymod

import (
	"github.com/mosaic-edge/mosaic/proxy"
	core "github.com/mosaic-edge/mosaic/server"
)

// Upstream returns the group that an upstream block of cfg defines under
// name, or nil. The gateways (fastcgi_pass, uwsgi_pass) share the groups
// with proxy_pass, as NGINX's upstream blocks serve every module; it is
// valid once the configuration's InitMain has run, that is when the
// locations' content is built.
func Upstream(cfg *core.Config, name string) *proxy.Upstream {
	if u, ok := core.MainConf[*mainConf](cfg, module).upstreams[name]; ok {
		return u.built
	}
	return nil
}
