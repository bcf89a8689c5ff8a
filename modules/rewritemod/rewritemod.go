// Package rewritemod wires the rewrite library to the server: NGINX's
// rewrite module directives "rewrite", "set", "break", "if" (with the
// core, which owns the "if" block's implicit location and "return"),
// "rewrite_log" and "uninitialized_variable_warn". Its directives are
// steps of the server's rewrite phases, run in the order written.
package rewritemod

import (
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/reqrule"
	"github.com/mosaic-edge/mosaic/modules/throttlemod"
	"github.com/mosaic-edge/mosaic/rewrite"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/throttle"
	"github.com/mosaic-edge/mosaic/vars"
)

// locConf holds the two flags; the steps themselves are the core's.
type locConf struct {
	log  server.Setting[bool] // rewrite_log
	warn server.Setting[bool] // uninitialized_variable_warn
}

// stepContexts are where the rewrite module's steps may appear: NGINX's
// server and location, and "if" blocks in both.
const stepContexts = server.CtxServer | server.CtxLocation | server.CtxServerIf | server.CtxLocationIf

var module = &server.Module{
	Name:   "rewrite",
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		child.log.Merge(parent.log)
		child.warn.Merge(parent.warn)
		if !child.warn.Set {
			child.warn.V = true
		}
		return nil
	},
}

func init() {
	flag := func(get func(*locConf) *server.Setting[bool]) func(*server.Cmd) error {
		return server.SetFlag(get)
	}
	module.Directives = []server.Directive{
		{Name: "rewrite", Context: stepContexts, MinArgs: 2, MaxArgs: 3, Set: setRewrite},
		{Name: "break", Context: stepContexts, MaxArgs: 0, Set: func(c *server.Cmd) error {
			c.AddRewriteStep(breakStep{})
			return nil
		}},
		{Name: "set", Context: stepContexts, MinArgs: 2, MaxArgs: 2, Set: setSet},
		{Name: "if", Context: server.CtxServer | server.CtxLocation, Block: true, MinArgs: 1, MaxArgs: server.Unlimited, Set: setIf},
		{Name: "rewrite_log", Context: server.CtxHTTPAll | server.CtxServerIf | server.CtxLocationIf, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(lc *locConf) *server.Setting[bool] { return &lc.log })},
		{Name: "uninitialized_variable_warn", Context: server.CtxHTTPAll | server.CtxServerIf | server.CtxLocationIf, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(lc *locConf) *server.Setting[bool] { return &lc.warn })},
	}
	server.Register(module)
}

// env compiles the directive's values in the configuration's variable
// scope; the named groups of its regexes define variables there.
func env(c *server.Cmd) rewrite.Env {
	scope := c.Config().Vars()
	return rewrite.Env{
		Stat:     stat,
		Compile:  func(text string) (*vars.Template, error) { return scope.Compile(text, c.Directive) },
		Variable: func(name string) (*vars.Template, error) { return scope.CompileVar(name, c.Directive) },
		Capture: func(name string) (*vars.Var, error) {
			if v, ok := scope.Lookup(name); ok {
				return v, nil
			}
			return scope.Define(name, nil, false)
		},
	}
}

// stat is the file test of "if" (-f, -d, -e, -x): the location in force
// as it runs says what disable_symlinks asks, as NGINX reads the
// request's location configuration there. In the server's rewrite phase
// that is the server level, which has no location of its own in the
// configuration: the test must not be bound to one when it is read.
func stat(r *http.Request, name string) (fs.FileInfo, error) {
	if loc := server.CurrentLocation(r); loc != nil {
		return loc.Stat(r, name)
	}
	return os.Stat(name)
}

// logf returns rewrite_log's notice writer for the location in force, or
// nil when it is off.
func logf(r *http.Request, loc *server.Location) rewrite.Logf {
	if !server.LocConf[*locConf](loc, module).log.V {
		return nil
	}
	return func(format string, args ...any) {
		loc.Logger().Log(r.Context(), server.LevelNotice, fmt.Sprintf(format, args...))
	}
}

func setRewrite(c *server.Cmd) error {
	ru, err := rewrite.ParseRule(c.Args, env(c))
	if err != nil {
		return c.Errorf("%v", err)
	}
	c.AddRewriteStep(ruleStep{ru})
	return nil
}

// ruleStep is a "rewrite" directive.
type ruleStep struct{ ru *rewrite.Rule }

func (s ruleStep) Rewrite(r *http.Request, run *server.RewriteRun) server.Flow {
	st := vars.FromContext(r.Context())
	res, err := s.ru.Apply(r, st, r.URL.Path, r.URL.RawQuery, logf(r, run.Loc))
	if err != nil {
		return run.Fail(r, http.StatusInternalServerError, err)
	}
	if !res.Matched {
		return server.FlowNext
	}
	if res.Location != "" {
		loc, status := res.Location, res.Status
		run.Response = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			server.Redirect(w, r, status, loc)
		})
		return server.FlowRespond
	}
	// Arguments emptied by the rewrite still have a place, as in NGINX,
	// when the request had some.
	if st != nil {
		st.ArgsKept = st.ArgsKept || r.URL.RawQuery != ""
	}
	server.SetURI(r, res.Path, res.Query)
	run.URIChanged = true
	switch s.ru.Flag() {
	case rewrite.FlagLast:
		return server.FlowLast
	case rewrite.FlagBreak:
		return server.FlowBreak
	}
	return server.FlowNext
}

// breakStep is "break": the rewrite steps end, and a URI changed before
// is served by the location found.
type breakStep struct{}

func (breakStep) Rewrite(*http.Request, *server.RewriteRun) server.Flow { return server.FlowBreak }

func setIf(c *server.Cmd) error {
	cond, err := rewrite.ParseCond(c.Args, env(c))
	if err != nil {
		return c.Errorf("%v", err)
	}
	return c.RewriteIf(func(r *http.Request, run *server.RewriteRun) (bool, error) {
		return cond.Eval(r, vars.FromContext(r.Context()), run.URIChanged, logf(r, run.Loc))
	})
}

// setSet reads "set $variable value". The variable becomes one of the
// configuration's (usable anywhere, before or after in the file); until a
// "set" gives it a value in a request it is empty, with a warning when
// uninitialized_variable_warn is on. "set" on a map's variable overrides
// its value for the rest of the request, as in NGINX. Of the built-in
// variables, "set" changes $args (the request's arguments), $limit_rate
// (the response's rate) and those modules register as settable
// ($uid_reset).
func setSet(c *server.Cmd) error {
	name, ok := strings.CutPrefix(c.Args[0], "$")
	if !ok || name == "" {
		return c.Errorf("invalid variable name %q", c.Args[0])
	}
	value, err := c.Config().Vars().Compile(c.Args[1], c.Directive)
	if err != nil {
		return c.Errorf("%v", err)
	}
	// Variable names are not case-sensitive ("set $UID_RESET 1" sets
	// $uid_reset and "set $LIMIT_RATE 32k" the rate in NGINX), and the
	// state holds the registered name.
	lower := strings.ToLower(name)
	switch lower {
	case "args":
		c.AddRewriteStep(setArgsStep{value})
		return nil
	case "limit_rate":
		throttlemod.MayLimit(c.Config())
		c.AddRewriteStep(setLimitRateStep{value})
		return nil
	}
	if vars.Settable(lower) {
		c.AddRewriteStep(setStateStep{name: lower, value: value})
		return nil
	}
	scope := c.Config().Vars()
	v, ok := scope.Lookup(name)
	if !ok {
		// NGINX's "set" variable is weak: a name of a family
		// ($cookie_q, $arg_q) reads the family until a "set" runs, in
		// the locations without one too. Computed at each use, as the
		// family's own variables are.
		get, family := vars.Lookup(name)
		if !family {
			get = uninitialized(name)
		}
		if v, err = scope.Define(name, get, family); err != nil {
			return c.Errorf("%v", err)
		}
	}
	c.AddRewriteStep(setStep{v: v, value: value})
	return nil
}

// uninitialized is the value of a "set" variable read before any "set"
// ran in the request.
func uninitialized(name string) vars.Getter {
	return func(r *http.Request, _ *vars.State) string {
		if loc := server.CurrentLocation(r); loc != nil && server.LocConf[*locConf](loc, module).warn.V {
			loc.Logger().Log(r.Context(), slog.LevelWarn, fmt.Sprintf("using uninitialized %q variable", name))
		}
		return ""
	}
}

// setStateStep is "set" of a built-in variable a module lets it set
// (vars.RegisterSettable): the value is the request's from then on.
type setStateStep struct {
	name  string
	value *vars.Template
}

func (s setStateStep) Rewrite(r *http.Request, run *server.RewriteRun) server.Flow {
	st := vars.FromContext(r.Context())
	st.Set(s.name, rewrite.Value(s.value, r, st, run.URIChanged))
	return server.FlowNext
}

// setStep is "set $variable value".
type setStep struct {
	v     *vars.Var
	value *vars.Template
}

func (s setStep) Rewrite(r *http.Request, run *server.RewriteRun) server.Flow {
	st := vars.FromContext(r.Context())
	s.v.Set(st, rewrite.Value(s.value, r, st, run.URIChanged))
	return server.FlowNext
}

// setLimitRateStep is "set $limit_rate value": the response's rate in
// bytes per second (a size: "100k"), which replaces the location's
// limit_rate for this request. As NGINX, a value that is not a size is
// logged and changes nothing.
type setLimitRateStep struct{ value *vars.Template }

func (s setLimitRateStep) Rewrite(r *http.Request, run *server.RewriteRun) server.Flow {
	st := vars.FromContext(r.Context())
	v := rewrite.Value(s.value, r, st, run.URIChanged)
	n, err := server.ParseSize(v)
	if err != nil || n < 0 {
		run.Loc.Logger().Error(fmt.Sprintf("invalid size %q in \"set $limit_rate\"", v))
		return server.FlowNext
	}
	st.Set(throttle.StateName, strconv.FormatInt(n, 10))
	return server.FlowNext
}

// setArgsStep is "set $args value".
type setArgsStep struct{ value *vars.Template }

func (s setArgsStep) Rewrite(r *http.Request, run *server.RewriteRun) server.Flow {
	st := vars.FromContext(r.Context())
	r.URL.RawQuery = rewrite.Value(s.value, r, st, run.URIChanged)
	r.URL.ForceQuery = false
	if st != nil {
		st.ArgsKept = true // set, even to nothing: $args has a value
	}
	r.RequestURI = argsSetTarget(r)
	return server.FlowNext
}

// argsSetTarget is r.RequestURI after "set $args", which clears NGINX's
// valid_unparsed_uri (ngx_http_variable_set_args) but does not make the
// request internal: NGINX's proxy then sends the decoded, normalised
// path, escaped again only when the client's held a percent-escape
// (quoted_uri), and the new arguments. A path the client sent without
// one is that path decoded, its bytes as they came (a raw '"' or UTF-8):
// it stays the target, with the new arguments, for a proxy to send as
// it is. Otherwise, or after a rewrite already made the URI another
// (no RequestURI), there is none: a proxy escapes the URI.
func argsSetTarget(r *http.Request) string {
	if !reqrule.Unquoted(r.RequestURI) {
		return ""
	}
	if r.URL.RawQuery == "" {
		return r.URL.Path // NGINX adds no "?" for empty arguments
	}
	return r.URL.Path + "?" + r.URL.RawQuery
}
