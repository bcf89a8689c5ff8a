package server

import (
	"strings"
)

// limitMethods are the methods limit_except may name: NGINX's list.
var limitMethods = map[string]bool{
	"GET": true, "HEAD": true, "POST": true, "PUT": true, "DELETE": true, "MKCOL": true,
	"COPY": true, "MOVE": true, "OPTIONS": true, "PROPFIND": true, "PROPPATCH": true,
	"LOCK": true, "UNLOCK": true, "PATCH": true,
}

// setLimitExcept reads "limit_except method ... { ... }". As in NGINX,
// the block is an implicit location inside the enclosing one: it inherits
// that location's settings, and a request whose method is not listed
// (GET implies HEAD) is served with the block's settings instead. Only
// directives that allow CtxLimitExcept may appear in it: NGINX's are
// allow, deny, auth_basic, auth_basic_user_file, access_log and
// proxy_pass.
func setLimitExcept(c *Cmd) error {
	parent := c.level
	if parent.limitExcept != nil {
		return c.Duplicate()
	}
	allowed := map[string]bool{}
	for _, a := range c.Args {
		m := strings.ToUpper(a)
		if !limitMethods[m] {
			return c.Errorf("invalid method %q", a)
		}
		allowed[m] = true
	}
	if allowed["GET"] {
		allowed["HEAD"] = true
	}
	l := c.b.newLevel(levelLimitExcept, parent, parent.server, c.Directive)
	l.pattern = parent.pattern
	parent.server.implicit = append(parent.server.implicit, l)
	parent.limitExcept, parent.limitAllowed = l, allowed
	return c.b.walk(c.Block, CtxLimitExcept, l, nil)
}

// forMethod returns the level that serves a request with this method:
// the location itself, or its limit_except block for a method the block
// does not list.
func (l *Location) forMethod(method string) *Location {
	if l.limitExcept == nil || l.limitAllowed[method] {
		return l
	}
	return l.limitExcept
}
