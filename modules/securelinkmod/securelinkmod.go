// Package securelinkmod wires the securelink library to the server as
// NGINX's ngx_http_secure_link_module: secure_link, secure_link_md5 and
// secure_link_secret, and the variables $secure_link ("" for a missing,
// malformed or wrong hash, "0" for an expired link, "1" for a valid one;
// the link itself in the secure_link_secret form) and
// $secure_link_expires (the link's expiry time, once $secure_link has
// read it).
package securelinkmod

import (
	"net/http"
	"time"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/securelink"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/vars"
)

// locConf is one level's settings.
type locConf struct {
	link   server.Setting[*vars.Template] // secure_link
	md5    server.Setting[*vars.Template] // secure_link_md5
	secret server.Setting[string]         // secure_link_secret
	// secretAt is the secure_link_secret line, for the error of a level
	// that mixes it with the other two.
	secretAt *conf.Directive
}

var module = &server.Module{
	Name: "secure_link",
	Directives: []server.Directive{
		{Name: "secure_link", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: setTemplate(func(lc *locConf) *server.Setting[*vars.Template] { return &lc.link })},
		{Name: "secure_link_md5", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: setTemplate(func(lc *locConf) *server.Setting[*vars.Template] { return &lc.md5 })},
		{Name: "secure_link_secret", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			lc := c.Loc().(*locConf)
			lc.secretAt = c.Directive
			return server.Put(c, &lc.secret, c.Args[0])
		}},
	},
	NewLoc:   func() any { return &locConf{} },
	MergeLoc: merge,
}

// expiresVar is where $secure_link leaves the expiry time it read, as
// NGINX's module keeps it in the request's context.
//
// NGINX keeps a variable's first value for the rest of the request, an
// empty one too: $secure_link_expires read before $secure_link stays
// empty, and so does the secure_link_md5 text that names it (the link
// is then not found). An empty value recorded on first read keeps that.
const expiresVar = "secure_link_expires"

var requestURI vars.Getter

func init() {
	var ok bool
	if requestURI, ok = vars.Lookup("request_uri"); !ok {
		panic("securelinkmod: no $request_uri")
	}
	vars.Register("secure_link", secureLink)
	vars.Register(expiresVar, func(_ *http.Request, st *vars.State) string {
		v, read := st.Get(expiresVar)
		if !read {
			st.Set(expiresVar, "")
		}
		return v
	})
	server.Register(module)
}

func setTemplate(field func(*locConf) *server.Setting[*vars.Template]) func(*server.Cmd) error {
	return func(c *server.Cmd) error {
		t, err := c.Template(c.Args[0])
		if err != nil {
			return err
		}
		return server.Put(c, field(c.Loc().(*locConf)), t)
	}
}

// merge follows NGINX's: a level with its own secure_link_secret uses
// that form alone (and may not set the other two); otherwise secure_link
// and secure_link_md5 are inherited one by one, and the parent's secret
// only when neither is set.
func merge(p, c any) error {
	parent, child := p.(*locConf), c.(*locConf)
	if child.secret.Set {
		if child.link.Set || child.md5.Set {
			return conf.Errorf(child.secretAt, `"secure_link_secret" cannot be mixed with "secure_link" and "secure_link_md5"`)
		}
		return nil
	}
	child.link.Merge(parent.link)
	child.md5.Merge(parent.md5)
	if !child.link.Set && !child.md5.Set {
		child.secret = parent.secret
	}
	return nil
}

// busyKey marks a request whose $secure_link is being computed. A
// registered variable has no cycle check of its own, and secure_link or
// secure_link_md5 may name $secure_link: computed again inside itself it
// would recurse without end, a stack overflow that ends the process.
// NGINX stops the cycle ("cycle while evaluating variable") and the inner
// value is empty, which is what it is here.
const busyKey = "secure_link busy"

// secureLink is $secure_link for the location serving r.
func secureLink(r *http.Request, st *vars.State) string {
	if busy, _ := st.Get(busyKey); busy != "" {
		return ""
	}
	st.Set(busyKey, "1")
	defer st.Set(busyKey, "")
	l := server.CurrentLocation(r)
	if l == nil {
		return ""
	}
	lc := server.LocConf[*locConf](l, module)
	if lc.secret.Set {
		link, _ := securelink.VerifySecret(requestURI(r, st), lc.secret.V)
		return link
	}
	if lc.link.V == nil || lc.md5.V == nil {
		return ""
	}
	link, ok := securelink.Parse(lc.link.V.EvalState(r, st))
	if _, read := st.Get(expiresVar); !read && link.Expires != "" {
		st.Set(expiresVar, link.Expires)
	}
	if !ok {
		return ""
	}
	return link.Verify(lc.md5.V.EvalState(r, st), time.Now())
}
