package proxymod

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/internal/inet"
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
// upstream block's name without a port, or the implicit group of a host
// and port (see AddTarget); nil for a Unix-domain socket (whose Host is
// "localhost") or a target never added. As in NGINX, an upstream
// block's name with a port is an error ("upstream may not have port"),
// not a host to resolve. The gateways (fastcgi_pass, uwsgi_pass,
// grpc_pass) share the groups with proxy_pass, as NGINX's upstreams
// serve every module; the groups exist once the configuration's
// InitMain has run, when the locations' content is built.
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
		return mc.implicitGroup(pass), nil
	case pass.Port != "":
		return nil, fmt.Errorf("upstream %q may not have port %s", pass.Host, pass.Port)
	}
	return u.built, nil
}

// implicitTarget is a host and port that a *_pass without variables
// names and no upstream block does: NGINX makes it a group of its own,
// the host's addresses resolved when the configuration loads, shared by
// every line that names the same host and port.
type implicitTarget struct {
	host, port string
	url        string // the first line's target after its scheme, as NGINX quotes it
	pos        string // the first line naming it, for the errors
	built      *proxy.Upstream
}

// AddTarget records the host and port of a *_pass line without
// variables (the scheme's default port when it names none), whose
// implicit group InitMain builds. A Unix-domain socket has none.
func AddTarget(c *core.Cmd, p proxy.Pass) {
	if p.Unix != "" {
		return
	}
	mc := core.MainConf[*mainConf](c.Config(), module)
	key := targetKey(p)
	if mc.targets[key] == nil {
		url := c.Args[0]
		if i := strings.Index(url, "://"); i >= 0 {
			url = url[i+len("://"):]
		}
		mc.targets[key] = &implicitTarget{host: p.Host, port: p.ProxyPort(), url: url, pos: c.Pos()}
		mc.targetOrder = append(mc.targetOrder, mc.targets[key])
	}
}

// implicitGroup returns the implicit group of p's host and port, nil
// when no *_pass line without variables names them or an upstream block
// has p's host as its name. A proxy_pass with variables whose value
// names them uses it without a resolver, as NGINX does.
func (mc *mainConf) implicitGroup(p proxy.Pass) *proxy.Upstream {
	if p.Unix != "" || mc.upstreamNamed(p.Host) != nil {
		return nil
	}
	if t := mc.targets[targetKey(p)]; t != nil {
		return t.built
	}
	return nil
}

// PosError is msg placed at pos, a directive's position ("file:line"),
// as a *conf.Error, so that the core names the place once, at the end,
// as NGINX's messages do ("upstream "b" may not have port 80 in
// site.conf:4"); a position it cannot read is appended as text.
func PosError(pos, msg string) error {
	i := strings.LastIndexByte(pos, ':')
	if line, err := strconv.Atoi(pos[i+1:]); i > 0 && err == nil {
		return &conf.Error{Msg: msg, File: pos[:i], Line: line}
	}
	return fmt.Errorf("%s in %s", msg, pos)
}

func targetKey(p proxy.Pass) string {
	return strings.ToLower(p.Host) + ":" + p.ProxyPort()
}

// lookupTimeout bounds the resolution of one name at load; NGINX waits
// as long as the system's resolver does.
const lookupTimeout = 30 * time.Second

// buildImplicit resolves each implicit target into its group: one server
// per address, NGINX's defaults (weight 1, max_fails 1, fail_timeout
// 10s), no backup and no keepalive. The group's name is the host, which
// $upstream_addr shows when none of its servers is available.
func (mc *mainConf) buildImplicit() error {
	for _, t := range mc.targetOrder {
		if mc.upstreamNamed(t.host) != nil {
			continue // the block serves it (passUpstream)
		}
		ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
		ips, err := inet.ResolveHost(ctx, t.host)
		cancel()
		switch {
		case errors.Is(err, inet.ErrInvalidIPv6):
			// NGINX refuses it as it reads the line, quoting all of it.
			return fmt.Errorf("%v in upstream %q in %s", err, t.url, t.pos)
		case err != nil:
			return fmt.Errorf("%v in upstream %q in %s", err, t.host, t.pos)
		}
		servers := make([]proxy.Server, len(ips))
		for i, ip := range ips {
			servers[i] = proxy.Server{Addr: net.JoinHostPort(ip.String(), t.port), Name: t.host + ":" + t.port,
				Weight: 1, MaxFails: 1, FailTimeout: proxy.DefaultFailTimeout}
		}
		up, err := proxy.NewUpstream(t.host, servers, 0)
		if err != nil {
			return fmt.Errorf("upstream %q in %s: %w", t.host, t.pos, err)
		}
		t.built = up
	}
	return nil
}
