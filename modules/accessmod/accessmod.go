// Package accessmod wires the access library to the server: the "allow"
// and "deny" directives and the module's check in the access phase.
package accessmod

import (
	"net/http"

	"github.com/mosaic-edge/mosaic/access"
	"github.com/mosaic-edge/mosaic/server"
)

// locConf is one level's rules. As in NGINX, a level with no rule of its
// own takes all of its parent's; one with any rule has only its own.
type locConf struct {
	rules *access.List
}

var module = &server.Module{
	Name: "access",
	Directives: []server.Directive{
		{Name: "allow", Context: server.CtxHTTPAll | server.CtxLimitExcept, MinArgs: 1, MaxArgs: 1, Set: setRule(false)},
		{Name: "deny", Context: server.CtxHTTPAll | server.CtxLimitExcept, MinArgs: 1, MaxArgs: 1, Set: setRule(true)},
	},
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		if child := c.(*locConf); child.rules == nil {
			child.rules = p.(*locConf).rules
		}
		return nil
	},
}

func init() {
	// Set here, not in the literal: check reads module.
	module.Access = check
	server.Register(module)
}

func setRule(deny bool) func(*server.Cmd) error {
	return func(c *server.Cmd) error {
		lc := c.Loc().(*locConf)
		if lc.rules == nil {
			lc.rules = &access.List{}
		}
		warning, err := lc.rules.Add(deny, c.Args[0])
		if err != nil {
			return c.Errorf("%v", err)
		}
		if warning != "" {
			c.Notice(warning)
		}
		return nil
	}
}

// check is the location's access check, nil without rules.
func check(l *server.Location) (server.AccessCheck, error) {
	rules := server.LocConf[*locConf](l, module).rules
	if rules.Empty() {
		return nil, nil
	}
	return func(r *http.Request, run *server.AccessRun) server.Verdict {
		switch rules.Check(r.RemoteAddr) {
		case access.Allow:
			return server.Allowed
		case access.Deny:
			if !run.SatisfyAny {
				// Under "satisfy any" the core logs it, if no other
				// check lets the request through.
				run.Loc.Logger().ErrorContext(r.Context(), "access forbidden by rule")
			}
			return http.StatusForbidden
		}
		return server.Declined
	}, nil
}
