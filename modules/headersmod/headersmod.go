// Package headersmod wires the headers library to the server: the
// add_header, add_trailer and expires directives, their inheritance between levels,
// and the "headers" filter of every location.
package headersmod

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/headers"
	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/vars"
)

// locConf holds the directives of one level. add_header lines are
// inherited only by levels that have none of their own, as in NGINX.
type locConf struct {
	headers    []headers.Header
	ownHeaders bool
	// trailers (add_trailer) are inherited as headers are, on their own.
	trailers    []headers.Header
	ownTrailers bool
	expires     server.Setting[expiresConf]
}

// expiresConf is an expires line: a fixed setting, or a value with
// variables parsed for each response ("expires $expires", the value of a
// map), counted from Last-Modified when modified is set.
type expiresConf struct {
	static   headers.Expires
	value    *vars.Template
	modified bool
}

var module = &server.Module{
	Name: "headers",
	Directives: []server.Directive{
		{Name: "add_header", Context: server.CtxHTTPAll | server.CtxLocationIf, MinArgs: 2, MaxArgs: 3, Set: setAddHeader},
		{Name: "add_trailer", Context: server.CtxHTTPAll | server.CtxLocationIf, MinArgs: 2, MaxArgs: 3, Set: setAddTrailer},
		{Name: "expires", Context: server.CtxHTTPAll | server.CtxLocationIf, MinArgs: 1, MaxArgs: 2, Set: setExpires},
	},
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		if !child.ownHeaders {
			child.headers = parent.headers
		}
		if !child.ownTrailers {
			child.trailers = parent.trailers
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
	opts := headers.Options{Headers: lc.headers, Trailers: lc.trailers, Expires: lc.expires.V.static}
	if e := lc.expires.V; e.value != nil {
		opts.ExpiresFunc = e.eval
	}
	return headers.New(next, opts)
}

// eval parses the value of "expires $var" for one response, as NGINX
// does: "epoch", "max", "off" (without "modified"), a time or "@time";
// anything else sets nothing.
func (e expiresConf) eval(r *http.Request, _ http.Header) (headers.Expires, bool) {
	args := []string{e.value.Eval(r)}
	if e.modified {
		args = []string{"modified", args[0]}
	}
	x, err := parseExpires(args)
	return x, err == nil
}

func setAddHeader(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if !lc.ownHeaders {
		lc.headers, lc.ownHeaders = nil, true
	}
	h, err := readField(c)
	if err != nil {
		return err
	}
	lc.headers = append(lc.headers, h)
	return nil
}

// setAddTrailer reads add_trailer, whose arguments are add_header's.
func setAddTrailer(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if !lc.ownTrailers {
		lc.trailers, lc.ownTrailers = nil, true
	}
	h, err := readField(c)
	if err != nil {
		return err
	}
	lc.trailers = append(lc.trailers, h)
	return nil
}

// readField reads "name value [always]".
func readField(c *server.Cmd) (headers.Header, error) {
	// The library refuses a name that is not a token only when the
	// location is built, where its error can name no line: check it here
	// so that the error names the directive's file:line.
	if !header.IsToken(c.Args[0]) {
		return headers.Header{}, c.Errorf("invalid header name %q in %q directive", c.Args[0], c.Name)
	}
	h := headers.Header{Name: c.Args[0]}
	if len(c.Args) == 3 {
		if c.Args[2] != "always" {
			return h, c.Errorf("invalid parameter %q", c.Args[2])
		}
		h.Always = true
	}
	t, err := c.Template(c.Args[1])
	if err != nil {
		return h, err
	}
	h.Value = t
	return h, nil
}

func setExpires(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if lc.expires.Set {
		return c.Duplicate()
	}
	modified := len(c.Args) == 2
	if modified && c.Args[0] != "modified" {
		return c.Errorf("invalid value %q in \"expires\" directive", c.Args[0])
	}
	t, err := c.Template(c.Args[len(c.Args)-1])
	if err != nil {
		return err
	}
	if !t.Static() {
		lc.expires.Put(expiresConf{value: t, modified: modified})
		return nil
	}
	e, err := parseExpires(c.Args)
	if err != nil {
		return c.Errorf("%v", err)
	}
	lc.expires.Put(expiresConf{static: e})
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
		d, err := server.ParseSeconds(a[1:])
		// As NGINX, which refuses more than 24 hours: "@24h" is
		// the coming midnight.
		if err != nil || d > 24*time.Hour {
			return e, fmt.Errorf("invalid value %q in \"expires\" directive", a)
		}
		return headers.Expires{Mode: headers.ExpiresDaily, D: d}, nil
	}
	neg := strings.HasPrefix(a, "-")
	d, err := server.ParseSeconds(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "+"))
	if err != nil {
		return e, fmt.Errorf("invalid value %q in \"expires\" directive", a)
	}
	if neg {
		d = -d
	}
	e.D = d
	return e, nil
}
