// Package server is mosaic's core: it turns a configuration tree into
// virtual servers and locations, matches requests to them, runs each
// location's handler chain, issues subrequests, and owns the listeners.
// It knows no module by name: modules register their directives, content
// handlers and filters here.
package server

import (
	"fmt"
	"net/http"
	"sort"
	"sync"
)

// Context is a set of configuration contexts in which a directive may
// appear.
type Context uint16

// The configuration contexts, as NGINX names them.
const (
	CtxMain Context = 1 << iota
	CtxEvents
	CtxHTTP
	CtxServer
	CtxLocation
	CtxUpstream
	CtxTypes
	// CtxServerIf and CtxLocationIf are the insides of an "if" block in
	// a server and in a location (NGINX's "sif" and "lif"): a directive
	// is allowed there only when it says so.
	CtxServerIf
	CtxLocationIf
	// CtxLimitExcept is the inside of a "limit_except" block (NGINX's
	// "lmt"): a directive is allowed there only when it says so.
	CtxLimitExcept

	// CtxHTTPAll is the usual set for a location-level setting.
	CtxHTTPAll = CtxHTTP | CtxServer | CtxLocation
)

func (c Context) String() string {
	switch c {
	case CtxMain:
		return "main"
	case CtxEvents:
		return "events"
	case CtxHTTP:
		return "http"
	case CtxServer:
		return "server"
	case CtxLocation:
		return "location"
	case CtxUpstream:
		return "upstream"
	case CtxTypes:
		return "types"
	case CtxServerIf, CtxLocationIf:
		return "if"
	case CtxLimitExcept:
		return "limit_except"
	}
	return fmt.Sprintf("context(%d)", uint16(c))
}

// Unlimited as Directive.MaxArgs accepts any number of arguments.
const Unlimited = -1

// Directive declares one configuration directive of a module.
type Directive struct {
	Name    string
	Context Context
	// MinArgs and MaxArgs bound the number of arguments.
	MinArgs, MaxArgs int
	// Block directives must be followed by "{...}", others by ";".
	Block bool
	// Set applies the directive. It reads its arguments from c and writes
	// into the module's settings, which c.Loc and c.Main return.
	Set func(c *Cmd) error
}

// Filter wraps a location's handler; filterOrder (order.go) places it in
// the chain. Subrequest filters also wrap the chain that internal
// subrequests run.
type Filter struct {
	InSubrequest bool
	// Wrap returns next wrapped, or next itself when the location does not
	// enable the filter.
	Wrap func(loc *Location, next http.Handler) (http.Handler, error)
	// WrapSub, when set, wraps the subrequest chain in Wrap's place (and
	// whatever InSubrequest says): for a filter that subrequests get on
	// terms of their own, as access logging under log_subrequest.
	WrapSub func(loc *Location, next http.Handler) (http.Handler, error)
	// PerRequest marks a filter of the request rather than of a
	// response (the access log, metrics): it wraps the chain of the
	// location that first serves the request, outside every other
	// filter, and does not run again for the target of an internal
	// redirect. The others, output filters, are those of the location
	// that produces the response: a redirect's target runs its own, and
	// the first location's see nothing of the response (filterlayer.go).
	PerRequest bool
	// AtHeader, set in place of Wrap, gives the writer of a filter that
	// applies or not by what the request's handlers set (limit_rate's
	// X-Accel-Limit-Rate): the location's gate (filterlayer.go) calls it
	// as the response's header or first body bytes go through, and puts
	// what it returns under itself; it returns w where the filter does
	// not apply, so that a response it leaves alone pays for no writer.
	// The gate lies right under the outermost output filter: only that
	// one may have it, and only outside subrequests. A nil function
	// means the location does not enable the filter.
	AtHeader func(loc *Location) (func(w http.ResponseWriter, r *http.Request) http.ResponseWriter, error)
}

// Module is a unit of functionality: directives, per-location and main
// settings, and the handlers it contributes.
type Module struct {
	Name       string
	Directives []Directive

	// NewLoc returns fresh per-location settings. The server creates one at
	// the http, server and location levels and merges them downwards.
	NewLoc func() any
	// MergeLoc fills unset fields of child from parent.
	MergeLoc func(parent, child any) error
	// NewMain returns fresh main-level settings (one per configuration).
	NewMain func() any
	// InitMain runs after the whole configuration is read and merged.
	InitMain func(cfg *Config) error

	// Content returns the location's content handler when this module's
	// settings make it the content (proxy_pass, return, ...), else nil.
	// Modules are asked in contentOrder (order.go).
	Content func(loc *Location) (http.Handler, error)

	// Filter, when set, wraps every location's chain at the module's place
	// in filterOrder (order.go).
	Filter *Filter

	// Preaccess, when set, wraps the location's content (try_files
	// included) at the module's place in preaccessOrder (order.go): it
	// runs after the location's rewrite phase and the core's checks, and
	// not for a request that a rewrite step answered, as NGINX's
	// preaccess phase handlers (limit_req, limit_conn). It returns next
	// itself when the location does not use the module. Internal
	// redirects and subrequests pass through it again: a handler that
	// must act once per client request keeps that in the request.
	Preaccess func(loc *Location, next http.Handler) (http.Handler, error)

	// Precontent, when set, wraps the location's content at the
	// module's place in precontentOrder (order.go): it runs after the
	// access phase and try_files' resolution, right in front of the
	// content, as NGINX's precontent phase handlers (mirror). It returns
	// next itself when the location does not use the module. Internal
	// redirects and subrequests pass through it again.
	Precontent func(loc *Location, next http.Handler) (http.Handler, error)

	// PostRead, when set, returns what the module does to each request of
	// a server as soon as the server is chosen, before the server's
	// rewrite phase (NGINX's post-read phase), with the server level's
	// settings; nil when they ask for nothing. It may change the request
	// in place (realip replaces RemoteAddr).
	PostRead func(srv *Location) (func(r *http.Request), error)

	// Access, when set, returns the module's check of a location in
	// NGINX's access phase (access.go), run in accessOrder (order.go)
	// after the preaccess handlers and before try_files; nil when the
	// location's settings ask for none.
	Access func(loc *Location) (AccessCheck, error)

	// Close releases what InitMain acquired when a configuration is
	// retired after a reload or at exit.
	Close func(cfg *Config) error

	index int
}

var (
	regMu      sync.Mutex
	modules    []*Module
	directives = map[string][]*dirEntry{}
)

type dirEntry struct {
	mod *Module
	d   *Directive
}

// Register adds a module. It is meant to be called from init functions. A
// module with a filter or a content handler must be named in the order
// tables (order.go).
func Register(m *Module) {
	regMu.Lock()
	defer regMu.Unlock()
	for _, o := range modules {
		if o.Name == m.Name {
			panic("server: module " + m.Name + " registered twice")
		}
	}
	if m.Filter != nil && orderOf(filterOrder, m.Name) < 0 {
		panic("server: module " + m.Name + " has a filter but no place in filterOrder")
	}
	if m.Content != nil && orderOf(contentOrder, m.Name) < 0 {
		panic("server: module " + m.Name + " has content but no place in contentOrder")
	}
	if m.Preaccess != nil && orderOf(preaccessOrder, m.Name) < 0 {
		panic("server: module " + m.Name + " has a preaccess handler but no place in preaccessOrder")
	}
	if m.Precontent != nil && orderOf(precontentOrder, m.Name) < 0 {
		panic("server: module " + m.Name + " has a precontent handler but no place in precontentOrder")
	}
	if m.Access != nil && orderOf(accessOrder, m.Name) < 0 {
		panic("server: module " + m.Name + " has an access check but no place in accessOrder")
	}
	m.index = len(modules)
	modules = append(modules, m)
	for i := range m.Directives {
		d := &m.Directives[i]
		for _, e := range directives[d.Name] {
			if e.d.Context&d.Context != 0 {
				panic(fmt.Sprintf("server: directive %q registered twice for one context", d.Name))
			}
		}
		directives[d.Name] = append(directives[d.Name], &dirEntry{mod: m, d: d})
	}
}

// Modules returns the registered modules in registration order.
func Modules() []*Module {
	regMu.Lock()
	defer regMu.Unlock()
	return append([]*Module(nil), modules...)
}

// DirectiveInfo names one registration of a directive: the module that
// registered it and the contexts it is allowed in. A name registered by
// two modules for different contexts (upstream's "server" and the core's)
// has one DirectiveInfo per registration.
type DirectiveInfo struct {
	Name    string
	Module  string
	Context Context
	// MinArgs and MaxArgs are the registered argument bounds.
	MinArgs, MaxArgs int
	Block            bool
}

// Directives lists every registration, sorted by name then module, so that
// documentation and tests can compare themselves with what actually loads.
func Directives() []DirectiveInfo {
	regMu.Lock()
	defer regMu.Unlock()
	var out []DirectiveInfo
	for _, es := range directives {
		for _, e := range es {
			out = append(out, DirectiveInfo{Name: e.d.Name, Module: e.mod.Name, Context: e.d.Context,
				MinArgs: e.d.MinArgs, MaxArgs: e.d.MaxArgs, Block: e.d.Block})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Module < out[j].Module
	})
	return out
}

// LocConf returns module m's merged settings for loc.
func LocConf[T any](loc *Location, m *Module) T {
	return loc.confs[m.index].(T)
}

// MainConf returns module m's main settings.
func MainConf[T any](cfg *Config, m *Module) T {
	return cfg.mains[m.index].(T)
}

// Setting is a value that remembers whether the configuration set it, so
// merging can tell "unset" from a zero value.
type Setting[T any] struct {
	V   T
	Set bool
}

// Put sets the value.
func (s *Setting[T]) Put(v T) { s.V, s.Set = v, true }

// Merge takes the parent's value when s is unset.
func (s *Setting[T]) Merge(parent Setting[T]) {
	if !s.Set {
		*s = parent
	}
}

// Or returns the value, or def when unset.
func (s Setting[T]) Or(def T) T {
	if s.Set {
		return s.V
	}
	return def
}
