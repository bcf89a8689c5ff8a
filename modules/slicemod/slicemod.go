// Package slicemod makes package slice a module of the mosaic server:
// the slice directive, inherited http -> server -> location as NGINX
// merges it (0, the default, turns slicing off), the $slice_range
// variable, and the "slice" filter, nearest the content as NGINX's slice
// filter is the first to see a response's header. Further slices are
// subrequests (server.SubrequestClone) for the request's URI in its
// location, which run the location's content (a cache in front of the
// proxy) again.
package slicemod

import (
	"net/http"
	"strings"

	"github.com/mosaic-edge/mosaic/modules/staticmod"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/slice"
	"github.com/mosaic-edge/mosaic/static"
	"github.com/mosaic-edge/mosaic/vars"
)

type locConf struct {
	size server.Setting[int64]
}

var module = &server.Module{
	Name: "slice",
	Directives: []server.Directive{
		{Name: "slice", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setSize},
	},
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		c.(*locConf).size.Merge(p.(*locConf).size)
		return nil
	},
}

func init() {
	module.Filter = &server.Filter{
		// Only the client's request is sliced: a subrequest (a slice
		// itself, an SSI include) finds no range to read, as NGINX's
		// $slice_range is not found in subrequests it did not make.
		InSubrequest: false,
		Wrap:         wrap,
	}
	vars.Register("slice_range", func(r *http.Request, _ *vars.State) string {
		v, _ := slice.Range(r)
		return v
	})
	server.Register(module)
}

// setSize reads the size as NGINX 1.22's ngx_conf_set_size_slot: a
// number with k or m, not g, which its size parser does not know.
func setSize(c *server.Cmd) error {
	a := c.Args[0]
	n, err := server.ParseSize(a)
	if err != nil || strings.HasSuffix(a, "g") || strings.HasSuffix(a, "G") || strings.HasPrefix(a, "+") {
		return c.Errorf("%q directive invalid value", c.Name)
	}
	return server.Put(c, &c.Loc().(*locConf).size, n)
}

func wrap(l *server.Location, next http.Handler) (http.Handler, error) {
	size := server.LocConf[*locConf](l, module).size.V
	if size == 0 {
		return next, nil
	}
	return slice.New(next, slice.Options{
		Size: size,
		Fetch: func(r *http.Request) (*http.Response, error) {
			return server.SubrequestClone(r)
		},
		Logger: l.Logger(),
		Error:  server.Error,
		// NGINX's not-modified filter answers a sliced response that
		// its cache may store or served: one that went through a cache.
		Conditional: func(r *http.Request) bool {
			v, _ := vars.FromContext(r.Context()).Get("upstream_cache_status")
			return v != ""
		},
		IfModifiedSince: ims(staticmod.IfModifiedSince(l)),
	})
}

// ims names if_modified_since for slice.Options.IfModifiedSince.
func ims(m static.ModifiedSince) string {
	switch m {
	case static.ModifiedSinceOff:
		return "off"
	case static.ModifiedSinceBefore:
		return "before"
	}
	return "exact"
}
