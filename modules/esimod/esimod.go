// Package esimod makes package esi a module of the mosaic server: it
// declares the esi* directives, merges them http -> server -> location, and
// puts an ESI handler, built once when the configuration loads, in the
// chain of each location with "esi on". Fragments are fetched as the
// server's subrequests (an esi.Fetcher over server.Subrequest);
// Transformed tells the static module's wiring which of a location's files
// the handler rebuilds.
package esimod

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/esi"
	"github.com/mosaic-edge/mosaic/modules/statusmod"
	"github.com/mosaic-edge/mosaic/server"
)

// locConf holds the module's directives at one level.
type locConf struct {
	enable          server.Setting[bool]
	types           server.Setting[[]string]
	silentErrors    server.Setting[bool]
	bufferSize      server.Setting[int]
	maxDepth        server.Setting[int]
	maxIncludes     server.Setting[int]
	fragmentTimeout server.Setting[time.Duration]
	surrogate       server.Setting[bool]
}

// maxBufferSize bounds esi_buffer_size: a larger buffer only delays the
// first bytes of the page and holds memory per request.
const maxBufferSize = 64 << 20

var module = &server.Module{
	Name:   "esi",
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		child.enable.Merge(parent.enable)
		child.types.Merge(parent.types)
		child.silentErrors.Merge(parent.silentErrors)
		child.bufferSize.Merge(parent.bufferSize)
		child.maxDepth.Merge(parent.maxDepth)
		child.maxIncludes.Merge(parent.maxIncludes)
		child.fragmentTimeout.Merge(parent.fragmentTimeout)
		child.surrogate.Merge(parent.surrogate)
		return nil
	},
}

func init() {
	module.Directives = []server.Directive{
		{Name: "esi", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutFlag(c, &c.Loc().(*locConf).enable)
		}},
		{Name: "esi_types", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: func(c *server.Cmd) error {
			return server.AppendTypes(c, &c.Loc().(*locConf).types)
		}},
		{Name: "esi_silent_errors", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutFlag(c, &c.Loc().(*locConf).silentErrors)
		}},
		{Name: "esi_buffer_size", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setBufferSize},
		{Name: "esi_max_depth", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			// A fragment is a subrequest one level deeper than its page,
			// so a depth beyond the server's subrequest bound could never
			// be reached: it is refused here rather than failing later.
			n, err := c.Int(c.Args[0], 1, server.MaxSubrequestDepth)
			if err != nil {
				return err
			}
			return server.Put(c, &c.Loc().(*locConf).maxDepth, n)
		}},
		{Name: "esi_max_includes", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			n, err := c.Int(c.Args[0], 1, 1<<20)
			if err != nil {
				return err
			}
			return server.Put(c, &c.Loc().(*locConf).maxIncludes, n)
		}},
		{Name: "esi_fragment_timeout", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setFragmentTimeout},
		{Name: "esi_surrogate", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutFlag(c, &c.Loc().(*locConf).surrogate)
		}},
	}
	module.Filter = &server.Filter{
		// A fragment's location processes the fragment's own ESI (or not)
		// by its own "esi" setting, inside the subrequest.
		InSubrequest: true,
		Wrap: func(l *server.Location, next http.Handler) (http.Handler, error) {
			lc := server.LocConf[*locConf](l, module)
			if !lc.enable.V {
				return next, nil
			}
			return esi.New(next, lc.options(l))
		},
	}
	server.Register(module)
}

// Transformed returns, for static.Options.Transformed, the test of the
// types whose files l's ESI handler rebuilds, or nil when l has "esi off".
// Such files are served whole, without their validators: ranges and 304s
// would answer for the markup, not for the page the client gets.
func Transformed(l *server.Location) func(contentType string) bool {
	lc := server.LocConf[*locConf](l, module)
	if !lc.enable.V {
		return nil
	}
	return esi.ProcessedTypes(lc.types.V)
}

// options turns a location's merged directives into esi.Options.
func (lc *locConf) options(l *server.Location) esi.Options {
	return esi.Options{
		Types:           lc.types.V,
		SilentErrors:    lc.silentErrors.V,
		BufferSize:      lc.bufferSize.V,
		MaxDepth:        lc.maxDepth.V,
		MaxIncludes:     lc.maxIncludes.V,
		FragmentTimeout: lc.fragmentTimeout.Or(esi.DefaultFragmentTimeout),
		Surrogate:       lc.surrogate.V,
		Logger:          l.Logger(),
		Fetcher:         subrequests{},
	}
}

// subrequests is the esi.Fetcher of the server: it fetches a fragment with
// a subrequest through the page's virtual server.
type subrequests struct{}

// Fetch issues the subrequest from req, the fragment request that esi
// built: its header is already shaped, and its context carries the
// fragment timeout and the nesting depth, so the fragment location's own
// ESI handler continues the bounds and cancelling the fragment cancels the
// subrequest. The fragment location's chain decided about the fragment's
// ESI, so the body is spliced as it is (Final).
func (subrequests) Fetch(_, req *http.Request) (*esi.Fragment, error) {
	resp, err := server.Subrequest(req, req.URL.RequestURI(), req.Header)
	// For the metrics endpoint: a fragment that failed or answered an
	// error status counts as an error.
	statusmod.Collector().Fragment(err == nil && resp.StatusCode < 400)
	if err != nil {
		return nil, fmt.Errorf("subrequest: %w", err)
	}
	return &esi.Fragment{Status: resp.StatusCode, Header: resp.Header, Body: resp.Body, Final: true}, nil
}

func setBufferSize(c *server.Cmd) error {
	n, err := c.Size(c.Args[0])
	if err != nil {
		return err
	}
	if n < 1 || n > maxBufferSize {
		return c.Invalid(c.Args[0], "it must be 1..64m")
	}
	return server.Put(c, &c.Loc().(*locConf).bufferSize, int(n))
}

// setFragmentTimeout reads "esi_fragment_timeout time | off"; off is a
// negative FragmentTimeout, which esi.New reads as no bound.
func setFragmentTimeout(c *server.Cmd) error {
	if strings.EqualFold(c.Args[0], "off") {
		return server.Put(c, &c.Loc().(*locConf).fragmentTimeout, -1)
	}
	d, err := c.Duration(c.Args[0])
	if err != nil {
		return err
	}
	if d <= 0 {
		return c.Invalid(c.Args[0], `it must be a positive time or "off"`)
	}
	return server.Put(c, &c.Loc().(*locConf).fragmentTimeout, d)
}
