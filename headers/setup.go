package headers

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/server"
)

// locConf holds the directives of one level. add_header lines are
// inherited only by levels that have none of their own, as in NGINX.
type locConf struct {
	headers    []Header
	ownHeaders bool
	expires    server.Setting[Expires]
}

var module = &server.Module{
	Name:   "headers",
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
	module.Directives = []server.Directive{
		{Name: "add_header", Context: server.CtxHTTPAll, MinArgs: 2, MaxArgs: 3, Set: setAddHeader},
		{Name: "expires", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 2, Set: setExpiresDirective},
	}
	module.Filter = &server.Filter{
		Wrap: func(l *server.Location, next http.Handler) (http.Handler, error) {
			lc := server.LocConf[*locConf](l, module)
			return Handler(next, Options{Headers: append([]Header(nil), lc.headers...), Expires: lc.expires.V}), nil
		},
	}
	server.Register(module)
}

func setAddHeader(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if !lc.ownHeaders {
		lc.headers, lc.ownHeaders = nil, true
	}
	h := Header{Name: c.Args[0]}
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

func setExpiresDirective(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if lc.expires.Set {
		return c.Duplicate()
	}
	e, err := ParseExpires(c.Args)
	if err != nil {
		return c.Errorf("%v", err)
	}
	lc.expires.Put(e)
	return nil
}

// ParseExpires reads the arguments of an expires directive.
func ParseExpires(args []string) (Expires, error) {
	var e Expires
	a := args[0]
	if len(args) == 2 {
		if a != "modified" {
			return e, fmt.Errorf("invalid value %q in \"expires\" directive", a)
		}
		e.Mode = ExpiresModified
		a = args[1]
	} else {
		switch a {
		case "off":
			return Expires{Mode: ExpiresOff}, nil
		case "epoch":
			return Expires{Mode: ExpiresEpoch}, nil
		case "max":
			return Expires{Mode: ExpiresMax}, nil
		}
		e.Mode = ExpiresAccess
	}
	if strings.HasPrefix(a, "@") {
		if e.Mode == ExpiresModified {
			return e, fmt.Errorf("daily time cannot be used with \"modified\" parameter")
		}
		d, err := server.ParseDuration(a[1:])
		if err != nil || d >= 24*time.Hour {
			return e, fmt.Errorf("invalid value %q in \"expires\" directive", a)
		}
		return Expires{Mode: ExpiresDaily, D: d}, nil
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
