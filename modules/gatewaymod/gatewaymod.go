// Package gatewaymod holds the wiring that the application gateway
// modules share (modules/fastcgimod, uwsgimod and scgimod): the directives
// NGINX's FastCGI, uwsgi and SCGI modules have in common under their own prefix
// (fastcgi_pass, fastcgi_param, the timeouts, hide/pass headers,
// intercept_errors, next_upstream, ...), their settings and inheritance,
// and the proxy.Options a location gets from them. A gateway is the proxy
// speaking another protocol (proxy.Wire): upstream groups, keepalive,
// timeouts and error responses are the proxy's.
//
// It registers no module itself: each gateway module embeds a Conf in its
// location settings and lists Directives(prefix, ...) among its own.
package gatewaymod

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
	"github.com/mosaic-edge/mosaic/internal/gateway"
	"github.com/mosaic-edge/mosaic/modules/proxymod"
	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/server"
)

// Conf is one level's settings of the shared gateway directives.
type Conf struct {
	Pass    *proxy.Pass // *_pass; nil: the level has none
	PassPos string
	// PassTLS is set by a module whose *_pass named its protocol over
	// TLS ("uwsgi_pass suwsgi://..."): the Gateway's TLS settings apply.
	PassTLS bool

	params      []gateway.Param
	ownParams   bool
	passHeaders server.Setting[bool]
	connect     server.Setting[time.Duration]
	read        server.Setting[time.Duration]
	send        server.Setting[time.Duration]
	buffering   server.Setting[bool]
	reqBuffer   server.Setting[bool]
	bufferSize  server.Setting[int64]
	intercept   server.Setting[bool]
	ignoreAbort server.Setting[bool]
	hide        []string
	ownHide     bool
	passHdr     []string
	ownPassHdr  bool
	ignore      server.Setting[[]string]
	next        server.Setting[proxy.NextUpstream]
	nextTries   server.Setting[int]
	nextTimeout server.Setting[time.Duration]
	shared      proxymod.SharedConf // *_bind, *_limit_rate, *_store, ...
	buffers     proxymod.Buffers
}

// Merge fills what c's level does not set from its parent's, as NGINX
// inherits these settings (arrays whole, or not at all).
func (c *Conf) Merge(parent *Conf) {
	if !c.ownParams {
		c.params = parent.params
	}
	if !c.ownHide {
		c.hide = parent.hide
	}
	if !c.ownPassHdr {
		c.passHdr = parent.passHdr
	}
	c.passHeaders.Merge(parent.passHeaders)
	c.connect.Merge(parent.connect)
	c.read.Merge(parent.read)
	c.send.Merge(parent.send)
	c.buffering.Merge(parent.buffering)
	c.reqBuffer.Merge(parent.reqBuffer)
	c.bufferSize.Merge(parent.bufferSize)
	c.intercept.Merge(parent.intercept)
	c.ignoreAbort.Merge(parent.ignoreAbort)
	c.ignore.Merge(parent.ignore)
	c.next.Merge(parent.next)
	c.nextTries.Merge(parent.nextTries)
	c.nextTimeout.Merge(parent.nextTimeout)
	c.shared.Merge(&parent.shared)
	c.buffers.Merge(&parent.buffers)
}

// CheckBuffers checks the merged buffer sizes of prefix's directives
// against each other as NGINX does (proxymod.Buffers.Check): for the
// modules that have *_buffers (FastCGI and uwsgi, not gRPC).
func (c *Conf) CheckBuffers(prefix string) error {
	return c.buffers.Check(prefix, c.bufferSize.Or(4096))
}

// IgnoredHeaders is *_ignore_headers' list, for the cache.
func (c *Conf) IgnoredHeaders() []string { return c.ignore.V }

// Params returns the parameters of the level, for the gateway's Wire.
func (c *Conf) Params() *gateway.Params {
	return gateway.NewParams(c.params, c.passHeaders.Or(true))
}

// BufferSize is *_buffer_size: the most a response head may take
// (NGINX's default, one memory page).
func (c *Conf) BufferSize() int { return int(c.bufferSize.Or(4096)) }

// tuning are the sizes of the response's buffering (proxymod.Buffers):
// *_buffers and *_max_temp_file_size bound the answer read ahead of the
// client, the others are checked and noticed.
var tuning = []string{"buffers", "busy_buffers_size", "max_temp_file_size", "temp_file_write_size"}

// Directives returns the shared directives under prefix ("fastcgi"), for
// a module whose location settings are T, with get returning their Conf.
func Directives[T any](prefix string, get func(T) *Conf) []server.Directive {
	conf := func(c *server.Cmd) *Conf { return get(c.Loc().(T)) }
	flag := func(s func(*Conf) *server.Setting[bool]) func(*server.Cmd) error {
		return func(c *server.Cmd) error { return server.PutFlag(c, s(conf(c))) }
	}
	timeout := func(s func(*Conf) *server.Setting[time.Duration]) func(*server.Cmd) error {
		return func(c *server.Cmd) error { return server.PutTime(c, s(conf(c))) }
	}
	list := func(s func(*Conf) (*[]string, *bool)) func(*server.Cmd) error {
		return func(c *server.Cmd) error {
			l, own := s(conf(c))
			if !*own {
				*l, *own = nil, true
			}
			*l = append(*l, c.Args[0])
			return nil
		}
	}
	ds := []server.Directive{
		{Name: prefix + "_pass", Context: server.CtxLocation | server.CtxLocationIf, MinArgs: 1, MaxArgs: 1,
			Set: func(c *server.Cmd) error { return setPass(c, conf(c), prefix) }},
		{Name: prefix + "_param", Context: server.CtxHTTPAll, MinArgs: 2, MaxArgs: 3,
			Set: func(c *server.Cmd) error { return setParam(c, conf(c)) }},
		{Name: prefix + "_pass_request_headers", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(g *Conf) *server.Setting[bool] { return &g.passHeaders })},
		{Name: prefix + "_connect_timeout", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: timeout(func(g *Conf) *server.Setting[time.Duration] { return &g.connect })},
		{Name: prefix + "_read_timeout", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: timeout(func(g *Conf) *server.Setting[time.Duration] { return &g.read })},
		{Name: prefix + "_send_timeout", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: timeout(func(g *Conf) *server.Setting[time.Duration] { return &g.send })},
		{Name: prefix + "_buffering", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(g *Conf) *server.Setting[bool] { return &g.buffering })},
		{Name: prefix + "_request_buffering", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(g *Conf) *server.Setting[bool] { return &g.reqBuffer })},
		{Name: prefix + "_intercept_errors", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(g *Conf) *server.Setting[bool] { return &g.intercept })},
		{Name: prefix + "_ignore_client_abort", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(g *Conf) *server.Setting[bool] { return &g.ignoreAbort })},
		{Name: prefix + "_buffer_size", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			n, err := c.Size(c.Args[0])
			if err != nil {
				return err
			}
			if n < 1 {
				return c.Invalid(c.Args[0], "it must be positive")
			}
			return server.Put(c, &conf(c).bufferSize, n)
		}},
		{Name: prefix + "_hide_header", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: list(func(g *Conf) (*[]string, *bool) { return &g.hide, &g.ownHide })},
		{Name: prefix + "_pass_header", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: list(func(g *Conf) (*[]string, *bool) { return &g.passHdr, &g.ownPassHdr })},
		{Name: prefix + "_ignore_headers", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited,
			Set: func(c *server.Cmd) error { return setIgnore(c, conf(c)) }},
		{Name: prefix + "_next_upstream", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited,
			Set: func(c *server.Cmd) error { return proxymod.AddNextUpstream(c, &conf(c).next) }},
		{Name: prefix + "_next_upstream_tries", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			n, err := c.Count(c.Args[0], 0)
			if err != nil {
				return err
			}
			return server.Put(c, &conf(c).nextTries, n)
		}},
		{Name: prefix + "_next_upstream_timeout", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: func(c *server.Cmd) error { return proxymod.PutNextTimeout(c, &conf(c).nextTimeout) }},
	}
	ds = append(ds, proxymod.SharedDirectives(prefix, func(l T) *proxymod.SharedConf { return &get(l).shared })...)
	for _, name := range tuning {
		n := 1
		if name == "buffers" {
			n = 2
		}
		ds = append(ds, server.Directive{Name: prefix + "_" + name, Context: server.CtxHTTPAll, MinArgs: n, MaxArgs: n,
			Set: proxymod.TuningSetter(func(c *server.Cmd) *proxymod.Buffers { return &conf(c).buffers })})
	}
	return ds
}

// setPass reads "*_pass host:port | name | unix:/path": a server, or an
// upstream group (shared with proxy_pass's) by that name.
func setPass(c *server.Cmd, g *Conf, scheme string) error {
	if g.Pass != nil {
		return c.Duplicate()
	}
	c.AutoRedirect()
	if strings.Contains(c.Args[0], "$") {
		return c.Errorf("%s with variables is not supported", c.Name)
	}
	p, err := ParsePass(c.Args[0], scheme)
	if err != nil {
		return c.Errorf("%v", err)
	}
	g.Pass, g.PassPos = &p, c.Pos()
	if p.Port != "" {
		// A host and port is a group of the host's addresses, resolved
		// at load; a bare name must be an upstream block's (Options).
		proxymod.AddTarget(c, p)
	}
	return nil
}

// ParsePass reads a gateway's target, which has no scheme and no URI:
// "127.0.0.1:9000", "backend", "unix:/run/php/php-fpm.sock". The Pass's
// Scheme is scheme, which names the protocol in log lines.
func ParsePass(target, scheme string) (proxy.Pass, error) {
	if strings.Contains(target, "://") {
		return proxy.Pass{}, fmt.Errorf("invalid URL prefix in %q", target)
	}
	p, err := proxy.ParsePass("http://" + target)
	if err != nil {
		return proxy.Pass{}, err
	}
	if p.HasURI {
		return proxy.Pass{}, fmt.Errorf("invalid URL %q: a %s target has no URI part", target, scheme)
	}
	p.Scheme = scheme
	return p, nil
}

func setParam(c *server.Cmd, g *Conf) error {
	ifNotEmpty := false
	if len(c.Args) == 3 {
		if c.Args[2] != "if_not_empty" {
			return c.Errorf("invalid parameter %q", c.Args[2])
		}
		ifNotEmpty = true
	}
	t := c.MergeTemplate(c.Args[1])
	if t == nil {
		return nil
	}
	param := gateway.Param{Name: c.Args[0], IfNotEmpty: ifNotEmpty}
	if t.Static() {
		param.Literal = t.Literal()
	} else {
		param.Value = t.Getter()
		if !t.Single() {
			param.Template = t
		}
	}
	if !g.ownParams {
		g.params, g.ownParams = nil, true
	}
	// NGINX sends no HTTP_* parameter whose value is empty in the
	// configuration ("fastcgi_param HTTP_PROXY \"\""): it only keeps back
	// the client's header lines of that name. One empty from a variable
	// is sent.
	param.Hide = len(c.Args[0]) > len("HTTP_") && strings.HasPrefix(c.Args[0], "HTTP_") && c.Args[1] == ""
	g.params = append(g.params, param)
	return nil
}

func setIgnore(c *server.Cmd, g *Conf) error {
	// The names the cache reads, and those that concern the relay.
	if err := cache.CheckIgnoreHeaders(c.Args); err != nil {
		return c.Errorf("%v", err)
	}
	// A bitmask in NGINX: each line at a level adds its fields.
	g.ignore.Put(append(slices.Clone(g.ignore.V), c.Args...))
	return nil
}

// Options returns the proxy.Options of location l for a gateway whose
// settings are g and whose protocol is wire: the target, an upstream
// group it names, the timeouts, buffering, headers, error handling.
func Options(l *server.Location, g *Conf, wire proxy.Wire) (proxy.Options, error) {
	bodyBuf, bodyTemp := l.ClientBodyBuffer()
	opts := proxy.Options{
		Pass:                *g.Pass,
		Wire:                wire,
		DefaultHide:         gateway.HiddenHeaders,
		ConnectTimeout:      g.connect.V,
		ReadTimeout:         g.read.V,
		SendTimeout:         g.send.V,
		BufferSize:          l.OutputBuffers().Size,
		BodyBufferSize:      bodyBuf,
		BodyTempFile:        bodyTemp,
		BodyKeepFile:        l.ClientBodyKeep(),
		BodyAtEnd:           server.AtRequestEnd,
		BufferingOff:        !g.buffering.Or(true),
		RequestBuffering:    g.reqBuffer.Or(true),
		HideHeaders:         g.hide,
		PassHeaders:         g.passHdr,
		NextUpstream:        proxymod.NextUpstreamOf(g.next),
		NextUpstreamTries:   g.nextTries.V,
		NextUpstreamTimeout: g.nextTimeout.V,
		IgnoreClientAbort:   g.ignoreAbort.V,
		ErrorResponse:       server.Error,
		AccelRedirect:       proxymod.AccelRedirect,
		Logger:              l.Logger(),
	}
	if root, _ := l.Root(); root != nil && !root.Static() {
		// An empty $document_root is no bound where the root climbs:
		// "$document_root$fastcgi_script_name" is then the URI, a
		// script anywhere on the disk. The application is not asked.
		opts.Refuse = func(r *http.Request) int {
			if !l.RootClimbs(r) {
				return 0
			}
			l.Logger().Error(fmt.Sprintf("%q refused: the root's variables climb with \"..\"", r.URL.Path))
			return http.StatusNotFound
		}
	}
	g.buffers.Apply(&opts)
	if err := g.shared.Apply(l, &opts); err != nil {
		return proxy.Options{}, err
	}
	opts.IgnoreAccel(g.ignore.V)
	if g.intercept.V {
		opts.Intercept = func(_ *http.Request, status int) bool {
			return status >= 300 && l.HasErrorPage(status)
		}
	}
	up, err := proxymod.PassUpstream(l.Server().Config(), *g.Pass)
	switch {
	case err != nil:
		return proxy.Options{}, proxymod.PosError(g.PassPos, err.Error())
	case up == nil && g.Pass.Port == "" && g.Pass.Unix == "":
		return proxy.Options{}, proxymod.PosError(g.PassPos, fmt.Sprintf("no port in upstream %q", g.Pass.Host))
	}
	opts.Upstream = up
	return opts, nil
}

// WrapStore returns h behind the *_store writer of location l, whose
// gateway settings are g, or h when l does not store.
func (c *Conf) WrapStore(l *server.Location, h http.Handler) http.Handler {
	return c.shared.WrapStore(l, c.Pass.Scheme, h)
}

// NextUpstreamSetting is the level's *_next_upstream, for a module whose
// directive names its conditions otherwise (memcached).
func (c *Conf) NextUpstreamSetting() *server.Setting[proxy.NextUpstream] { return &c.next }
