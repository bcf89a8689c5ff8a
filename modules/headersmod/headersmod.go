// Package headersmod wires the headers library to the server: the
// add_header and expires directives, their inheritance between levels,
// and the "headers" filter of every location.
package headersmod

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/headers"
	"github.com/mosaic-edge/mosaic/server"
)

// locConf holds the directives of one level. add_header lines are
// inherited only by levels that have none of their own, as in NGINX.
type locConf struct {
	headers    []headers.Header
	ownHeaders bool
	expires    server.Setting[headers.Expires]
}

var module = &server.Module{
	Name: "headers",
	Directives: []server.Directive{
		{Name: "add_header", Context: server.CtxHTTPAll, MinArgs: 2, MaxArgs: 3, Set: setAddHeader},
		{Name: "expires", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 2, Set: setExpires},
	},
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		if !child.ownHeaders {
			child.headers = parent.headers
		}
		child.expires.Merge(parent.expires)
		return nil
	},
}

func init() {
	// Set here, not in the literal: wrap reads module, which would make
	// module's initialisation refer to itself.
	module.Filter = &server.Filter{Wrap: wrap}
	server.Register(module)
}

// wrap builds a location's filter. headers.New copies the headers, so the
// slice that inheritance shares between levels stays as it is.
func wrap(l *server.Location, next http.Handler) (http.Handler, error) {
	lc := server.LocConf[*locConf](l, module)
	return headers.New(next, headers.Options{Headers: lc.headers, Expires: lc.expires.V})
}

func setAddHeader(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if !lc.ownHeaders {
		lc.headers, lc.ownHeaders = nil, true
	}
	h := headers.Header{Name: c.Args[0]}
	if len(c.Args) == 3 {
		if c.Args[2] != "always" {
			return c.Errorf("invalid parameter %q", c.Args[2])
		}
		h.Always = true
	}
	t, err := c.Template(c.Args[1])
	if err != nil {
		return err
	}
	h.Value = t
	lc.headers = append(lc.headers, h)
	return nil
}

func setExpires(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if lc.expires.Set {
		return c.Duplicate()
	}
	e, err := parseExpires(c.Args)
	if err != nil {
		return c.Errorf("%v", err)
	}
	lc.expires.Put(e)
	return nil
}

// parseExpires reads the arguments of an expires directive.
func parseExpires(args []string) (headers.Expires, error) {
	var e headers.Expires
	a := args[0]
	if len(args) == 2 {
		if a != "modified" {
			return e, fmt.Errorf("invalid value %q in \"expires\" directive", a)
		}
		e.Mode = headers.ExpiresModified
		a = args[1]
	} else {
		switch a {
		case "off":
			return headers.Expires{Mode: headers.ExpiresOff}, nil
		case "epoch":
			return headers.Expires{Mode: headers.ExpiresEpoch}, nil
		case "max":
			return headers.Expires{Mode: headers.ExpiresMax}, nil
		}
		e.Mode = headers.ExpiresAccess
	}
	if strings.HasPrefix(a, "@") {
		if e.Mode == headers.ExpiresModified {
			return e, errors.New("daily time cannot be used with \"modified\" parameter")
		}
		d, err := server.ParseDuration(a[1:])
		if err != nil || d >= 24*time.Hour {
			return e, fmt.Errorf("invalid value %q in \"expires\" directive", a)
		}
		return headers.Expires{Mode: headers.ExpiresDaily, D: d}, nil
	}
	neg := strings.HasPrefix(a, "-")
	d, err := server.ParseDuration(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "+"))
	if err != nil {
		return e, fmt.Errorf("invalid value %q in \"expires\" directive", a)
	}
	if neg {
		d = -d
	}
	e.D = d
	return e, nil
}
