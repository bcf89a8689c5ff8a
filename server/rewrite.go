package server

import (
	"fmt"
	"net/http"

	"github.com/mosaic-edge/mosaic/internal/percent"
)

// The rewrite phases, as NGINX runs them: a server's rewrite steps run
// before the location is searched (server rewrite phase), the steps of
// the location found run after it (location rewrite phase), and a URI
// changed there searches the location again, at most maxRedirects times
// per request. The core runs the steps and owns "return" and the
// structure of "if" blocks; a module (rewrite) adds the other steps
// ("rewrite", "set", "break") and the conditions of "if".

// Flow tells the rewrite phase what to do after a step.
type Flow int

const (
	// FlowNext goes on with the next step.
	FlowNext Flow = iota
	// FlowBreak stops the steps of the level; a URI changed before is
	// served by the location already found (NGINX's "break").
	FlowBreak
	// FlowLast stops the steps of the level; a URI changed before makes
	// the location be searched again ("rewrite ... last").
	FlowLast
	// FlowRespond stops the request's processing: RewriteRun.Response
	// answers it, inside the chain of the location in force.
	FlowRespond
)

// RewriteStep is one directive of a rewrite phase, run in the order the
// configuration lists them.
type RewriteStep interface {
	Rewrite(r *http.Request, run *RewriteRun) Flow
}

// RewriteCond is the condition of an "if" block.
type RewriteCond func(r *http.Request, run *RewriteRun) (bool, error)

// RewriteRun is one run of a level's rewrite steps.
type RewriteRun struct {
	// Loc is the location whose settings are in force: the location
	// found, or the last "if" block in it whose condition held.
	Loc *Location
	// URIChanged is set by a step that changed the request's URI: in the
	// location phase, the location is searched again when the steps end
	// (unless they end with FlowBreak).
	URIChanged bool
	// Response answers the request when a step returns FlowRespond.
	Response http.Handler
}

// Fail makes the run answer with code (500 for a regular expression that
// could not complete, as NGINX does on a PCRE error), logging err.
func (run *RewriteRun) Fail(r *http.Request, code int, err error) Flow {
	if err != nil {
		run.Loc.Logger().Error(err.Error(), "uri", r.URL.Path)
	}
	run.Response = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { Error(w, r, code) })
	return FlowRespond
}

// SetURI changes the request's URI to path and query, as a rewrite does:
// $uri and $args read the new ones, and a proxy without a URI part sends
// them (r.RequestURI no longer stands for the request).
func SetURI(r *http.Request, path, query string) {
	r.URL.Path, r.URL.RawPath, r.URL.RawQuery = path, "", query
	r.URL.ForceQuery = false
	r.RequestURI = ""
}

// PrefixLost reports a request whose URI a rewrite changed and then
// stopped with "break" (NGINX's valid_location cleared): the location's
// prefix no longer describes the URI, so a proxy_pass with a URI part
// sends the whole rewritten URI instead of replacing the prefix.
func PrefixLost(r *http.Request) bool {
	ri := infoFrom(r.Context())
	return ri != nil && ri.prefixLost
}

// ifStep is an "if" block: when the condition holds, the block's
// location (nil at server level, where NGINX keeps the server's settings)
// takes over and the block's steps run.
type ifStep struct {
	cond  RewriteCond
	loc   *Location
	steps []RewriteStep
}

func (s *ifStep) Rewrite(r *http.Request, run *RewriteRun) Flow {
	ok, err := s.cond(r, run)
	if err != nil {
		return run.Fail(r, http.StatusInternalServerError, err)
	}
	if !ok {
		return FlowNext
	}
	if s.loc != nil {
		run.Loc = s.loc
		if ri := infoFrom(r.Context()); ri != nil {
			ri.enter(s.loc)
		}
	}
	return runSteps(s.steps, r, run)
}

// returnStep is the "return" directive.
type returnStep struct{ rs *returnSpec }

func (s returnStep) Rewrite(_ *http.Request, run *RewriteRun) Flow {
	run.Response = s.rs
	return FlowRespond
}

func runSteps(steps []RewriteStep, r *http.Request, run *RewriteRun) Flow {
	for _, s := range steps {
		if f := s.Rewrite(r, run); f != FlowNext {
			return f
		}
	}
	return FlowNext
}

// AddRewriteStep appends a step to the rewrite directives of the level
// being read (inside an "if" block, to the block's).
func (c *Cmd) AddRewriteStep(s RewriteStep) {
	cl := c.level.confs[coreModule.index].(*coreLoc)
	if cl.steps == nil {
		cl.steps = new([]RewriteStep)
	}
	*cl.steps = append(*cl.steps, s)
}

// RewriteIf reads an "if" block with condition cond. In a location the
// block is an implicit location nested in it, which inherits its settings
// and takes over when the condition holds; only directives allowed in
// CtxLocationIf (CtxServerIf in a server) may appear in it.
func (c *Cmd) RewriteIf(cond RewriteCond) error {
	parent := c.level
	ctx := CtxLocationIf
	if parent.kind == levelServer {
		ctx = CtxServerIf
	}
	l := c.b.newLevel(levelIf, parent, parent.server, c.Directive)
	l.pattern = parent.pattern
	parent.server.implicit = append(parent.server.implicit, l)
	s := &ifStep{cond: cond}
	if ctx == CtxLocationIf {
		s.loc = l
	}
	c.AddRewriteStep(s)
	// The block's directives are steps of the enclosing level, placed
	// inside the block: they share its list, as NGINX compiles them into
	// the enclosing level's codes.
	l.confs[coreModule.index].(*coreLoc).steps = &s.steps
	return c.b.walk(c.Block, ctx, l, nil)
}

// IsImplicit reports the location of an "if" or "limit_except" block,
// which NGINX creates without a name: it inherits proxy_pass from its
// parent.
func (l *Location) IsImplicit() bool { return l.kind == levelIf || l.kind == levelLimitExcept }

// Own returns the location whose own lines l has: l, or for an "if" or
// "limit_except" block the location it is in. A content directive that
// nested locations do not inherit ("empty_gif", "flv") is read there.
func (l *Location) Own() *Location {
	for l.IsImplicit() {
		l = l.parent
	}
	return l
}

// Parent returns the enclosing level (the location, server or http
// level), nil at http level.
func (l *Location) Parent() *Location { return l.parent }

// route runs the rewrite phases for r and returns the location to serve
// it with. named is the target of a redirect to a named location, which
// skips the server phase and the search, as NGINX does. A response that
// a step produced waits in ri.pending for the location's chain.
func (ri *reqInfo) route(r *http.Request, named *Location) *Location {
	srv := ri.srv
	loc := named
	if loc == nil {
		if steps := rewriteSteps(srv.level); len(steps) > 0 {
			ri.enter(srv.level)
			run := RewriteRun{Loc: srv.level}
			switch runSteps(steps, r, &run) {
			case FlowRespond:
				ri.pending, ri.serverAnswered = run.Response, true
				return srv.level
			case FlowBreak:
				ri.prefixLost = ri.prefixLost || run.URIChanged
			}
			ri.internal = ri.internal || run.URIChanged
		}
	}
	for {
		if loc == nil {
			var err error
			var redirect bool
			if loc, redirect, err = srv.find(r.URL.Path, ri.st); err != nil {
				loc.Logger().Error(err.Error())
				ri.pending = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					Error(w, r, http.StatusInternalServerError)
				})
				return loc
			}
			if redirect {
				// As NGINX's find-config phase answers it: with the
				// location's settings (its internal and
				// client_max_body_size checks come first), none of its
				// rewrite steps run.
				ri.pending = autoRedirect(loc.pattern, r.URL.RawQuery)
				return loc.forMethod(r.Method)
			}
		}
		// A method that the location's limit_except does not list is
		// served with the block's settings, chosen before the rewrite
		// phase as NGINX does: the location's own rewrite directives,
		// which the block does not inherit, do not run for it.
		loc = loc.forMethod(r.Method)
		steps := rewriteSteps(loc)
		if loc == srv.level || len(steps) == 0 || (loc.IsInternal() && !ri.internal) {
			// The server's own steps ran before; an internal location
			// refuses a client's request before its steps run.
			return loc
		}
		ri.enter(loc)
		run := RewriteRun{Loc: loc}
		flow := runSteps(steps, r, &run)
		// A URI a rewrite made may reach internal locations, as NGINX
		// marks such a request internal: "rewrite ^/dl/(.*) /protected/$1
		// last;" into "location /protected/ { internal; }" is the usual
		// way to serve files a client cannot ask for by name.
		ri.internal = ri.internal || run.URIChanged
		switch flow {
		case FlowRespond:
			ri.pending = run.Response
			return run.Loc
		case FlowBreak:
			ri.prefixLost = ri.prefixLost || run.URIChanged
			run.URIChanged = false
		}
		if !run.URIChanged {
			return run.Loc
		}
		if ri.redirects == nil {
			ri.redirects = new(int)
		}
		if *ri.redirects >= maxRedirects {
			run.Loc.Logger().Error(fmt.Sprintf("rewrite or internal redirection cycle while processing %q", r.URL.Path))
			*ri.redirects = cycleHit
			ri.pending = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				Error(w, r, http.StatusInternalServerError)
			})
			return run.Loc
		}
		*ri.redirects++
		loc = nil
	}
}

// autoRedirect answers a request for a location's name without its final
// slash: 301 to the name, its bytes escaped as NGINX escapes it
// (escaped_name), and the request's arguments kept.
func autoRedirect(name, args string) http.Handler {
	target := percent.URI.Escape(name)
	if args != "" {
		target += "?" + args
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		Redirect(w, r, http.StatusMovedPermanently, target)
	})
}

// enter makes l the location in force while rewrite steps run: the one
// whose settings apply, and whose root or alias $request_filename and
// $document_root read, as NGINX's do in its rewrite phase ("if (!-e
// $request_filename)" tests the file that location would serve).
func (ri *reqInfo) enter(l *Location) {
	ri.loc = l
	if ri.st != nil {
		ri.st.Paths = l
	}
}

// serving returns the location serving the request now: the target of
// its last internal redirect, else ri.loc (nil before one is chosen).
func (ri *reqInfo) serving() *Location {
	if ri.fl != nil && ri.fl.loc != nil {
		return ri.fl.loc
	}
	return ri.loc
}

func rewriteSteps(l *Location) []RewriteStep {
	if s := LocConf[*coreLoc](l, coreModule).steps; s != nil {
		return *s
	}
	return nil
}
