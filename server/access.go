package server

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// NGINX's access phase: after the rewrite phases and the preaccess
// handlers, before try_files and the content, the modules' access checks
// (allow/deny, auth_basic, auth_request) decide whether the request goes
// on. "satisfy all" (the default) needs every check that applies to
// pass; "satisfy any" needs one. The core runs the checks in accessOrder
// (order.go) and knows none of them: a module returns an AccessCheck for
// a location from Module.Access.
//
// As in NGINX, the phase runs for client requests and their internal
// redirects (try_files, error_page), not for subrequests: an ESI fragment
// or the subrequest of auth_request is not checked again.

// Verdict is what an access check decides for a request.
type Verdict int

const (
	// Declined: the check does not apply to the request (no rule for its
	// address family, "auth_basic off"); the next one runs.
	Declined Verdict = 0
	// Allowed: the check passed. Under "satisfy any" the request goes on
	// at once; under "satisfy all" the next check runs.
	Allowed Verdict = 1
	// Any other value is an HTTP status. 403 and 401 refuse the request
	// (under "satisfy any", only if no other check passes); anything else
	// (500) answers it at once whatever "satisfy" says.
)

// AccessCheck is one module's access check for a location.
type AccessCheck func(r *http.Request, run *AccessRun) Verdict

// AccessRun is what the checks of one request's access phase share.
type AccessRun struct {
	// Loc is the location whose settings are in force.
	Loc *Location
	// SatisfyAny is "satisfy any": a refusal is final only when no check
	// passes (the access module logs "access forbidden by rule" itself
	// only under "satisfy all", as NGINX's does).
	SatisfyAny bool
	// Header holds the fields a refusal is sent with (the
	// WWW-Authenticate of a 401). Under "satisfy any", a check that
	// passes drops them, as NGINX hides its www_authenticate.
	Header http.Header
}

// AddHeader adds a field to send with a refusal.
func (run *AccessRun) AddHeader(key, value string) {
	if run.Header == nil {
		run.Header = http.Header{}
	}
	run.Header.Add(key, value)
}

// satisfyAll and satisfyAny are the values of "satisfy".
const (
	satisfyAll = false
	satisfyAny = true
)

// setSatisfy reads "satisfy all | any".
func setSatisfy(c *Cmd) error {
	var v bool
	switch strings.ToLower(c.Args[0]) { // NGINX's enum values ignore case
	case "all":
		v = satisfyAll
	case "any":
		v = satisfyAny
	default:
		return c.Invalid(c.Args[0], `it must be "all" or "any"`)
	}
	return Put(c, &c.Loc().(*coreLoc).satisfy, v)
}

// setAuthDelay reads "auth_delay time" (0 allowed: no delay).
func setAuthDelay(c *Cmd) error {
	d, err := c.Duration(c.Args[0])
	if err != nil {
		return err
	}
	return Put(c, &c.Loc().(*coreLoc).authDelay, d)
}

// wrapAccess puts the location's access checks in front of next, or
// returns next when no module has one for it.
func wrapAccess(l *Location, next http.Handler) (http.Handler, error) {
	var checks []AccessCheck
	for _, name := range accessOrder {
		for _, m := range Modules() {
			if m.Name != name || m.Access == nil {
				continue
			}
			c, err := m.Access(l)
			if err != nil {
				return nil, err
			}
			if c != nil {
				checks = append(checks, c)
			}
		}
	}
	if len(checks) == 0 {
		return next, nil
	}
	return &accessHandler{loc: l, cl: LocConf[*coreLoc](l, coreModule), checks: checks, next: next}, nil
}

type accessHandler struct {
	loc    *Location
	cl     *coreLoc
	checks []AccessCheck
	next   http.Handler
}

func (h *accessHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if ri := infoFrom(r.Context()); ri != nil && ri.rare().subDepth > 0 {
		h.next.ServeHTTP(w, r) // NGINX checks the main request only
		return
	}
	run := AccessRun{Loc: h.loc, SatisfyAny: h.cl.satisfy.V}
	code := h.decide(r, &run)
	if code == 0 {
		h.next.ServeHTTP(w, r)
		return
	}
	hdr := w.Header()
	for k, v := range run.Header {
		hdr[k] = append(hdr[k], v...)
	}
	if code == http.StatusUnauthorized && h.cl.authDelay.V > 0 {
		// auth_delay: every refused attempt takes as long, so that a
		// client cannot time the checks (and guesses come slowly).
		h.loc.Logger().InfoContext(r.Context(), "delaying unauthorized request")
		t := time.NewTimer(h.cl.authDelay.V)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	Error(w, r, code)
}

// decide runs the checks and returns the status that refuses the
// request, or 0 when it may go on.
func (h *accessHandler) decide(r *http.Request, run *AccessRun) int {
	refused := 0 // under "satisfy any": the refusal if no check passes
	for _, c := range h.checks {
		v := c(r, run)
		switch {
		case v == Declined:
			continue
		case v == Allowed:
			if run.SatisfyAny {
				run.Header = nil
				return 0
			}
			continue
		case run.SatisfyAny && (v == http.StatusForbidden || v == http.StatusUnauthorized):
			// A 401 wins over a 403, so that the client is asked for
			// credentials that another check may accept.
			if refused != http.StatusUnauthorized {
				refused = int(v)
			}
			continue
		case v < 100 || v > 599:
			h.loc.Logger().ErrorContext(r.Context(), fmt.Sprintf("access check returned %d", int(v)))
			return http.StatusInternalServerError
		}
		return int(v)
	}
	if refused == http.StatusForbidden {
		h.loc.Logger().ErrorContext(r.Context(), "access forbidden by rule")
	}
	return refused
}
