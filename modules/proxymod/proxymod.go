// Package proxymod wires the proxy library to the server: the upstream
// block and its server, keepalive, keepalive_timeout and
// keepalive_requests lines, proxy_pass and the proxy_* directives of a
// location, their inheritance between levels, and the "proxy" content
// handler that a location with proxy_pass gets.
//
// Another module that serves a location through the proxy (the cache,
// modules/cachemod) reads the location's proxy settings with
// LocationOptions, changes what it must, and builds the handler with
// NewHandler: the proxy has no hooks for other modules to set.
package proxymod

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/internal/resolver"
	"github.com/mosaic-edge/mosaic/modules/throttlemod"
	"github.com/mosaic-edge/mosaic/proxy"
	core "github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/vars"
)

// mainConf holds the upstream blocks of a configuration, and the client
// certificates loaded for it.
type mainConf struct {
	upstreams   map[string]*upstreamConf   // by lowercased name (upstreamNamed)
	targets     map[string]*implicitTarget // *_pass hosts and ports (AddTarget), by targetKey
	targetOrder []*implicitTarget
	order       []*upstreamConf
	keyPairs    map[keyPairID]*tls.Certificate // loaded once, shared by the locations inheriting them
}

type upstreamConf struct {
	name    string
	servers []proxy.Server
	// Each line once per block, as in NGINX ("is duplicate"); unset
	// takes NGINX's default, and 0 is a value (no connection reused).
	keepalive         core.Setting[int]
	keepaliveTimeout  core.Setting[time.Duration]
	keepaliveRequests core.Setting[int]
	keepaliveTime     core.Setting[time.Duration]
	method            proxy.Method
	methodSet         bool
	hashKey           func(*http.Request) string
	zone              string // accepted; see setZone
	zoneSize          int64  // the zone line's size; 0 when it gave none
	built             *proxy.Upstream
	pos               string
}

// locConf holds the proxy directives of one level.
type locConf struct {
	pass    *proxy.Pass
	passVar *vars.Template // a proxy_pass with variables, evaluated per request
	passPos string
	// passPrefix is the prefix of the location that holds a proxy_pass
	// with a URI part: the replacement of its default proxy_redirect.
	passPrefix  string
	resolver    core.Setting[*resolver.Resolver]
	resolveTime core.Setting[time.Duration] // resolver_timeout
	headers     []proxy.Header
	ownHeaders  bool
	// dropLength: the level's proxy_set_header lines include
	// "Content-Length """ (proxy.Options.DropLength).
	dropLength  bool
	httpVersion core.Setting[string]
	connect     core.Setting[time.Duration]
	read        core.Setting[time.Duration]
	send        core.Setting[time.Duration]
	buffering   core.Setting[bool]
	redirects   ruleList[proxy.Redirect] // proxy_redirect; see redirect.go
	hide        []string
	ownHide     bool
	passHdr     []string
	ownPassHdr  bool

	ssl TLSConf // proxy_ssl_*; see tls.go

	// proxy_next_upstream*; see balance.go.
	next        core.Setting[proxy.NextUpstream]
	nextTries   core.Setting[int]
	nextTimeout core.Setting[time.Duration]

	// proxy_bind, proxy_socket_keepalive, proxy_limit_rate,
	// proxy_force_ranges, proxy_store*; see shared.go.
	shared SharedConf
}

var module = &core.Module{
	Name: "proxy",
	NewMain: func() any {
		return &mainConf{upstreams: map[string]*upstreamConf{}, targets: map[string]*implicitTarget{}, keyPairs: map[keyPairID]*tls.Certificate{}}
	},
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		if !child.ownHeaders {
			child.headers, child.dropLength = parent.headers, parent.dropLength
		}
		if !child.ownHide {
			child.hide = parent.hide
		}
		if !child.ownPassHdr {
			child.passHdr = parent.passHdr
		}
		child.httpVersion.Merge(parent.httpVersion)
		child.connect.Merge(parent.connect)
		child.read.Merge(parent.read)
		child.send.Merge(parent.send)
		child.buffering.Merge(parent.buffering)
		child.redirects.merge(parent.inheritedRedirects())
		child.ssl.Merge(&parent.ssl)
		child.resolver.Merge(parent.resolver)
		child.resolveTime.Merge(parent.resolveTime)
		child.next.Merge(parent.next)
		child.nextTries.Merge(parent.nextTries)
		child.nextTimeout.Merge(parent.nextTimeout)
		child.shared.Merge(&parent.shared)
		return nil
	},
}

func init() {
	timeout := core.SetTime[*locConf]
	flag := core.SetFlag[*locConf]
	module.Directives = []core.Directive{
		{Name: "upstream", Context: core.CtxHTTP, Block: true, MinArgs: 1, MaxArgs: 1, Set: setUpstream},
		{Name: "server", Context: core.CtxUpstream, MinArgs: 1, MaxArgs: core.Unlimited, Set: setUpstreamServer},
		{Name: "keepalive", Context: core.CtxUpstream, MinArgs: 1, MaxArgs: 1, Set: func(c *core.Cmd) error {
			n, err := c.Int(c.Args[0], 1, 1<<20)
			if err != nil {
				return err
			}
			return core.Put(c, &c.BlockState().(*upstreamConf).keepalive, n)
		}},
		{Name: "keepalive_timeout", Context: core.CtxUpstream, MinArgs: 1, MaxArgs: 1, Set: func(c *core.Cmd) error {
			d, err := c.Duration(c.Args[0])
			if err != nil {
				return err
			}
			return core.Put(c, &c.BlockState().(*upstreamConf).keepaliveTimeout, d)
		}},
		{Name: "keepalive_requests", Context: core.CtxUpstream, MinArgs: 1, MaxArgs: 1, Set: func(c *core.Cmd) error {
			// 0 is valid, as in NGINX: no connection is kept; and, as
			// NGINX's ngx_conf_set_num_slot, any larger number loads.
			n, err := c.Count(c.Args[0], 0)
			if err != nil {
				return err
			}
			return core.Put(c, &c.BlockState().(*upstreamConf).keepaliveRequests, n)
		}},
		{Name: "proxy_pass", Context: core.CtxLocation | core.CtxLocationIf | core.CtxLimitExcept, MinArgs: 1, MaxArgs: 1, Set: setPass},
		{Name: "proxy_set_header", Context: core.CtxHTTPAll, MinArgs: 2, MaxArgs: 2, Set: setProxyHeader},
		{Name: "resolver", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: core.Unlimited, Set: setResolver},
		// Not a timeout of PutTime's kind: NGINX arms no timer for a
		// resolver_timeout of 0 (ngx_resolver_set_timeout), so that a
		// lookup waits for the answer; mosaic's then waits as long as the
		// resolver lets one (internal/resolver's 30 seconds).
		{Name: "resolver_timeout", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *core.Cmd) error {
			d, err := c.Duration(c.Args[0])
			if err != nil {
				return err
			}
			return core.Put(c, &c.Loc().(*locConf).resolveTime, d)
		}},
		{Name: "proxy_http_version", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *core.Cmd) error {
			if c.Args[0] != "1.0" && c.Args[0] != "1.1" {
				return c.Invalid(c.Args[0], `it must be "1.0" or "1.1"`)
			}
			return core.Put(c, &c.Loc().(*locConf).httpVersion, c.Args[0])
		}},
		{Name: "proxy_connect_timeout", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: timeout(func(l *locConf) *core.Setting[time.Duration] { return &l.connect })},
		{Name: "proxy_read_timeout", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: timeout(func(l *locConf) *core.Setting[time.Duration] { return &l.read })},
		{Name: "proxy_send_timeout", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: timeout(func(l *locConf) *core.Setting[time.Duration] { return &l.send })},
		{Name: "proxy_buffering", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *locConf) *core.Setting[bool] { return &l.buffering })},
		{Name: "proxy_redirect", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 2, Set: setRedirect},
		{Name: "proxy_hide_header", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *core.Cmd) error {
			lc := c.Loc().(*locConf)
			if !lc.ownHide {
				lc.hide, lc.ownHide = nil, true
			}
			lc.hide = append(lc.hide, c.Args[0])
			return nil
		}},
		{Name: "proxy_pass_header", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *core.Cmd) error {
			lc := c.Loc().(*locConf)
			if !lc.ownPassHdr {
				lc.passHdr, lc.ownPassHdr = nil, true
			}
			lc.passHdr = append(lc.passHdr, c.Args[0])
			return nil
		}},
	}
	module.Directives = append(module.Directives, TLSDirectives("proxy", func(l *locConf) *TLSConf { return &l.ssl })...)
	module.Directives = append(module.Directives, balanceDirectives()...)
	module.Directives = append(module.Directives, SharedDirectives("proxy", func(l *locConf) *SharedConf { return &l.shared })...)
	module.InitMain = initMain
	module.Content = content
	module.Close = func(cfg *core.Config) error {
		for _, u := range core.MainConf[*mainConf](cfg, module).order {
			if u.built != nil {
				u.built.CloseIdle()
			}
		}
		return nil
	}
	// NGINX computes $proxy_add_x_forwarded_for in any request, one that
	// is not proxied included; a proxied one reads what the proxy
	// published.
	vars.Register("proxy_add_x_forwarded_for", func(r *http.Request, st *vars.State) string {
		if v, ok := st.Get("proxy_add_x_forwarded_for"); ok {
			return v
		}
		return proxy.ForwardedFor(r)
	})
	// $proxy_port is the location's, as NGINX's proxy context is: an
	// internal redirect from a proxied location leaves none (a FastCGI or
	// static location it goes to has none in NGINX). $proxy_host stays
	// for the status module's metrics.
	vars.RegisterLocated("proxy_port")
	for _, n := range []string{"proxy_host", "upstream_addr",
		"upstream_status", "upstream_response_time", "upstream_connect_time", "upstream_header_time",
		"upstream_response_length", "upstream_bytes_received", "upstream_bytes_sent"} {
		vars.RegisterState(n)
	}
	core.Register(module)
}

func setUpstream(c *core.Cmd) error {
	mc := c.Main().(*mainConf)
	name := c.Args[0]
	if mc.upstreamNamed(name) != nil {
		return c.Errorf("duplicate upstream %q", name)
	}
	u := &upstreamConf{name: name, pos: c.Pos()}
	if err := c.Walk(core.CtxUpstream, c.Block, u); err != nil {
		return err
	}
	if len(u.servers) == 0 {
		return c.Errorf("no servers are inside upstream")
	}
	mc.upstreams[strings.ToLower(name)] = u
	mc.order = append(mc.order, u)
	return nil
}

func setUpstreamServer(c *core.Cmd) error {
	u := c.BlockState().(*upstreamConf)
	s, err := parseServer(c.Args)
	if err != nil {
		return c.Errorf("%v", err)
	}
	// As in NGINX, the method set so far decides: a hash, ip_hash or
	// random group has no backup servers.
	if s.Backup && !u.method.SupportsBackup() {
		return c.Errorf("balancing method does not support parameter \"backup\"")
	}
	for _, a := range c.Args[1:] {
		if strings.HasPrefix(a, "slow_start=") {
			c.Notice("ignoring \"slow_start\": a server that returns to rotation gets its full weight at once")
		}
	}
	// As in NGINX, a host name is resolved as the line is read: each of
	// its addresses becomes a server with the line's parameters, and a
	// name without any stops the configuration from loading.
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	resolved, err := proxy.ResolveServers(ctx, []proxy.Server{s})
	if err != nil {
		return c.Errorf("%v", err)
	}
	u.servers = append(u.servers, resolved...)
	return nil
}

// parseServer reads the arguments of an upstream block's server line, such
// as ["127.0.0.1:8080", "weight=3", "max_fails=2", "fail_timeout=30s",
// "backup"].
func parseServer(args []string) (proxy.Server, error) {
	if len(args) == 0 {
		return proxy.Server{}, errors.New("server needs an address")
	}
	s := proxy.Server{Addr: args[0], Weight: 1, MaxFails: 1, FailTimeout: proxy.DefaultFailTimeout}
	for _, a := range args[1:] {
		name, val, hasVal := strings.Cut(a, "=")
		var err error
		switch {
		case name == "weight" && hasVal:
			s.Weight, err = strconv.Atoi(val)
			if err == nil && s.Weight < 1 {
				err = errors.New("must be at least 1")
			}
		case name == "max_fails" && hasVal:
			s.MaxFails, err = strconv.Atoi(val)
			if err == nil && s.MaxFails < 0 {
				err = errors.New("must not be negative")
			}
		case name == "fail_timeout" && hasVal:
			// NGINX counts it in whole seconds, without the unit "ms",
			// and 0 is out of rotation for the rest of the second only
			// (proxy.NoFailTimeout).
			if s.FailTimeout, err = core.ParseSeconds(val); err == nil && s.FailTimeout == 0 {
				s.FailTimeout = proxy.NoFailTimeout
			}
		case name == "max_conns" && hasVal:
			s.MaxConns, err = strconv.Atoi(val)
			if err == nil && s.MaxConns < 0 {
				err = errors.New("must not be negative")
			}
		case name == "slow_start" && hasVal:
			// Accepted with a notice (setUpstreamServer): NGINX's
			// commercial version ramps a recovered server's weight up.
			_, err = core.ParseDuration(val)
		case a == "backup":
			s.Backup = true
		case a == "down":
			s.Down = true
		default:
			return proxy.Server{}, fmt.Errorf("invalid parameter %q", a)
		}
		if err != nil {
			return proxy.Server{}, fmt.Errorf("invalid parameter %q: %w", a, err)
		}
	}
	return s, nil
}

func setPass(c *core.Cmd) error {
	lc := c.Loc().(*locConf)
	if lc.pass != nil || lc.passVar != nil {
		return c.Duplicate()
	}
	c.AutoRedirect()
	if strings.Contains(c.Args[0], "$") {
		t, err := c.Template(c.Args[0])
		if err != nil {
			return err
		}
		if !t.Static() {
			// Evaluated per request (dynamic.go); a URI part in the value
			// is sent as the whole request target.
			lc.passVar, lc.passPos = t, c.Pos()
			return nil
		}
	}
	p, err := proxy.ParsePass(c.Args[0])
	if err != nil {
		return c.Errorf("%v", err)
	}
	if l := c.Location(); l != nil && p.HasURI && (l.IsRegex() || l.IsNamed() || l.IsImplicit()) {
		return c.Errorf("\"proxy_pass\" cannot have URI part in location given by regular expression, or inside named location, or inside \"if\" statement")
	}
	lc.pass, lc.passPos = &p, c.Pos()
	if l := c.Location(); l != nil && p.HasURI {
		lc.passPrefix = l.Prefix()
	}
	AddTarget(c, p)
	return nil
}

func setProxyHeader(c *core.Cmd) error {
	lc := c.Loc().(*locConf)
	if !lc.ownHeaders {
		lc.headers, lc.ownHeaders = nil, true
	}
	if c.Args[1] == "" && strings.EqualFold(c.Args[0], "Content-Length") {
		// NGINX's idiom beside proxy_pass_request_body off (and in
		// auth_request locations): no length for a body that is not
		// sent. The proxy frames a body it sends itself, so only the
		// length it would announce without one is dropped.
		lc.dropLength = true
		return nil
	}
	t := c.MergeTemplate(c.Args[1])
	if t == nil {
		return nil
	}
	lc.headers = append(lc.headers, proxy.Header{Name: c.Args[0], Value: templateFunc(t)})
	return nil
}

// templateValue compiles an argument with variables into a function of
// the request; a constant is returned as is, without evaluation.
func templateValue(c *core.Cmd, arg string) (func(*http.Request) string, error) {
	t, err := c.Template(arg)
	if err != nil {
		return nil, err
	}
	return templateFunc(t), nil
}

// templateFunc is t as a function of the request; a constant is returned
// as is, without evaluation.
func templateFunc(t *vars.Template) func(*http.Request) string {
	if t.Static() {
		v := t.Literal()
		return func(*http.Request) string { return v }
	}
	return t.Eval
}

// initMain builds each upstream group once; locations share them.
func initMain(cfg *core.Config) error {
	mc := core.MainConf[*mainConf](cfg, module)
	ups := mc.order
	// A zone named without a size shares one that another upstream
	// sizes; NGINX refuses one that no line sizes.
	sized := map[string]bool{}
	for _, u := range ups {
		sized[u.zone] = sized[u.zone] || u.zoneSize > 0
	}
	for _, u := range ups {
		if u.zone != "" && !sized[u.zone] {
			return fmt.Errorf("zero size shared memory zone %q of upstream %q in %s", u.zone, u.name, u.pos)
		}
	}
	for _, u := range ups {
		up, err := proxy.NewUpstream(u.name, u.servers, u.keepalive.V)
		if err != nil {
			return fmt.Errorf("upstream %q in %s: %w", u.name, u.pos, err)
		}
		up.KeepaliveTimeout = u.keepaliveTimeout.Or(up.KeepaliveTimeout)
		up.KeepaliveRequests = u.keepaliveRequests.Or(up.KeepaliveRequests)
		up.KeepaliveTime = u.keepaliveTime.Or(up.KeepaliveTime)
		if err := up.SetMethod(u.method, u.hashKey); err != nil {
			return fmt.Errorf("upstream %q in %s: %w", u.name, u.pos, err)
		}
		u.built = up
	}
	return mc.buildImplicit()
}

func content(l *core.Location) (http.Handler, error) {
	if pc := passConf(l); pc.passVar != nil {
		h, err := newDynamicPass(l, pc)
		if err != nil || h == nil {
			return h, err
		}
		return wrapStore(l, wrapRequest(l, h)), nil
	}
	opts, ok, err := LocationOptions(l)
	if err != nil || !ok {
		return nil, err
	}
	h, err := NewHandler(l, opts)
	if err != nil {
		return nil, err // not h: a nil *proxy.Handler is a non-nil http.Handler
	}
	return wrapStore(l, wrapRequest(l, h)), nil
}

// LocationOptions returns the proxy.Options that the merged directives of
// location l configure, and false when l has no proxy_pass. A module that
// serves l through the proxy adjusts them and builds the handler with
// NewHandler; the slices in them are shared with l's settings and must be
// copied, not appended to.
func LocationOptions(l *core.Location) (proxy.Options, bool, error) {
	pass := passOf(l)
	if pass == nil {
		return proxy.Options{}, false, nil
	}
	return locationOptions(l, *pass, pass.Scheme == "https")
}

// locationOptions is LocationOptions for a given target; withTLS asks for
// the proxy_ssl_* settings, which a proxy_pass with variables needs
// whatever scheme its value will have.
func locationOptions(l *core.Location, pass proxy.Pass, withTLS bool) (proxy.Options, bool, error) {
	lc := core.LocConf[*locConf](l, module)
	bodyBuf, bodyTemp := l.ClientBodyBuffer()
	opts := proxy.Options{
		Pass:           pass,
		LocationPrefix: l.Prefix(),
		PrefixLost:     core.PrefixLost,
		SetHeaders:     lc.headers,
		HTTPVersion:    lc.httpVersion.Or("1.0"),
		ConnectTimeout: lc.connect.V,
		ReadTimeout:    lc.read.V,
		SendTimeout:    lc.send.V,
		BufferSize:     l.OutputBuffers().Size,
		BodyBufferSize: bodyBuf,
		BodyTempFile:   bodyTemp,
		BodyKeepFile:   l.ClientBodyKeep(),
		BodyAtEnd:      core.AtRequestEnd,
		DropLength:     lc.dropLength,
		BufferingOff:   !lc.buffering.Or(true),
		RedirectOff:    lc.redirects.off,
		Redirects:      lc.redirects.rules,
		// A Location that proxy_redirect rewrote into a path becomes
		// absolute as the core's absolute_redirect says.
		AbsoluteRedirect:    core.AbsoluteRedirect,
		HideHeaders:         lc.hide,
		PassHeaders:         lc.passHdr,
		NextUpstream:        NextUpstreamOf(lc.next),
		NextUpstreamTries:   lc.nextTries.V,
		NextUpstreamTimeout: lc.nextTimeout.V,
		ErrorResponse:       core.Error,
		AccelRedirect:       AccelRedirect,
		Logger:              l.Logger(),
	}
	if IgnoredHeaders != nil {
		opts.IgnoreAccel(IgnoredHeaders(l))
	}
	applyRequestOptions(l, &opts)
	if err := lc.shared.Apply(l, &opts); err != nil {
		return proxy.Options{}, false, err
	}
	// proxy_pass is allowed in locations only, which belong to a server.
	mc := core.MainConf[*mainConf](l.Server().Config(), module)
	if withTLS {
		t, err := TLSOptions(l, &lc.ssl, "proxy")
		if err != nil {
			return proxy.Options{}, false, err
		}
		opts.TLS = t
	}
	up, err := mc.passUpstream(pass)
	if err != nil {
		return proxy.Options{}, false, PosError(passConf(l).passPos, err.Error())
	}
	opts.Upstream = up
	return opts, true, nil
}

// passOf returns the proxy_pass of location l: its own, or for an "if"
// block without one, its location's, which NGINX's "if" inherits (the
// other proxy_* settings are inherited by the usual merge).
// IgnoredHeaders returns proxy_ignore_headers of a location. The cache's
// module, which owns the directive, sets it; nil: none ignored.
var IgnoredHeaders func(l *core.Location) []string

// AccelRedirect is proxy.Options.AccelRedirect for the server: an
// upstream's X-Accel-Redirect becomes the core's internal redirect (to a
// named location, or to a path with the arguments it came with), which
// may reach an internal location. The gateways use it too.
func AccelRedirect(w http.ResponseWriter, r *http.Request, a *proxy.Accel) {
	if a.Refused {
		core.Error(a.Writer(w), r, http.StatusNotFound)
		return
	}
	core.InternalRedirectKeepArgs(a.Writer(w), a.Request(r), a.URI)
}

func passOf(l *core.Location) *proxy.Pass { return passConf(l).pass }

// HasVariablePass reports whether location l is served by a proxy_pass
// with variables, for which LocationOptions has no fixed target.
func HasVariablePass(l *core.Location) bool { return passConf(l).passVar != nil }

// passConf returns the settings of the level whose proxy_pass (fixed or
// with variables) serves l, as passOf walks.
func passConf(l *core.Location) *locConf {
	for {
		lc := core.LocConf[*locConf](l, module)
		if lc.pass != nil || lc.passVar != nil || !l.IsImplicit() {
			return lc
		}
		l = l.Parent()
	}
}

// NewHandler builds the proxy of location l from opts (LocationOptions,
// adjusted), naming l's proxy_pass directive in the error.
func NewHandler(l *core.Location, opts proxy.Options) (*proxy.Handler, error) {
	h, err := proxy.New(opts)
	if err != nil {
		pos := core.LocConf[*locConf](l, module).passPos
		return nil, fmt.Errorf("proxy_pass in %s: %w", pos, err)
	}
	if !opts.IgnoreAccelLimitRate {
		throttlemod.MayLimit(l.Server().Config())
	}
	return h, nil
}
