// Package throttlemod wires the throttle library to the server:
// limit_rate and limit_rate_after (with variables, as NGINX 1.17+ takes
// them) and the "throttle" filter. The filter's writer goes under the
// output filters as a response's header goes out (server.Filter's
// AtHeader), and only where a rate applies then: the location's, or one
// set at run time ("set $limit_rate", an upstream's X-Accel-Limit-Rate:
// MayLimit, which either can set wherever a response is served);
// otherwise the response passes untouched, as NGINX's write filter
// skips a request whose r->limit_rate is 0.
package throttlemod

import (
	"net/http"
	"sync/atomic"

	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/throttle"
	"github.com/mosaic-edge/mosaic/vars"
)

// mainConf says whether a rate can be set at run time anywhere in the
// configuration. Atomic: a proxy_pass with variables builds its
// handlers, which record it again, while requests read it.
type mainConf struct {
	dynamic atomic.Bool
}

// MayLimit records that a response of cfg may get a rate at run time:
// "set $limit_rate" calls it as the directive is read, an upstream
// gateway that honours X-Accel-Limit-Rate as its location is built.
// From then on every location applies the rate, since an internal
// redirect (error_page, X-Accel-Redirect) carries it to any location.
func MayLimit(cfg *server.Config) {
	server.MainConf[*mainConf](cfg, module).dynamic.Store(true)
}

type locConf struct {
	rate  server.Setting[*vars.Template]
	after server.Setting[*vars.Template]
	// sendfile and sendfile_max_chunk shape the sends of a paced
	// response (throttle.Sends); Go chooses sendfile(2) by itself.
	sendfile server.Setting[bool]
	maxChunk server.Setting[int64]
}

var module = &server.Module{
	Name: "throttle",
	Directives: []server.Directive{
		{Name: "limit_rate", Context: server.CtxHTTPAll | server.CtxLocationIf, MinArgs: 1, MaxArgs: 1,
			Set: setSize(func(l *locConf) *server.Setting[*vars.Template] { return &l.rate })},
		{Name: "limit_rate_after", Context: server.CtxHTTPAll | server.CtxLocationIf, MinArgs: 1, MaxArgs: 1,
			Set: setSize(func(l *locConf) *server.Setting[*vars.Template] { return &l.after })},
		{Name: "sendfile", Context: server.CtxHTTPAll | server.CtxLocationIf, MinArgs: 1, MaxArgs: 1,
			Set: server.SetFlag(func(l *locConf) *server.Setting[bool] { return &l.sendfile })},
		{Name: "sendfile_max_chunk", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			n, err := server.ParseSize(c.Args[0])
			if err != nil { // ngx_conf_set_size_slot's words
				return c.Errorf("%q directive invalid value", c.Name)
			}
			return server.Put(c, &c.Loc().(*locConf).maxChunk, n)
		}},
	},
	NewLoc:  func() any { return &locConf{} },
	NewMain: func() any { return &mainConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		child.rate.Merge(parent.rate)
		child.after.Merge(parent.after)
		child.sendfile.Merge(parent.sendfile)
		child.maxChunk.Merge(parent.maxChunk)
		return nil
	},
}

func init() {
	module.Filter = &server.Filter{AtHeader: atHeader}
	server.Register(module)
}

// setSize reads a size that may hold variables; one without is checked
// now, as NGINX does.
func setSize(get func(*locConf) *server.Setting[*vars.Template]) func(*server.Cmd) error {
	return func(c *server.Cmd) error {
		t, err := c.Template(c.Args[0])
		if err != nil {
			return err
		}
		if t.Static() {
			if _, err := server.ParseSize(c.Args[0]); err != nil {
				return c.Invalid(c.Args[0], "")
			}
		}
		return server.Put(c, get(c.Loc().(*locConf)), t)
	}
}

// atHeader gives the location's writer to the server's gate, which puts
// it under the output filters as the response's header goes out, so
// that a response without a rate (no limit_rate, and neither "set
// $limit_rate" nor an upstream's X-Accel-Limit-Rate set one) costs no
// writer: the rate is read once, then, as NGINX's write filter reads
// r->limit_rate when it sends the header.
func atHeader(l *server.Location) (func(http.ResponseWriter, *http.Request) http.ResponseWriter, error) {
	lc := server.LocConf[*locConf](l, module)
	rate, after := lc.rate.V, lc.after.V
	sends := throttle.Sends{File: lc.sendfile.Or(false), MaxChunk: lc.maxChunk.Or(throttle.DefaultMaxChunk)}
	limits := func(r *http.Request) (int64, int64) {
		var n, a int64
		if v, ok := throttle.Rate(vars.FromContext(r.Context())); ok {
			n = v
		} else if rate != nil {
			n = size(rate.Eval(r))
		}
		if n > 0 && after != nil {
			a = size(after.Eval(r))
		}
		return n, a
	}
	// Without a rate of the location's, only one set at run time can
	// apply. The locations built before a gateway's call MayLimit too,
	// so the check is made per response rather than now: one load.
	mc := server.MainConf[*mainConf](l.Server().Config(), module)
	return func(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
		if rate == nil && !mc.dynamic.Load() {
			return w
		}
		return throttle.Wrap(w, r, limits, sends)
	}, nil
}

// size reads an evaluated size; a bad one means none, as NGINX's
// complex size value falls back to its default.
func size(s string) int64 {
	n, err := server.ParseSize(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
