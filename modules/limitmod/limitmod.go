// Package limitmod wires the limit library to the server: NGINX's
// limit_req_zone, limit_req, limit_conn_zone, limit_conn and their
// settings, and the "limit" preaccess handler of every location that
// has limits.
package limitmod

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/internal/shared"
	"github.com/mosaic-edge/mosaic/limit"
	"github.com/mosaic-edge/mosaic/modules/statusmod"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/vars"
)

// zoneKind tells the two kinds of zone apart; they share one name space,
// as NGINX's shared memory zones do.
type zoneKind string

const (
	kindReq  zoneKind = "limit_req_zone"
	kindConn zoneKind = "limit_conn_zone"
)

// zoneConf is one limit_req_zone or limit_conn_zone directive.
type zoneConf struct {
	kind  zoneKind
	name  string
	key   *vars.Template
	size  int64
	rate  limit.Rate
	redis string
	// redisTimeout bounds each Redis operation (redis_timeout=);
	// 0 leaves limit.DefaultRedisTimeout.
	redisTimeout time.Duration
	pos          *conf.Directive

	shared *sharedZone // acquired by InitMain
	req    *limit.ReqZone
	conn   *limit.ConnZone
}

type mainConf struct {
	zones map[string]*zoneConf
	order []*zoneConf
	refs  []zoneRef // every zone= named by limit_req and limit_conn
}

// zoneRef is a zone named by limit_req or limit_conn, checked once the
// whole configuration is read (a zone may be declared after its use).
type zoneRef struct {
	kind zoneKind
	name string
	d    *conf.Directive
}

type reqRef struct {
	zone  string
	burst int
	delay int
	main  *mainConf
}

type connRef struct {
	zone string
	max  int
	main *mainConf
}

// locConf is one level's settings. The limit_req (limit_conn) lines of a
// level replace, as a whole, those it would inherit, as in NGINX.
type locConf struct {
	req, conn             []any // *reqRef, *connRef
	ownReq, ownConn       bool
	reqLevel, connLevel   server.Setting[slog.Level]
	reqStatus, connStatus server.Setting[int]
	reqDryRun, connDryRun server.Setting[bool]
}

var module = &server.Module{
	Name: "limit",
	Directives: []server.Directive{
		{Name: "limit_req_zone", Context: server.CtxHTTP, MinArgs: 3, MaxArgs: 5, Set: setZone(kindReq)},
		{Name: "limit_req", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 3, Set: setReq},
		{Name: "limit_req_log_level", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setLevel(func(l *locConf) *server.Setting[slog.Level] { return &l.reqLevel })},
		{Name: "limit_req_status", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setStatus(func(l *locConf) *server.Setting[int] { return &l.reqStatus })},
		{Name: "limit_req_dry_run", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: server.SetFlag(func(l *locConf) *server.Setting[bool] { return &l.reqDryRun })},
		{Name: "limit_conn_zone", Context: server.CtxHTTP, MinArgs: 2, MaxArgs: 4, Set: setZone(kindConn)},
		{Name: "limit_conn", Context: server.CtxHTTPAll, MinArgs: 2, MaxArgs: 2, Set: setConn},
		{Name: "limit_conn_log_level", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setLevel(func(l *locConf) *server.Setting[slog.Level] { return &l.connLevel })},
		{Name: "limit_conn_status", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setStatus(func(l *locConf) *server.Setting[int] { return &l.connStatus })},
		{Name: "limit_conn_dry_run", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: server.SetFlag(func(l *locConf) *server.Setting[bool] { return &l.connDryRun })},
	},
	NewLoc:  func() any { return &locConf{} },
	NewMain: func() any { return &mainConf{zones: map[string]*zoneConf{}} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		if !child.ownReq {
			child.req = parent.req
		}
		if !child.ownConn {
			child.conn = parent.conn
		}
		child.reqLevel.Merge(parent.reqLevel)
		child.connLevel.Merge(parent.connLevel)
		child.reqStatus.Merge(parent.reqStatus)
		child.connStatus.Merge(parent.connStatus)
		child.reqDryRun.Merge(parent.reqDryRun)
		child.connDryRun.Merge(parent.connDryRun)
		return nil
	},
}

func init() {
	vars.RegisterState(limit.VarReqStatus)
	vars.RegisterState(limit.VarConnStatus)
	// Set here, not in the literal: they read module.
	module.InitMain, module.Preaccess = initMain, preaccess
	server.Register(module)
}

// isRedisURL tells the argument that puts a zone in Redis (mosaic's
// extension): a redis://, rediss://, valkey:// or valkeys:// URL.
func isRedisURL(s string) bool {
	for _, p := range []string{"redis://", "rediss://", "valkey://", "valkeys://"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// setZone reads "limit_req_zone key zone=name:size rate=rate [URL
// [redis_timeout=time]]" or "limit_conn_zone key zone=name:size [URL
// [redis_timeout=time]]".
func setZone(kind zoneKind) func(*server.Cmd) error {
	return func(c *server.Cmd) error {
		key, err := c.Template(c.Args[0])
		if err != nil {
			return err
		}
		// NGINX takes exactly 3 (2) arguments; MaxArgs leaves room for
		// mosaic's own, which alone may come beyond that count.
		own := 0
		for _, a := range c.Args[1:] {
			if isRedisURL(a) || strings.HasPrefix(a, "redis_timeout=") {
				own++
			}
		}
		if n := len(c.Args) - own; (kind == kindReq && n > 3) || (kind == kindConn && n > 2) {
			return c.Errorf("invalid number of arguments in %q directive", c.Name)
		}
		z := &zoneConf{kind: kind, key: key, rate: 1000, pos: c.Directive}
		for _, a := range c.Args[1:] {
			switch {
			case strings.HasPrefix(a, "zone="):
				name, size, ok := strings.Cut(a[5:], ":")
				if !ok {
					return c.Errorf("invalid zone size %q", a)
				}
				n, err := server.ParseSize(size)
				if err != nil {
					return c.Errorf("invalid zone size %q", a)
				}
				if n < limit.MinZoneSize {
					return c.Errorf("zone %q is too small", a)
				}
				z.name, z.size = name, n
			case kind == kindReq && strings.HasPrefix(a, "rate="):
				r, err := limit.ParseRate(a[5:])
				if err != nil {
					return c.Errorf("invalid rate %q", a)
				}
				z.rate = r
			case isRedisURL(a) && z.redis == "":
				z.redis = a
			case strings.HasPrefix(a, "redis_timeout="):
				// mosaic's own, as proxy_cache_path's: how long a
				// request waits for Redis before its zone limits it
				// locally (a Redis across a network may need more
				// than the default).
				// Given twice it is refused, as NGINX's count of
				// arguments refuses any of its own given twice here.
				if z.redisTimeout > 0 {
					return c.Errorf("duplicate redis_timeout value %q", a)
				}
				d, err := conf.ParseTime(a[len("redis_timeout="):])
				if err != nil || d <= 0 {
					return c.Errorf("invalid redis_timeout value %q", a)
				}
				z.redisTimeout = d
			default:
				return c.Errorf("invalid parameter %q", a)
			}
		}
		if z.name == "" {
			return c.Errorf("%q must have \"zone\" parameter", c.Name)
		}
		if z.redisTimeout > 0 && z.redis == "" {
			return c.Errorf("\"redis_timeout\" applies to a zone in Redis")
		}
		m := c.Main().(*mainConf)
		if o, ok := m.zones[z.name]; ok {
			if o.kind != kind {
				return c.Errorf("the shared memory zone %q is already declared for a different use", z.name)
			}
			return c.Errorf("%s %q is already bound to key %q", kind, z.name, o.key.String())
		}
		m.zones[z.name] = z
		m.order = append(m.order, z)
		return nil
	}
}

// setReq reads "limit_req zone=name [burst=n] [nodelay | delay=n]".
func setReq(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	m := c.Main().(*mainConf)
	ref := &reqRef{main: m}
	for _, a := range c.Args {
		switch {
		case strings.HasPrefix(a, "zone="):
			ref.zone = a[5:]
		case strings.HasPrefix(a, "burst="):
			n, ok := positive(a[6:])
			if !ok {
				return c.Errorf("invalid burst value %q", a)
			}
			ref.burst = n
		case strings.HasPrefix(a, "delay="):
			n, ok := positive(a[6:])
			if !ok {
				return c.Errorf("invalid delay value %q", a)
			}
			ref.delay = n
		case a == "nodelay":
			ref.delay = limit.NoDelay
		default:
			return c.Errorf("invalid parameter %q", a)
		}
	}
	if ref.zone == "" {
		return c.Errorf("%q must have \"zone\" parameter", c.Name)
	}
	if !lc.ownReq {
		lc.ownReq, lc.req = true, nil
	}
	for _, o := range lc.req {
		if o.(*reqRef).zone == ref.zone {
			return c.Errorf("%q directive is duplicate", c.Name)
		}
	}
	lc.req = append(lc.req, ref)
	m.refs = append(m.refs, zoneRef{kind: kindReq, name: ref.zone, d: c.Directive})
	return nil
}

// setConn reads "limit_conn zone number".
func setConn(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	m := c.Main().(*mainConf)
	if !lc.ownConn {
		lc.ownConn, lc.conn = true, nil
	}
	for _, o := range lc.conn {
		if o.(*connRef).zone == c.Args[0] {
			return c.Errorf("%q directive is duplicate", c.Name)
		}
	}
	n, ok := positive(c.Args[1])
	if !ok {
		return c.Errorf("invalid number of connections %q", c.Args[1])
	}
	if n > 65535 {
		return c.Errorf("connection limit must be less 65536")
	}
	lc.conn = append(lc.conn, &connRef{zone: c.Args[0], max: n, main: m})
	m.refs = append(m.refs, zoneRef{kind: kindConn, name: c.Args[0], d: c.Directive})
	return nil
}

// positive reads a number above 0 as NGINX's ngx_atoi does (digits
// only, up to int64's limit), held at server.MaxCount: a burst, a delay
// or a limit that large is reached by nothing, and burst*1000 stays far
// from overflowing.
func positive(s string) (int, bool) {
	n, ok := conf.Atoi(s)
	return int(min(n, server.MaxCount)), ok && n > 0
}

// levels are the levels limit_*_log_level accepts.
var levels = map[string]slog.Level{
	"info": slog.LevelInfo, "notice": limit.LevelNotice, "warn": slog.LevelWarn, "error": slog.LevelError,
}

func setLevel(get func(*locConf) *server.Setting[slog.Level]) func(*server.Cmd) error {
	return func(c *server.Cmd) error {
		l, ok := levels[strings.ToLower(c.Args[0])] // NGINX's enum values ignore case
		if !ok {
			return c.Errorf("invalid value %q", c.Args[0])
		}
		return server.Put(c, get(c.Loc().(*locConf)), l)
	}
}

func setStatus(get func(*locConf) *server.Setting[int]) func(*server.Cmd) error {
	return func(c *server.Cmd) error {
		n, ok := positive(c.Args[0])
		if !ok {
			return c.Errorf("%q directive invalid number", c.Name)
		}
		if n < 400 || n > 599 {
			return c.Errorf("value must be between 400 and 599")
		}
		return server.Put(c, get(c.Loc().(*locConf)), n)
	}
}

// initMain checks that every zone named exists with the right kind, and
// opens the zones (or takes over those of the configuration before, for
// a reload).
func initMain(cfg *server.Config) error {
	m := server.MainConf[*mainConf](cfg, module)
	for _, r := range m.refs {
		z, ok := m.zones[r.name]
		if !ok {
			return conf.Errorf(r.d, "zero size shared memory zone %q", r.name)
		}
		if z.kind != r.kind {
			return conf.Errorf(r.d, "the shared memory zone %q is already declared for a different use", r.name)
		}
	}
	for _, z := range m.order {
		sz, err := acquireZone(z, cfg.Logger)
		if err != nil {
			return conf.Errorf(z.pos, "%v", err)
		}
		z.shared = sz
		cfg.OnClose(func() error { return releaseZone(sz) })
		key := z.key.Eval
		if sz.req != nil {
			z.req = sz.req.WithKey(key)
		} else {
			z.conn = sz.conn.WithKey(key)
		}
	}
	return nil
}

// preaccess puts the location's limits in front of its content.
func preaccess(l *server.Location, next http.Handler) (http.Handler, error) {
	lc := server.LocConf[*locConf](l, module)
	if len(lc.req) == 0 && len(lc.conn) == 0 {
		return next, nil
	}
	p := &limit.Policy{
		ReqStatus:    lc.reqStatus.Or(http.StatusServiceUnavailable),
		ReqDryRun:    lc.reqDryRun.V,
		ReqLogLevel:  lc.reqLevel.Or(slog.LevelError),
		ConnStatus:   lc.connStatus.Or(http.StatusServiceUnavailable),
		ConnDryRun:   lc.connDryRun.V,
		ConnLogLevel: lc.connLevel.Or(slog.LevelError),
		Logger:       func(*http.Request) *slog.Logger { return l.Logger() },
		Reject:       reject,
		Rejected:     statusmod.LimitRejected,
		// The counts last until the request ends: an error_page served
		// after this location's handler returned (error_page 404 =
		// @app) is still the client's request in progress.
		AtEnd: server.AtRequestEnd,
	}
	for _, r := range lc.req {
		ref := r.(*reqRef)
		p.Req = append(p.Req, limit.ReqLimit{Zone: ref.main.zones[ref.zone].req, Burst: ref.burst, Delay: ref.delay})
	}
	for _, r := range lc.conn {
		ref := r.(*connRef)
		p.Conn = append(p.Conn, limit.ConnLimit{Zone: ref.main.zones[ref.zone].conn, Max: ref.max})
	}
	limited := p.Wrap(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A subrequest (an ESI fragment) is not limited: NGINX skips the
		// limits for one once its main request went through them, which
		// the limits of a server or http level make the usual case.
		if server.SubrequestDepth(r) > 0 {
			next.ServeHTTP(w, r)
			return
		}
		limited.ServeHTTP(w, r)
	}), nil
}

// reject answers a request that a limit refuses with the status set by
// limit_req_status or limit_conn_status. NGINX terminates a request whose
// handler returns 444 (NGX_HTTP_CLOSE) or 408 (ngx_http_finalize_request
// treats both so): the connection is closed without a response and no
// error_page, as "return 444" does; the access log says the status.
func reject(w http.ResponseWriter, r *http.Request, code int) {
	if code == 444 || code == http.StatusRequestTimeout {
		if st := vars.FromContext(r.Context()); st != nil {
			st.WroteHeader(code)
		}
		panic(http.ErrAbortHandler)
	}
	server.Error(w, r, code)
}

// sharedZone is a zone's state, shared by the configurations that
// declare it alike (internal/shared), so that a reload keeps what the
// zone counted, as NGINX keeps its shared zones.
type sharedZone struct {
	sig  string
	req  *limit.ReqZone
	conn *limit.ConnZone
}

func (sz *sharedZone) Close() error {
	if sz.req != nil {
		return sz.req.Close()
	}
	return sz.conn.Close()
}

var zones shared.Registry[*sharedZone]

func (z *zoneConf) signature() string {
	return fmt.Sprintf("%s|%s|%s|%d|%d|%s|%v", z.kind, z.name, z.key.String(), z.size, z.rate, z.redis, z.redisTimeout)
}

func acquireZone(z *zoneConf, log *slog.Logger) (*sharedZone, error) {
	sig := z.signature()
	return zones.Acquire(sig, func() (*sharedZone, error) {
		o := limit.ZoneOptions{Name: z.name, Key: z.key.Eval, Size: z.size, Rate: z.rate, Redis: z.redis,
			RedisTimeout: z.redisTimeout, Logger: log}
		sz := &sharedZone{sig: sig}
		var err error
		if z.kind == kindReq {
			sz.req, err = limit.NewReqZone(o)
		} else {
			sz.conn, err = limit.NewConnZone(o)
		}
		return sz, err
	})
}

func releaseZone(sz *sharedZone) error { return zones.Release(sz.sig) }
