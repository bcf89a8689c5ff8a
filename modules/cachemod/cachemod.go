// Package cachemod wires the cache library to the server: NGINX's
// proxy_cache_* directives plus proxy_cache_purge and proxy_cache_status,
// the zones' stores (opened once and kept across reloads), and the
// "cache" content handler.
//
// A location that caches and proxies gets a cache.Cache in front of its
// own proxy.Handler, both built here as the location's content: the
// proxy's options are those of the location (proxymod.LocationOptions)
// with what the cache needs added, X-Accel-Expires and Date passed
// through to it and the proxy's failures reported to it
// (proxy.Options.OnFailure to cache.ReportFailure). Being the content, the cache runs inside the
// core's steps (internal, try_files, error_page), in subrequests too, so
// an ESI fragment is cached by its own location's settings and an
// internal location's cache serves only internal requests.
package cachemod

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/modules/additionmod"
	"github.com/mosaic-edge/mosaic/modules/esimod"
	"github.com/mosaic-edge/mosaic/modules/imagefiltermod"
	"github.com/mosaic-edge/mosaic/modules/proxymod"
	"github.com/mosaic-edge/mosaic/modules/ssimod"
	"github.com/mosaic-edge/mosaic/modules/staticmod"
	"github.com/mosaic-edge/mosaic/modules/submod"
	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/static"
	"github.com/mosaic-edge/mosaic/vars"
)

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
	zoneAt      *conf.Directive        // the proxy_cache line, which its errors name
	key         server.Setting[*keyTemplate]
	valid       []cache.Valid
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
	useStale    server.Setting[cache.UseStale]
	background  server.Setting[bool]
	revalidate  server.Setting[bool]
	ignore      server.Setting[[]string]
	targeted    server.Setting[[]string] // proxy_cache_targeted_headers; empty: off
	heuristic   server.Setting[bool]
	postReuse   server.Setting[bool]
	maxOffset   server.Setting[int64] // proxy_cache_max_range_offset

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
	at    *conf.Directive
}

// statusConf is a proxy_cache_status directive.
type statusConf struct {
	zones []string // nil: every zone
	allow []netip.Prefix
	at    *conf.Directive
}

var module = &server.Module{
	Name:     "cache",
	NewMain:  func() any { return &mainConf{zones: map[string]*zoneConf{}} },
	NewLoc:   func() any { return &locConf{} },
	MergeLoc: mergeLoc,
}

// mergeLoc inherits the cache settings of a level from its parent's.
func mergeLoc(p, c any) error {
	parent, child := p.(*locConf), c.(*locConf)
	if !child.zone.Set {
		child.zone, child.zoneAt = parent.zone, parent.zoneAt
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
	child.targeted.Merge(parent.targeted)
	child.heuristic.Merge(parent.heuristic)
	child.postReuse.Merge(parent.postReuse)
	child.maxOffset.Merge(parent.maxOffset)
	return nil
}

func init() {
	// esimod cannot import this package (this one imports it through
	// staticmod): it is told where a location's Redis zone is.
	esimod.SharePlansThrough(RedisStore)
	// proxy_ignore_headers is read here, and the proxy needs it too
	// (X-Accel-Redirect, X-Accel-Limit-Rate, X-Accel-Buffering).
	proxymod.IgnoredHeaders = func(l *server.Location) []string {
		return server.LocConf[*locConf](l, module).ignore.V
	}
	flag := server.SetFlag[*locConf]
	module.Directives = []server.Directive{
		{Name: "proxy_cache_path", Context: server.CtxHTTP, MinArgs: 1, MaxArgs: server.Unlimited, Set: setPath},
		{Name: "proxy_cache", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setCache},
		{Name: "proxy_cache_key", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setKey},
		{Name: "proxy_cache_valid", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: setValid},
		{Name: "proxy_cache_methods", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: setMethods},
		{Name: "proxy_cache_min_uses", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			// NGINX takes 0 too, and stores from the first use as with 1.
			n, err := c.Count(c.Args[0], 0)
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
			Set: lockTime(func(l *locConf) *server.Setting[time.Duration] { return &l.lockTimeout })},
		{Name: "proxy_cache_lock_age", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: lockTime(func(l *locConf) *server.Setting[time.Duration] { return &l.lockAge })},
		{Name: "proxy_cache_use_stale", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: setUseStale},
		{Name: "proxy_cache_background_update", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *locConf) *server.Setting[bool] { return &l.background })},
		{Name: "proxy_cache_revalidate", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *locConf) *server.Setting[bool] { return &l.revalidate })},
		{Name: "proxy_ignore_headers", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: setIgnore},
		{Name: "proxy_cache_targeted_headers", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: setTargeted},
		{Name: "proxy_cache_heuristic", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *locConf) *server.Setting[bool] { return &l.heuristic })},
		{Name: "proxy_cache_post_reuse", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *locConf) *server.Setting[bool] { return &l.postReuse })},
		{Name: "proxy_cache_max_range_offset", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			n, err := c.Offset(c.Args[0])
			if err != nil {
				return err
			}
			return server.Put(c, &c.Loc().(*locConf).maxOffset, n)
		}},
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
	vars.RegisterState("upstream_cache_status")
	server.Register(module)
}

func setPath(c *server.Cmd) error {
	// The zones of fastcgi_cache_path (gateways.go) are this module's too.
	mc := server.MainConf[*mainConf](c.Config(), module)
	z, err := parseZone(c.Args, server.ParseSize, server.ParseSeconds)
	if err != nil {
		return c.Errorf("%v in %q directive", err, c.Name)
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
	lc.zoneAt = c.Directive
	return nil
}

// lockTime returns the setter of proxy_cache_lock_timeout and
// proxy_cache_lock_age, which NGINX lets be 0 (no waiting; a lock anyone
// takes over), unlike other times.
func lockTime(get func(*locConf) *server.Setting[time.Duration]) func(*server.Cmd) error {
	return func(c *server.Cmd) error {
		d, err := c.Duration(c.Args[0])
		if err != nil {
			return err
		}
		return server.Put(c, get(c.Loc().(*locConf)), d)
	}
}

func setKey(c *server.Cmd) error {
	k, err := compileKeyWith(c.Args[0], c.Template) // c.Template's errors name the position
	if err != nil {
		return err
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
	ttl, err := c.Seconds(args[len(args)-1])
	if err != nil {
		return err
	}
	v := cache.Valid{TTL: ttl}
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
	// A bitmask in NGINX: each line at a level adds its methods.
	s := &c.Loc().(*locConf).methods
	s.Put(append(slices.Clone(s.V), ms...))
	return nil
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
	u, err := cache.ParseUseStale(c.Args)
	if err != nil {
		return c.Errorf("%v", err)
	}
	// A bitmask in NGINX: the lines at one level add up, and "off" on any
	// of them overrides the others. Set with no condition is that "off",
	// as ParseUseStale gives no empty set for any other line.
	s := &c.Loc().(*locConf).useStale
	switch {
	case s.Set && s.V == 0:
	case u == 0:
		s.Put(0)
	default:
		s.Put(s.V | u)
	}
	return nil
}

// setTargeted reads "proxy_cache_targeted_headers off | field ...": the
// RFC 9213 target list, in order of precedence.
func setTargeted(c *server.Cmd) error {
	names := []string{}
	if len(c.Args) != 1 || c.Args[0] != "off" {
		for _, a := range c.Args {
			if a == "off" || !validFieldName(a) {
				return c.Invalid(a, "it must be a header field name, or \"off\" alone")
			}
			names = append(names, a)
		}
	}
	return server.Put(c, &c.Loc().(*locConf).targeted, names)
}

// validFieldName reports an RFC 9110 token.
func validFieldName(s string) bool {
	for _, r := range s {
		if r >= 0x7f || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return s != ""
}

func setIgnore(c *server.Cmd) error {
	if err := cache.CheckIgnoreHeaders(c.Args); err != nil {
		return c.Errorf("%v", err)
	}
	// A bitmask in NGINX: each line at a level adds its fields.
	s := &c.Loc().(*locConf).ignore
	s.Put(append(slices.Clone(s.V), c.Args...))
	return nil
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
	p := &purgeConf{zone: c.Args[0], at: c.Directive}
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
	s := &statusConf{at: c.Directive}
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

// RedisStore returns the store of the zone l's proxy_cache names when that
// zone keeps its entries in Redis, else nil: esimod shares its parse plans
// (esi_plan) through it with the other servers of the zone.
func RedisStore(l *server.Location) cache.Store {
	lc := server.LocConf[*locConf](l, module)
	if lc.zone.V == "" {
		return nil
	}
	z, ok := zoneFor(l, lc.zone.V)
	if !ok || z.kind != zoneRedis || z.zone == nil {
		return nil
	}
	return z.zone.store
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

// cachedProxy builds the proxy of a location that caches, as the cache
// needs it, and puts a Cache in front of it. It returns nil for a location
// without proxy_pass, where proxy_cache does nothing, as in NGINX.
func cachedProxy(l *server.Location, lc *locConf, z *zoneConf) (http.Handler, error) {
	popts, proxies, err := proxymod.LocationOptions(l)
	if err != nil {
		return nil, err
	}
	if !proxies {
		if proxymod.HasVariablePass(l) {
			// Its key and upstream are known only per request: refused
			// rather than served uncached.
			return nil, fmt.Errorf("proxy_cache in %s: a \"proxy_pass\" with variables cannot be cached", lc.zoneAt.Pos())
		}
		return nil, nil
	}
	forCache(&popts)
	p, err := proxymod.NewHandler(l, popts)
	if err != nil {
		return nil, err
	}
	c, err := cache.New(p, lc.options(z, popts.Pass, p.UpstreamURI, l))
	if err != nil {
		return nil, fmt.Errorf("proxy_cache in %s: %w", lc.zoneAt.Pos(), err)
	}
	// $proxy_host and $proxy_port are set before the lookup, as NGINX
	// sets them: a HIT's add_header and access log show them too.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.PublishLookup(r)
		c.ServeHTTP(w, r)
	}), nil
}

// forCache adds to the options of the proxy (or gateway) behind a cache
// what the cache needs. It reads X-Accel-Expires (and keeps it from
// clients) and the origin's Date (the date_value of its age arithmetic,
// RFC 9111 section 4.2.3, kept on hits), which the proxy hides by
// default; the failures decide what is stored and what is served
// stale; an answer relayed unbuffered is not stored, as in NGINX; and a
// buffered one's header reaches the cache before its body (Heading).
// Clip: the list is the location's settings, shared with others, and
// append must copy it.
func forCache(o *proxy.Options) {
	o.PassHeaders = append(slices.Clip(o.PassHeaders), "X-Accel-Expires", "Date")
	o.OnFailure = reportFailure
	o.OnUnbuffered = func(w http.ResponseWriter, _ *http.Request) { cache.Unbuffered(w) }
	o.OnHead = func(w http.ResponseWriter, _ *http.Request, status int, h http.Header) { cache.Heading(w, status, h) }
	if serve := o.AccelRedirect; serve != nil {
		// NGINX stores nothing for an X-Accel-Redirect: the fill is given
		// up and the client's own request (a HEAD stays one) is served
		// again for the target.
		o.AccelRedirect = func(w http.ResponseWriter, r *http.Request, a *proxy.Accel) {
			if !cache.HandOff(w, func(cw http.ResponseWriter, cr *http.Request) { serve(cw, cr, a) }) {
				serve(w, r, a)
			}
		}
	}
}

// reportFailure passes the proxy's failure to the cache that is filling
// from it, in the cache's terms, before the proxy writes its error page:
// proxy_cache_use_stale error, timeout and invalid_header depend on it.
func reportFailure(w http.ResponseWriter, _ *http.Request, f proxy.Failure) {
	var cf cache.Failure
	switch f {
	case proxy.FailError:
		cf = cache.FailError
	case proxy.FailTimeout:
		cf = cache.FailTimeout
	case proxy.FailInvalidHeader:
		cf = cache.FailInvalidHeader
	default:
		return
	}
	cache.ReportFailure(w, cf)
}

// options turns a location's merged directives into cache.Options;
// pass is the location's proxy_pass and upstreamURI the request target
// its proxy sends for a request.
func (lc *locConf) options(z *zoneConf, pass proxy.Pass, upstreamURI func(*http.Request) string, l *server.Location) cache.Options {
	proxyHost := pass.ProxyHost()
	lockTimeout := lc.lockTimeout.V
	if lc.lockTimeout.Set && lockTimeout == 0 {
		lockTimeout = -1 // no waiting at all, where the zero value is the default
	}
	// A lock that every request may take over at once holds nobody back:
	// NGINX's "proxy_cache_lock_age 0".
	lock := lc.lock.V && !(lc.lockAge.Set && lc.lockAge.V == 0)
	key := lc.key.V
	keyFunc := func(r *http.Request) string {
		return key.eval(r, vars.FromContext(r.Context()), proxyHost)
	}
	if key == nil {
		// NGINX's default key is not the template it documents: its URI
		// part is the one the proxy sends (ngx_http_proxy_create_key),
		// after rewrites and the location prefix's replacement, so that
		// requests the origin is sent differently (a rewrite that puts a
		// header's value in the URI) never share an entry, and requests
		// it is sent alike do.
		start := keyStart(pass)
		keyFunc = func(r *http.Request) string { return start + upstreamURI(r) }
	}
	o := cache.Options{
		Store:            z.zone.store,
		Stats:            z.zone.stats,
		Key:              keyFunc,
		Methods:          lc.methods.V,
		MinUses:          lc.minUses.V,
		Valid:            lc.valid,
		Lock:             lock,
		LockTimeout:      lockTimeout,
		LockAge:          lc.lockAge.V,
		UseStale:         lc.useStale.V,
		BackgroundUpdate: lc.background.V,
		Revalidate:       lc.revalidate.V,
		IgnoreHeaders:    lc.ignore.V,
		TargetedHeaders:  lc.targeted.Or(cache.DefaultTargetedHeaders),
		Heuristic:        lc.heuristic.Or(true),
		PostReuse:        lc.postReuse.V,
		// SSI processes the whole body it gets: a range of the stored one
		// would come out as a broken fragment (ESI replays slices itself);
		// sub_filter, the addition and image filters change its length,
		// so NGINX offers no ranges of it.
		Transformed: staticmod.AnyType(ssimod.Transformed(l), submod.Unranged(l), additionmod.Unranged(l), imagefiltermod.Unranged(l)),
		MaxRanges:   staticmod.MaxRanges(l),
		// Unset, NGINX's limit is the largest offset: none.
		LimitRangeOffset: lc.maxOffset.Set,
		MaxRangeOffset:   lc.maxOffset.V,
		Logger:           l.Logger(),
		// NGINX's not-modified filter answers the conditions on what its
		// cache serves, with the location's if_modified_since.
		Conditions: conditions(staticmod.IfModifiedSince(l)),
		Error:      server.StoredError,
		Subrequest: func(r *http.Request) bool { return server.SubrequestDepth(r) > 0 },
	}
	// ESI's parse plans are keyed on the stored body a hit serves.
	o.PublishBodyID = esimod.Plans(l)
	if esimod.Surrogate(l) {
		// ESI's surrogate mode around the cache reads Surrogate-Control
		// (content="ESI/1.0") and removes it itself.
		o.PassTargeted = []string{"Surrogate-Control"}
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

// content makes a location with proxy_cache_purge or proxy_cache_status
// that endpoint, and the content of a location that caches and proxies its
// cached proxy. A zone named by proxy_cache must exist wherever it is
// inherited, even where it has no effect.
func content(l *server.Location) (http.Handler, error) {
	lc := server.LocConf[*locConf](l, module)
	var z *zoneConf
	if lc.zone.V != "" {
		var ok bool
		if z, ok = zoneFor(l, lc.zone.V); !ok {
			return nil, conf.Errorf(lc.zoneAt, "\"proxy_cache\" zone %q is unknown", lc.zone.V)
		}
	}
	switch {
	case lc.purge != nil:
		return purgeContent(l, lc)
	case lc.status != nil:
		return statusContent(l, lc.status)
	case z == nil:
		return gatewayContent(l)
	}
	h, err := cachedProxy(l, lc, z)
	if h == nil && err == nil {
		// proxy_cache without proxy_pass: a gateway's cache may apply.
		return gatewayContent(l)
	}
	return h, err
}

func purgeContent(l *server.Location, lc *locConf) (http.Handler, error) {
	p := lc.purge
	z, ok := zoneFor(l, p.zone)
	if !ok {
		return nil, conf.Errorf(p.at, "\"proxy_cache_purge\" zone %q is unknown", p.zone)
	}
	key := lc.key.V
	if key == nil {
		key, _ = compileKey(defaultKeyTemplate)
	}
	return cache.PurgeHandler(cache.PurgeOptions{
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
	var zones []cache.Zone
	if s.zones == nil {
		for _, z := range mc.order {
			zones = append(zones, z.metricsZone())
		}
	}
	for _, name := range s.zones {
		z, ok := mc.zones[name]
		if !ok {
			return nil, conf.Errorf(s.at, "\"proxy_cache_status\" zone %q is unknown", name)
		}
		zones = append(zones, z.metricsZone())
	}
	return cache.MetricsHandler(cache.MetricsOptions{Zones: zones, Allow: s.allow}), nil
}

// conditions maps if_modified_since to the cache's NGINX conditions.
func conditions(m static.ModifiedSince) cache.Conditions {
	switch m {
	case static.ModifiedSinceBefore:
		return cache.ConditionsNGINXBefore
	case static.ModifiedSinceOff:
		return cache.ConditionsNGINXOff
	}
	return cache.ConditionsNGINX
}
