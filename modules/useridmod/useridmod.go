// Package useridmod wires the userid library to the server: the userid_*
// directives, the "userid" filter that sets the cookie, and the variables
// $uid_got, $uid_set and $uid_reset (which "set" may give a value to ask
// for a new identifier).
package useridmod

import (
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/internal/onheader"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/userid"
	"github.com/mosaic-edge/mosaic/vars"
)

// locConf is one level's directives; merged into a userid.Config.
type locConf struct {
	mode    server.Setting[userid.Mode]
	service server.Setting[int64]
	name    server.Setting[string]
	domain  server.Setting[string]
	path    server.Setting[string]
	expires server.Setting[time.Duration] // -1 for "max"
	flags   server.Setting[[]string]
	p3p     server.Setting[string]
	mark    server.Setting[byte]
	cfg     *userid.Config // built by merge
}

var module = &server.Module{
	Name: "userid",
	Directives: []server.Directive{
		{Name: "userid", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setMode},
		{Name: "userid_service", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setService},
		{Name: "userid_name", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: str(func(l *locConf) *server.Setting[string] { return &l.name })},
		{Name: "userid_domain", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: str(func(l *locConf) *server.Setting[string] { return &l.domain })},
		{Name: "userid_path", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: str(func(l *locConf) *server.Setting[string] { return &l.path })},
		{Name: "userid_expires", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setExpires},
		{Name: "userid_flags", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 3, Set: setFlags},
		{Name: "userid_p3p", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: str(func(l *locConf) *server.Setting[string] { return &l.p3p })},
		{Name: "userid_mark", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setMark},
	},
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		child.mode.Merge(parent.mode)
		child.service.Merge(parent.service)
		child.name.Merge(parent.name)
		child.domain.Merge(parent.domain)
		child.path.Merge(parent.path)
		child.expires.Merge(parent.expires)
		child.flags.Merge(parent.flags)
		child.p3p.Merge(parent.p3p)
		child.mark.Merge(parent.mark)
		child.cfg = build(child)
		return nil
	},
}

func init() {
	module.Filter = &server.Filter{Wrap: wrap}
	vars.Register("uid_got", func(r *http.Request, st *vars.State) string {
		cfg := current(r)
		if cfg == nil {
			return ""
		}
		return read(cfg, r, st).Got()
	})
	vars.Register("uid_set", func(r *http.Request, st *vars.State) string {
		cfg := current(r)
		if cfg == nil {
			return ""
		}
		v, _ := decide(cfg, r, st)
		return v
	})
	vars.RegisterSettable("uid_reset")
	server.Register(module)
}

// build makes the library's settings of a merged level, with NGINX's
// defaults.
func build(l *locConf) *userid.Config {
	cfg := &userid.Config{Mode: l.mode.V, Service: -1, Name: "uid", Path: "/", P3P: l.p3p.V, Domain: l.domain.V, Mark: l.mark.V}
	if l.service.Set {
		cfg.Service = l.service.V
	}
	if l.name.Set {
		cfg.Name = l.name.V
	}
	if l.path.Set {
		cfg.Path = l.path.V
	}
	if cfg.Domain == "none" {
		cfg.Domain = ""
	}
	if cfg.P3P == "none" {
		cfg.P3P = ""
	}
	switch d := l.expires.V; {
	case d < 0:
		cfg.MaxExpires = true
	default:
		cfg.Expires = d
	}
	for _, f := range l.flags.V {
		switch f {
		case "secure":
			cfg.Secure = true
		case "httponly":
			cfg.HTTPOnly = true
		case "samesite=strict", "samesite=lax", "samesite=none":
			cfg.SameSite = strings.TrimPrefix(f, "samesite=")
		}
	}
	return cfg
}

func str(field func(*locConf) *server.Setting[string]) func(*server.Cmd) error {
	return func(c *server.Cmd) error { return server.Put(c, field(c.Loc().(*locConf)), c.Args[0]) }
}

func setMode(c *server.Cmd) error {
	modes := map[string]userid.Mode{"off": userid.Off, "log": userid.Log, "v1": userid.V1, "on": userid.On}
	m, ok := modes[strings.ToLower(c.Args[0])]
	if !ok {
		return c.Invalid(c.Args[0], `it must be "off", "log", "v1" or "on"`)
	}
	return server.Put(c, &c.Loc().(*locConf).mode, m)
}

func setService(c *server.Cmd) error {
	n, err := strconv.ParseInt(c.Args[0], 10, 64)
	if err != nil || n < 0 || c.Args[0][0] == '+' {
		return c.Errorf("%q directive invalid number", c.Name)
	}
	return server.Put(c, &c.Loc().(*locConf).service, n)
}

func setExpires(c *server.Cmd) error {
	var d time.Duration
	switch c.Args[0] {
	case "max":
		d = -1
	case "off":
	default:
		t, err := conf.ParseSeconds(c.Args[0])
		if err != nil {
			return c.Errorf("%q directive invalid value", c.Name)
		}
		d = t.Truncate(time.Second)
	}
	return server.Put(c, &c.Loc().(*locConf).expires, d)
}

func setFlags(c *server.Cmd) error {
	for _, a := range c.Args {
		switch strings.ToLower(a) {
		case "off", "secure", "httponly", "samesite=strict", "samesite=lax", "samesite=none":
		default:
			return c.Errorf("invalid value %q in %q directive", a, c.Name)
		}
	}
	flags := make([]string, len(c.Args))
	for i, a := range c.Args {
		flags[i] = strings.ToLower(a)
	}
	return server.Put(c, &c.Loc().(*locConf).flags, flags)
}

func setMark(c *server.Cmd) error {
	a := c.Args[0]
	var m byte
	if a != "off" {
		if len(a) != 1 || !(a[0] >= '0' && a[0] <= '9' || a[0] >= 'A' && a[0] <= 'Z' || a[0] >= 'a' && a[0] <= 'z' || a[0] == '=') {
			return c.Errorf(`"%s" directive value must be "off" or a single letter, digit or "="`, c.Name)
		}
		m = a[0]
	}
	return server.Put(c, &c.Loc().(*locConf).mark, m)
}

// current is the userid settings of r's location, nil outside the server.
func current(r *http.Request) *userid.Config {
	if l := server.CurrentLocation(r); l != nil {
		return server.LocConf[*locConf](l, module).cfg
	}
	return nil
}

// read parses the client's cookie (logging a bad one once per request).
func read(cfg *userid.Config, r *http.Request, st *vars.State) *userid.Request {
	get, ok := vars.Lookup("cookie_" + cfg.Name)
	if !ok {
		return userid.Read(cfg, "")
	}
	q := userid.Read(cfg, get(r, st))
	if q.Err != "" && st != nil {
		if _, logged := st.Get(errLogged); !logged {
			st.Set(errLogged, "1")
			if l := server.CurrentLocation(r); l != nil {
				l.Logger().Error(q.Err)
			}
		}
	}
	return q
}

// The request's decision, kept in its state so that $uid_set, the log and
// the cookie agree.
const (
	setKey    = "userid set"
	cookieKey = "userid cookie"
	errLogged = "userid error logged"
)

// decide returns $uid_set and the Set-Cookie value of r, choosing them
// once per request.
func decide(cfg *userid.Config, r *http.Request, st *vars.State) (set, cookie string) {
	if st != nil {
		if v, ok := st.Get(setKey); ok {
			c, _ := st.Get(cookieKey)
			return v, c
		}
	}
	q := read(cfg, r, st)
	reset := ""
	if st != nil {
		reset, _ = st.Get("uid_reset")
	}
	var local netip.Addr
	if get, ok := vars.Lookup("server_addr"); ok {
		local, _ = netip.ParseAddr(get(r, st))
	}
	now := time.Now()
	set, logged := q.Set(reset, local, now)
	if logged != "" {
		if l := server.CurrentLocation(r); l != nil {
			l.Logger().Info(logged)
		}
	}
	cookie = q.Cookie(now)
	if st != nil {
		st.Set(setKey, set)
		st.Set(cookieKey, cookie)
	}
	return set, cookie
}

// wrap sets the cookie of a location with userid v1 or on. Subrequests
// do not pass through it (the filter is not InSubrequest), as NGINX's
// passes them by.
func wrap(loc *server.Location, next http.Handler) (http.Handler, error) {
	cfg := server.LocConf[*locConf](loc, module).cfg
	if cfg == nil || cfg.Mode < userid.V1 {
		return next, nil
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		uw := &writer{Writer: onheader.Writer{ResponseWriter: w}, cfg: cfg, r: r}
		uw.Hook = uw
		next.ServeHTTP(uw, r)
	}), nil
}

// writer sets the cookie as the header goes out, as NGINX's header filter.
type writer struct {
	onheader.Writer
	cfg *userid.Config
	r   *http.Request
}

func (w *writer) BeforeHeader(h http.Header, _ int) {
	_, cookie := decide(w.cfg, w.r, vars.FromContext(w.r.Context()))
	if cookie == "" {
		return
	}
	h.Add("Set-Cookie", cookie)
	if w.cfg.P3P != "" {
		h.Add("P3P", w.cfg.P3P)
	}
}
