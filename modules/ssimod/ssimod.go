// Package ssimod makes package ssi a module of the mosaic server: it
// declares the ssi* directives, merges them http -> server -> location,
// and puts an SSI processor in the chain of each location with "ssi on".
// Included documents are the server's subrequests; the SSI variables of a
// page travel in the request context, which a subrequest inherits, so an
// included document's own SSI sees them, as in NGINX.
package ssimod

import (
	"net/http"

	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/ssi"
	"github.com/mosaic-edge/mosaic/vars"
)

type locConf struct {
	enable       server.Setting[bool]
	types        server.Setting[[]string]
	silentErrors server.Setting[bool]
	lastModified server.Setting[bool]
	valueLength  server.Setting[int]
}

var module = &server.Module{
	Name:   "ssi",
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		child.enable.Merge(parent.enable)
		child.types.Merge(parent.types)
		child.silentErrors.Merge(parent.silentErrors)
		child.lastModified.Merge(parent.lastModified)
		child.valueLength.Merge(parent.valueLength)
		return nil
	},
}

func flag(get func(*locConf) *server.Setting[bool]) func(c *server.Cmd) error {
	return func(c *server.Cmd) error { return server.PutFlag(c, get(c.Loc().(*locConf))) }
}

func init() {
	module.Directives = []server.Directive{
		// As NGINX, "ssi" alone of the module may appear inside "if" in
		// a location.
		{Name: "ssi", Context: server.CtxHTTPAll | server.CtxLocationIf, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *locConf) *server.Setting[bool] { return &l.enable })},
		{Name: "ssi_silent_errors", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *locConf) *server.Setting[bool] { return &l.silentErrors })},
		{Name: "ssi_last_modified", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: flag(func(l *locConf) *server.Setting[bool] { return &l.lastModified })},
		{Name: "ssi_types", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: func(c *server.Cmd) error {
			return server.AppendTypes(c, &c.Loc().(*locConf).types)
		}},
		{Name: "ssi_value_length", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			n, err := c.Size(c.Args[0])
			if err != nil {
				return err
			}
			if n < 1 || n > 1<<20 {
				return c.Invalid(c.Args[0], "it must be 1..1m")
			}
			return server.Put(c, &c.Loc().(*locConf).valueLength, int(n))
		}},
		// Both tune how NGINX hands file buffers to sendfile; mosaic
		// reads a processed file through memory and has nothing to tune.
		{Name: "ssi_min_file_chunk", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			if _, err := c.Size(c.Args[0]); err != nil {
				return err
			}
			c.Notice(`ignoring "ssi_min_file_chunk": mosaic processes SSI pages in memory, never by sendfile`)
			return nil
		}},
		{Name: "ssi_ignore_recycled_buffers", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			if _, err := c.Flag(); err != nil {
				return err
			}
			c.Notice(`ignoring "ssi_ignore_recycled_buffers": mosaic has no recycled buffers`)
			return nil
		}},
	}
	module.Filter = &server.Filter{
		// An included document is processed by its own location's "ssi".
		InSubrequest: true,
		Wrap: func(l *server.Location, next http.Handler) (http.Handler, error) {
			lc := server.LocConf[*locConf](l, module)
			if !lc.enable.V {
				return next, nil
			}
			var scope *vars.Scope
			if l.Server() != nil {
				scope = l.Server().Config().Vars()
			}
			return ssi.New(next, ssi.Options{
				Types:        lc.types.V,
				SilentErrors: lc.silentErrors.V,
				LastModified: lc.lastModified.V,
				ValueLength:  lc.valueLength.V,
				Variable:     variable(scope),
				Fetch:        fetch,
				SetLimit:     setLimit,
				Logger:       l.Logger(),
			}), nil
		},
	}
	server.Register(module)
}

// Transformed returns, for static.Options.Transformed, the test of the
// types l's SSI rebuilds, or nil when l has "ssi off".
func Transformed(l *server.Location) func(contentType string) bool {
	lc := server.LocConf[*locConf](l, module)
	if !lc.enable.V {
		return nil
	}
	return ssi.Processed(lc.types.V)
}

// variable looks a request variable up by name at run time: one the
// configuration defines (set, map), else one of the registry. It tells an
// empty value (a field sent empty) from none (a field not sent), for
// which echo prints its default, as NGINX's does.
func variable(scope *vars.Scope) func(r *http.Request, name string) (string, bool) {
	return func(r *http.Request, name string) (string, bool) {
		st := vars.FromContext(r.Context())
		if scope != nil {
			if v, ok := scope.Lookup(name); ok {
				return v.Value(r, st)
			}
		}
		val, ok := vars.LookupValue(name)
		if !ok {
			return "", false
		}
		return val(r, st)
	}
}

// fetch includes uri with a subrequest.
func fetch(parent *http.Request, uri string) (*http.Response, error) {
	return server.Include(parent, uri, IncludeHeader(parent))
}

// IncludeHeader is the request header of a subrequest whose body goes
// into parent's response (an include, add_before_body): parent's, as
// NGINX's subrequests carry, less what asks for part of a response or a
// 304 (NGINX applies those to the main request only) and less
// Accept-Encoding, since the page is compressed as a whole.
func IncludeHeader(parent *http.Request) http.Header {
	h := parent.Header.Clone()
	for _, k := range []string{"Range", "If-Range", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "Accept-Encoding"} {
		h.Del(k)
	}
	return h
}

// setLimit is the included location's subrequest_output_buffer_size.
func setLimit(resp *http.Response) int64 {
	if resp.Request == nil {
		return 0
	}
	return server.SubrequestOutputBufferSize(resp.Request)
}
