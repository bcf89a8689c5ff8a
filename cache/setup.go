package cache

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/vars"
)

// This file makes the package a module of the mosaic server: it declares
// NGINX's proxy_cache_* directives plus proxy_cache_purge and
// proxy_cache_status, opens the zones' stores once per configuration, and
// wraps the content of each caching location that proxies in a Cache.

// mainConf holds the zones of a configuration.
type mainConf struct {
	zones map[string]*zoneConf
	order []*zoneConf
}

// locConf holds the cache directives of one level. The list directives
// (proxy_cache_valid, proxy_cache_bypass, proxy_no_cache) are inherited by
// levels that set none, as NGINX inherits arrays.
type locConf struct {
	zone        server.Setting[string] // "" is off
	zonePos     string
	key         server.Setting[*keyTemplate]
	valid       []Valid
	ownValid    bool
	methods     server.Setting[[]string]
	minUses     server.Setting[int]
	bypass      []*vars.Template
	ownBypass   bool
	noCache     []*vars.Template
	ownNoCache  bool
	lock        server.Setting[bool]
	lockTimeout server.Setting[time.Duration]
	lockAge     server.Setting[time.Duration]
	useStale    server.Setting[UseStale]
	background  server.Setting[bool]
	revalidate  server.Setting[bool]
	ignore      server.Setting[[]string]

	// The endpoints are contents of the location that names them, not
	// inherited.
	purge  *purgeConf
	status *statusConf
}

// purgeConf is a proxy_cache_purge directive.
type purgeConf struct {
	zone  string
	allow []netip.Prefix
	token string
	pos   string
}

// statusConf is a proxy_cache_status directive.
type statusConf struct {
	zones []string // nil: every zone
	allow []netip.Prefix
	pos   string
}

var module = &server.Module{
	Name:    "cache",
	NewMain: func() any { return &mainConf{zones: map[string]*zoneConf{}} },
	NewLoc:  func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		if !child.zone.Set {
			child.zone, child.zonePos = parent.zone, parent.zonePos
		}
		child.key.Merge(parent.key)
		if !child.ownValid {
			child.valid = parent.valid
		}
		child.methods.Merge(parent.methods)
		child.minUses.Merge(parent.minUses)
		if !child.ownBypass {
			child.bypass = parent.bypass
		}
		if !child.ownNoCache {
			child.noCache = parent.noCache
		}
		child.lock.Merge(parent.lock)
		child.lockTimeout.Merge(parent.lockTimeout)
		child.lockAge.Merge(parent.lockAge)
		child.useStale.Merge(parent.useStale)
		child.background.Merge(parent.background)
		child.revalidate.Merge(parent.revalidate)
		child.ignore.Merge(parent.ignore)
		return nil
	},
}

func init() {
	flag := server.SetFlag[*locConf]
	duration := server.SetTime[*locConf]
	module.Directives = []server.Directive{
		{Name: "proxy_cache_path", Context: server.CtxHTTP, MinArgs: 1, MaxArgs: server.Unlimited, Set: setPath},
		{Name: "proxy_cache", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setCache},
		{Name: "proxy_cache_key", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setKey},
		{Name: "proxy_cache_valid", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: setValid},
		{Name: "proxy_cache_methods", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: setMethods},
		{Name: "proxy_cache_min_uses", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			n, err := c.Int(c.Args[0], 1, 1<<20)
			if err != nil {
				return err
			}
			return server.Put(c, &c.Loc().(*locConf).minUses, n)
		}},
		{Name: "proxy_cache_bypass", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: func(c *server.Cmd) error {
			lc := c.Loc().(*locConf)
			return addPredicates(c, &lc.bypass, &lc.ownBypass)
		}},
		{Name: "proxy_no_cache", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: func(c *server.Cmd) error {
			lc := c.Loc().(*locConf)
			return addPredicates(c, &lc.noCache, &lc.ownNoCache)
		}},
		{Name: "proxy_cache_lock", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *locConf) *server.Setting[bool] { return &l.lock })},
		{Name: "proxy_cache_lock_timeout", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: duration(func(l *locConf) *server.Setting[time.Duration] { return &l.lockTimeout })},
		{Name: "proxy_cache_lock_age", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: duration(func(l *locConf) *server.Setting[time.Duration] { return &l.lockAge })},
		{Name: "proxy_cache_use_stale", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: setUseStale},
		{Name: "proxy_cache_background_update", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *locConf) *server.Setting[bool] { return &l.background })},
		{Name: "proxy_cache_revalidate", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *locConf) *server.Setting[bool] { return &l.revalidate })},
		{Name: "proxy_ignore_headers", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: setIgnore},
		{Name: "proxy_cache_convert_head", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			on, err := c.Flag()
			if err != nil {
				return err
			}
			if !on {
				return c.Errorf("\"proxy_cache_convert_head off\" is not supported: a HEAD is always filled with a GET")
			}
			return nil
		}},
		{Name: "proxy_cache_purge", Context: server.CtxLocation, MinArgs: 1, MaxArgs: server.Unlimited, Set: setPurge},
		{Name: "proxy_cache_status", Context: server.CtxLocation, MinArgs: 0, MaxArgs: server.Unlimited, Set: setStatus},
	}
	module.InitMain = initMain
	module.Content = content
	// Inside ESI (server/order.go), so that a page is cached with its
	// markup and processed on every delivery, and in subrequests, so that
	// each ESI fragment is cached by the settings of its own location.
	module.Filter = &server.Filter{InSubrequest: true, Wrap: wrap}
	vars.RegisterState("upstream_cache_status")
	proxy.Configure(configureProxy)
	server.Register(module)
}

func setPath(c *server.Cmd) error {
	mc := c.Main().(*mainConf)
	z, err := parseZone(c.Args, server.ParseSize, server.ParseDuration)
	if err != nil {
		return c.Errorf("%v in \"proxy_cache_path\" directive", err)
	}
	if _, dup := mc.zones[z.name]; dup {
		return c.Errorf("duplicate zone %q", z.name)
	}
	for _, o := range mc.order {
		if o.kind == zoneDisk && z.kind == zoneDisk && o.path == z.path {
			return c.Errorf("duplicate %q path", z.path)
		}
	}
	z.pos = c.Pos()
	mc.zones[z.name] = z
	mc.order = append(mc.order, z)
	return nil
}

func setCache(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	name := c.Args[0]
	if strings.Contains(name, "$") {
		return c.Errorf("variables in \"proxy_cache\" are not supported; name a zone")
	}
	if name == "off" {
		name = ""
	}
	if err := server.Put(c, &lc.zone, name); err != nil {
		return err
	}
	lc.zonePos = c.Pos()
	return nil
}

func setKey(c *server.Cmd) error {
	k, err := compileKey(c.Args[0])
	if err != nil {
		return c.Errorf("%v", err)
	}
	return server.Put(c, &c.Loc().(*locConf).key, k)
}

// setValid reads "proxy_cache_valid [code ... | any] time".
func setValid(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if !lc.ownValid {
		lc.valid, lc.ownValid = nil, true
	}
	args := c.Args
	ttl, err := c.Duration(args[len(args)-1])
	if err != nil {
		return err
	}
	v := Valid{TTL: ttl}
	for _, a := range args[:len(args)-1] {
		if a == "any" {
			v.Any = true
			continue
		}
		code, err := c.Int(a, 100, 599)
		if err != nil {
			return err
		}
		v.Codes = append(v.Codes, code)
	}
	if v.Any && len(v.Codes) > 0 {
		return c.Errorf("\"any\" cannot be combined with status codes in \"proxy_cache_valid\"")
	}
	lc.valid = append(lc.valid, v)
	return nil
}

func setMethods(c *server.Cmd) error {
	var ms []string
	for _, a := range c.Args {
		switch m := strings.ToUpper(a); m {
		case "GET", "HEAD", "POST":
			ms = append(ms, m)
		default:
			return c.Invalid(a, `it must be "GET", "HEAD" or "POST"`)
		}
	}
	return server.Put(c, &c.Loc().(*locConf).methods, ms)
}

// addPredicates reads the values of proxy_cache_bypass or proxy_no_cache.
// Several directives at one level add up.
func addPredicates(c *server.Cmd, list *[]*vars.Template, own *bool) error {
	if !*own {
		*list, *own = nil, true
	}
	for _, a := range c.Args {
		t, err := c.Template(a)
		if err != nil {
			return err
		}
		*list = append(*list, t)
	}
	return nil
}

func setUseStale(c *server.Cmd) error {
	u, err := ParseUseStale(c.Args)
	if err != nil {
		return c.Errorf("%v", err)
	}
	return server.Put(c, &c.Loc().(*locConf).useStale, u)
}

func setIgnore(c *server.Cmd) error {
	if _, err := parseIgnore(c.Args); err != nil {
		return c.Errorf("%v", err)
	}
	return server.Put(c, &c.Loc().(*locConf).ignore, append([]string(nil), c.Args...))
}

// parseAllow reads an allow=CIDR parameter: a network, or one address.
func parseAllow(v string) (netip.Prefix, error) {
	if p, err := netip.ParsePrefix(v); err == nil {
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(v)
	if err != nil {
		return netip.Prefix{}, err
	}
	return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
}

// setPurge reads "proxy_cache_purge ZONE [allow=CIDR ...] [token=TOKEN]".
func setPurge(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if lc.purge != nil || lc.status != nil {
		return c.Duplicate()
	}
	p := &purgeConf{zone: c.Args[0], pos: c.Pos()}
	for _, a := range c.Args[1:] {
		name, val, ok := strings.Cut(a, "=")
		switch {
		case ok && name == "allow":
			n, err := parseAllow(val)
			if err != nil {
				return c.Invalid(a, "it must be a network such as 127.0.0.1/32 or ::1")
			}
			p.allow = append(p.allow, n)
		case ok && name == "token":
			if val == "" {
				return c.Invalid(a, "the token must not be empty")
			}
			p.token = val
		default:
			return c.Errorf("invalid parameter %q", a)
		}
	}
	if len(p.allow) == 0 && p.token == "" {
		return c.Errorf("\"proxy_cache_purge\" needs allow= networks or a token=: an open purge endpoint lets anyone empty the cache")
	}
	lc.purge = p
	return nil
}

// setStatus reads "proxy_cache_status [ZONE ...] [allow=CIDR ...]".
func setStatus(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if lc.purge != nil || lc.status != nil {
		return c.Duplicate()
	}
	s := &statusConf{pos: c.Pos()}
	for _, a := range c.Args {
		if v, ok := strings.CutPrefix(a, "allow="); ok {
			n, err := parseAllow(v)
			if err != nil {
				return c.Invalid(a, "it must be a network such as 127.0.0.1/32 or ::1")
			}
			s.allow = append(s.allow, n)
			continue
		}
		s.zones = append(s.zones, a)
	}
	lc.status = s
	return nil
}

// initMain opens the store of each zone, or takes the one a previous
// configuration opened with the same parameters, and gives it back when
// the configuration is retired.
func initMain(cfg *server.Config) error {
	for _, z := range server.MainConf[*mainConf](cfg, module).order {
		sz, err := acquireZone(z, cfg.Logger)
		if err != nil {
			return fmt.Errorf("proxy_cache_path in %s: %w", z.pos, err)
		}
		z.zone = sz
		cfg.OnClose(func() error { return releaseZone(sz) })
	}
	return nil
}

// zoneFor finds a zone by name for the configuration of l.
func zoneFor(l *server.Location, name string) (*zoneConf, bool) {
	s := l.Server()
	if s == nil {
		return nil, false
	}
	z, ok := server.MainConf[*mainConf](s.Config(), module).zones[name]
	return z, ok
}

// configureProxy adjusts the proxy of a caching location: the cache reads
// X-Accel-Expires (and removes it from what clients get), and the proxy's
// error pages report the failure, for proxy_cache_use_stale error and
// timeout.
func configureProxy(l *server.Location, o *proxy.Options) {
	if server.LocConf[*locConf](l, module).zone.V == "" {
		return
	}
	o.PassHeaders = append(append([]string(nil), o.PassHeaders...), "X-Accel-Expires")
	o.ErrorResponse = FailureReporter(o.ErrorResponse)
}

// wrap puts a Cache around the content of a location that caches and
// proxies. proxy_cache in a location whose content is not proxy_pass does
// nothing, as in NGINX.
func wrap(l *server.Location, next http.Handler) (http.Handler, error) {
	lc := server.LocConf[*locConf](l, module)
	if lc.zone.V == "" {
		return next, nil
	}
	z, ok := zoneFor(l, lc.zone.V)
	if !ok {
		return nil, fmt.Errorf("\"proxy_cache\" zone %q is unknown in %s", lc.zone.V, lc.zonePos)
	}
	pass, proxyHandler, proxies := proxy.LocationPass(l)
	if !proxies || lc.purge != nil || lc.status != nil {
		return next, nil
	}
	opts := lc.options(z, pass.ProxyHost(), l)
	if proxyHandler != nil {
		opts.Refresh = proxyHandler
	}
	c, err := New(next, opts)
	if err != nil {
		return nil, fmt.Errorf("proxy_cache in %s: %w", lc.zonePos, err)
	}
	if l.IsInternal() {
		return &internalCache{cache: c, next: next}, nil
	}
	return c, nil
}

// internalCache is the cache of an internal location. Only subrequests
// (ESI fragments) may use it; a client's request goes to the location's
// chain, which answers 404, and never sees nor fills the cache.
type internalCache struct {
	cache *Cache
	next  http.Handler
}

func (h *internalCache) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if server.SubrequestDepth(r) == 0 {
		h.next.ServeHTTP(w, r)
		return
	}
	h.cache.ServeHTTP(w, r)
}

// options turns a location's merged directives into Options.
func (lc *locConf) options(z *zoneConf, proxyHost string, l *server.Location) Options {
	key := lc.key.V
	if key == nil {
		key, _ = compileKey(DefaultKeyTemplate) // a constant known to compile
	}
	o := Options{
		Store: z.zone.store,
		Stats: z.zone.stats,
		Key: func(r *http.Request) string {
			return key.eval(r, vars.FromContext(r.Context()), proxyHost)
		},
		Methods:          lc.methods.V,
		MinUses:          lc.minUses.V,
		Valid:            lc.valid,
		Lock:             lc.lock.V,
		LockTimeout:      lc.lockTimeout.V,
		LockAge:          lc.lockAge.V,
		UseStale:         lc.useStale.V,
		BackgroundUpdate: lc.background.V,
		Revalidate:       lc.revalidate.V,
		IgnoreHeaders:    lc.ignore.V,
		Logger:           l.Logger(),
	}
	if bypass := lc.bypass; len(bypass) > 0 {
		o.Bypass = func(r *http.Request) bool { return anyTrue(bypass, r) }
	}
	if noCache := lc.noCache; len(noCache) > 0 {
		o.NoCache = func(r *http.Request, _ int, _ http.Header) bool { return anyTrue(noCache, r) }
	}
	return o
}

// anyTrue is NGINX's predicate rule: true when any value is neither empty
// nor "0".
func anyTrue(ts []*vars.Template, r *http.Request) bool {
	st := vars.FromContext(r.Context())
	for _, t := range ts {
		if v := t.EvalState(r, st); v != "" && v != "0" {
			return true
		}
	}
	return false
}

// content makes proxy_cache_purge and proxy_cache_status locations answer.
func content(l *server.Location) (http.Handler, error) {
	lc := server.LocConf[*locConf](l, module)
	switch {
	case lc.purge != nil:
		return purgeContent(l, lc)
	case lc.status != nil:
		return statusContent(l, lc.status)
	}
	return nil, nil
}

func purgeContent(l *server.Location, lc *locConf) (http.Handler, error) {
	p := lc.purge
	z, ok := zoneFor(l, p.zone)
	if !ok {
		return nil, fmt.Errorf("\"proxy_cache_purge\" zone %q is unknown in %s", p.zone, p.pos)
	}
	key := lc.key.V
	if key == nil {
		key, _ = compileKey(DefaultKeyTemplate)
	}
	return PurgeHandler(PurgeOptions{
		Store: z.zone.store,
		Allow: p.allow,
		Token: p.token,
		// A url= parameter names what a GET of that URL would be cached
		// under, by this location's proxy_cache_key: $host and $proxy_host
		// are the URL's authority, $request_uri its path and query. The
		// purge request's own variables (its $request_uri) are not used.
		Key: func(r *http.Request) string {
			r.RequestURI = r.URL.RequestURI()
			if r.URL.Scheme == "https" {
				r.TLS = &tls.ConnectionState{} // for $scheme and $https
			}
			return key.eval(r, nil, r.URL.Host)
		},
		Logger: l.Logger(),
	})
}

func statusContent(l *server.Location, s *statusConf) (http.Handler, error) {
	mc := server.MainConf[*mainConf](l.Server().Config(), module)
	var zones []Zone
	if s.zones == nil {
		for _, z := range mc.order {
			zones = append(zones, Zone{Name: z.name, Store: z.kind.String(), Stats: z.zone.stats})
		}
	}
	for _, name := range s.zones {
		z, ok := mc.zones[name]
		if !ok {
			return nil, fmt.Errorf("\"proxy_cache_status\" zone %q is unknown in %s", name, s.pos)
		}
		zones = append(zones, Zone{Name: z.name, Store: z.kind.String(), Stats: z.zone.stats})
	}
	return MetricsHandler(MetricsOptions{Zones: zones, Allow: s.allow}), nil
}
