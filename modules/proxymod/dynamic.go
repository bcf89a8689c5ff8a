package proxymod

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mosaic-edge/mosaic/internal/resolver"
	"github.com/mosaic-edge/mosaic/modules/throttlemod"
	"github.com/mosaic-edge/mosaic/proxy"
	core "github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/vars"
)

// dynamicPass serves a location whose proxy_pass has variables
// ("proxy_pass http://$backend"). As in NGINX, the value is evaluated for
// each request; a host that names an upstream block (without a port) uses
// that group; a host and port that a *_pass without variables names uses
// the implicit group of addresses resolved at load (implicitGroup); an IP
// address is used as it is;
// any other name is looked up with the location's resolver, at request
// time, and a name without a resolver is a 502. A URI part in the value is the whole request target;
// without one the client's URI is sent. "proxy_redirect default" has
// nothing to rewrite from, as in NGINX.
type dynamicPass struct {
	target   *vars.Template
	base     proxy.Options // everything but Pass and Upstream
	l        *core.Location
	main     *mainConf // its upstream blocks
	resolver *resolver.Resolver
	timeout  time.Duration
	log      *slog.Logger

	mu       sync.Mutex
	handlers map[string]*proxy.Handler // by scheme and authority
}

// maxDynamicTargets bounds the proxies kept per location: targets come
// from request values.
const maxDynamicTargets = 256

func newDynamicPass(l *core.Location, pc *locConf) (http.Handler, error) {
	base, _, err := locationOptions(l, proxy.Pass{}, true)
	if err != nil {
		return nil, err
	}
	// Only explicit proxy_redirect lines apply: NGINX gives a proxy_pass
	// with variables no default line, and refuses an explicit one.
	base.RedirectOff = base.RedirectOff || len(base.Redirects) == 0
	// Its handlers are built per request, after the throttle filter of
	// every location has read whether a rate may come from upstream.
	if !base.IgnoreAccelLimitRate {
		throttlemod.MayLimit(l.Server().Config())
	}
	lc := core.LocConf[*locConf](l, module)
	return &dynamicPass{
		target:   pc.passVar,
		base:     base,
		l:        l,
		main:     core.MainConf[*mainConf](l.Server().Config(), module),
		resolver: lc.resolver.V,
		timeout:  lc.resolveTime.Or(30 * time.Second),
		log:      l.Logger(),
		handlers: map[string]*proxy.Handler{},
	}, nil
}

func (d *dynamicPass) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	value := d.target.Eval(r)
	p, err := parseDynamicPass(value)
	if err != nil {
		d.log.Error(err.Error())
		core.Error(w, r, http.StatusInternalServerError)
		return
	}
	h, up, status := d.handler(r.Context(), p)
	if h == nil {
		core.Error(w, r, status)
		return
	}
	h.ServeVia(w, r, up, p.URI)
}

// parseDynamicPass reads the value of a proxy_pass with variables. A query
// right after the authority ("http://host?a=b") is a URI part, to which
// NGINX adds the "/".
func parseDynamicPass(value string) (proxy.Pass, error) {
	if i := strings.Index(value, "://"); i >= 0 {
		rest := value[i+3:]
		if j := strings.IndexAny(rest, "/?"); j >= 0 && rest[j] == '?' && !strings.HasPrefix(strings.ToLower(rest), "unix:") {
			value = value[:i+3] + rest[:j] + "/" + rest[j:]
		}
	}
	return proxy.ParseVariablePass(value)
}

// handler returns the proxy for p's scheme and authority, building it
// the first time, and for a name looked up at request time the group of
// its addresses for this request alone (nil otherwise: the handler's
// own); a nil handler and a status when there is none.
func (d *dynamicPass) handler(ctx context.Context, p proxy.Pass) (*proxy.Handler, *proxy.Upstream, int) {
	p.URI, p.HasURI = "", false
	up := d.upstream(p)
	if up == nil {
		up = d.main.implicitGroup(p)
	}
	var perRequest *proxy.Upstream
	if up == nil && p.Unix == "" && !isIP(p.Host) {
		var status int
		if perRequest, status = d.resolve(ctx, p); perRequest == nil {
			return nil, nil, status
		}
	}
	key := p.String() + " " + p.Unix
	d.mu.Lock()
	h := d.handlers[key]
	d.mu.Unlock()
	if h != nil {
		return h, perRequest, 0
	}
	opts := d.base
	opts.Pass, opts.Upstream = p, up
	h, err := NewHandler(d.l, opts)
	if err != nil {
		d.log.Error(err.Error())
		return nil, nil, http.StatusInternalServerError
	}
	d.mu.Lock()
	if len(d.handlers) >= maxDynamicTargets {
		clear(d.handlers)
	}
	d.handlers[key] = h
	d.mu.Unlock()
	return h, perRequest, 0
}

// resolve looks p's host up with the location's resolver and returns a
// group of its addresses for one request, as NGINX makes one per request
// (ngx_http_upstream_create_round_robin_peer): each request starts with
// every address in rotation, whatever the previous ones met, named after
// the host, without keepalive; the addresses are rotated at random as
// NGINX's resolver rotates them, so that requests spread over them.
func (d *dynamicPass) resolve(ctx context.Context, p proxy.Pass) (*proxy.Upstream, int) {
	if d.resolver == nil {
		d.log.Error(fmt.Sprintf("no resolver defined to resolve %s", p.Host))
		return nil, http.StatusBadGateway
	}
	lookupCtx := ctx
	if d.timeout > 0 { // resolver_timeout 0: no bound of its own
		var cancel context.CancelFunc
		lookupCtx, cancel = context.WithTimeout(ctx, d.timeout)
		defer cancel()
	}
	ips, err := d.resolver.Lookup(lookupCtx, p.Host)
	if err != nil {
		d.log.Error(fmt.Sprintf("%s could not be resolved (%v)", p.Host, err))
		return nil, http.StatusBadGateway
	}
	ips = rotate(ips)
	servers := make([]proxy.Server, len(ips))
	for i, ip := range ips {
		servers[i] = proxy.Server{Addr: net.JoinHostPort(ip.String(), p.ProxyPort()), Weight: 1, MaxFails: 1, FailTimeout: proxy.DefaultFailTimeout}
	}
	up, err := proxy.NewUpstream(p.Host, servers, 0)
	if err != nil {
		d.log.Error(fmt.Sprintf("proxy_pass to %s: %v", p.Host, err))
		return nil, http.StatusBadGateway
	}
	return up, 0
}

// rotate returns the addresses in the order NGINX's resolver hands them
// out (ngx_resolver_export with rotation): the IPv4 ones turned by a
// random offset, the IPv6 ones after them turned by another, and the
// whole list by a third.
func rotate(ips []netip.Addr) []netip.Addr {
	var v4, v6 []netip.Addr
	for _, ip := range ips {
		if ip.Is4() {
			v4 = append(v4, ip)
		} else {
			v6 = append(v6, ip)
		}
	}
	turn := func(s []netip.Addr) []netip.Addr {
		if len(s) < 2 {
			return s
		}
		k := rand.IntN(len(s))
		return append(slices.Clone(s[k:]), s[:k]...)
	}
	return turn(append(turn(v4), turn(v6)...))
}

// upstream returns the upstream block that p names, if any: a host
// without a port that is an upstream's name, ignoring case as NGINX does.
func (d *dynamicPass) upstream(p proxy.Pass) *proxy.Upstream {
	if p.Port != "" || p.Unix != "" {
		return nil
	}
	if u := d.main.upstreamNamed(p.Host); u != nil {
		return u.built
	}
	return nil
}

func isIP(host string) bool {
	_, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return err == nil
}

// setResolver reads "resolver address ... [valid=time] [ipv4=on|off]
// [ipv6=on|off] [status_zone=zone]". Addresses take port 53 by default.
func setResolver(c *core.Cmd) error {
	lc := c.Loc().(*locConf)
	if lc.resolver.Set {
		return c.Duplicate()
	}
	res := &resolver.Resolver{}
	for _, a := range c.Args {
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case name == "valid" && hasVal:
			d, err := c.Seconds(val)
			if err != nil || d <= 0 {
				return c.Errorf("invalid parameter: %s", a)
			}
			res.Valid = d
		case (name == "ipv4" || name == "ipv6") && hasVal:
			var off bool
			switch val {
			case "on":
			case "off":
				off = true
			default:
				return c.Errorf("invalid parameter: %s", a)
			}
			if name == "ipv4" {
				res.NoIPv4 = off
			} else {
				res.NoIPv6 = off
			}
		case name == "status_zone" && hasVal:
			// NGINX Plus's statistics: nothing to collect them.
		default:
			addr, err := resolverAddr(a)
			if err != nil {
				return c.Errorf("%v", err)
			}
			res.Servers = append(res.Servers, addr)
		}
	}
	if res.NoIPv4 && res.NoIPv6 {
		return c.Errorf("\"ipv4\" and \"ipv6\" cannot both be \"off\"")
	}
	if len(res.Servers) == 0 {
		return c.Errorf("invalid number of arguments in %q directive", c.Name)
	}
	lc.resolver.Put(res)
	return nil
}

// resolverAddr adds port 53 to an address written without a port.
func resolverAddr(a string) (string, error) {
	if strings.HasPrefix(a, "[") {
		if strings.HasSuffix(a, "]") {
			return a + ":53", nil
		}
		if _, _, err := net.SplitHostPort(a); err != nil {
			return "", fmt.Errorf("invalid resolver address %q", a)
		}
		return a, nil
	}
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		if strings.Contains(a, ":") {
			if _, perr := netip.ParseAddr(a); perr == nil {
				return net.JoinHostPort(a, "53"), nil // a bare IPv6 address
			}
			return "", fmt.Errorf("invalid resolver address %q", a)
		}
		return net.JoinHostPort(a, "53"), nil
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || host == "" {
		return "", fmt.Errorf("invalid port in resolver %q", a)
	}
	return a, nil
}
