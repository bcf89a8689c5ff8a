// Package mirrormod wires the mirror library to the server: the mirror
// and mirror_request_body directives, their inheritance, and the
// precontent step where NGINX runs the module, for the client's request
// only (internal redirects included, subrequests not). Each mirror is a
// background subrequest (server.Background) through the server's
// locations, and the request is held until the mirrors end
// (server.AfterResponse).
package mirrormod

import (
	"net/http"

	"github.com/mosaic-edge/mosaic/mirror"
	"github.com/mosaic-edge/mosaic/server"
)

// locConf is one level's settings. A level's mirror lines replace its
// parent's list whole, as NGINX merges the array; "off" is an empty list
// of its own.
type locConf struct {
	uris        []string
	own         bool // mirror appears at this level ("off" included)
	off         bool
	requestBody server.Setting[bool]
}

var module = &server.Module{
	Name: "mirror",
	Directives: []server.Directive{
		{Name: "mirror", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setMirror},
		{Name: "mirror_request_body", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: server.SetFlag(func(l *locConf) *server.Setting[bool] { return &l.requestBody })},
	},
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		if !child.own {
			child.uris, child.off = parent.uris, parent.off
		}
		child.requestBody.Merge(parent.requestBody)
		return nil
	},
}

func init() {
	module.Precontent = precontent
	server.Register(module)
}

// setMirror reads "mirror uri" and "mirror off", which NGINX refuses
// together at one level, and "off" twice.
func setMirror(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if c.Args[0] == "off" {
		if lc.own {
			return c.Duplicate()
		}
		lc.own, lc.off = true, true
		return nil
	}
	if lc.off {
		return c.Duplicate()
	}
	lc.own = true
	lc.uris = append(lc.uris, c.Args[0])
	return nil
}

func precontent(l *server.Location, next http.Handler) (http.Handler, error) {
	lc := server.LocConf[*locConf](l, module)
	if lc.off || len(lc.uris) == 0 {
		return next, nil
	}
	mem, temp := l.ClientBodyBuffer()
	m := &mirror.Mirror{
		URIs:        lc.uris,
		RequestBody: lc.requestBody.Or(true),
		BodyMemory:  mem,
		BodyTemp:    temp,
		BodyKeep:    l.ClientBodyKeep(),
		Start:       server.Background,
		Hold:        server.AfterResponse,
		Error:       server.Error,
	}
	h := m.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if server.SubrequestDepth(r) > 0 {
			next.ServeHTTP(w, r) // NGINX mirrors the main request only
			return
		}
		h.ServeHTTP(w, r)
	}), nil
}
