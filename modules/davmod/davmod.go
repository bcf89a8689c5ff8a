// Package davmod wires package dav to the server as NGINX's
// ngx_http_dav_module: dav_methods, dav_access, create_full_put_path
// and min_delete_depth. A location whose dav_methods names a method
// gets dav as its content, in front of the static files, which serve
// the other methods, as NGINX's content phase runs the DAV handler
// before the static one.
package davmod

import (
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/mosaic-edge/mosaic/dav"
	"github.com/mosaic-edge/mosaic/modules/staticmod"
	"github.com/mosaic-edge/mosaic/server"
)

// methodsOff is dav_methods' "off", a bit of its own as in NGINX, so that
// a level that says "off" does not inherit its parent's methods.
const methodsOff dav.Methods = 1 << 7

// methodNames are dav_methods' values, matched without regard to case.
var methodNames = map[string]dav.Methods{
	"off": methodsOff, "put": dav.Put, "delete": dav.Delete, "mkcol": dav.Mkcol, "copy": dav.Copy, "move": dav.Move,
}

type locConf struct {
	methods        dav.Methods // 0: not set at this level
	access         server.Setting[fs.FileMode]
	minDeleteDepth server.Setting[int]
	fullPutPath    server.Setting[bool]
}

var module = &server.Module{
	Name: "dav",
	Directives: []server.Directive{
		{Name: "dav_methods", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: setMethods},
		{Name: "create_full_put_path", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: server.SetFlag(func(l *locConf) *server.Setting[bool] { return &l.fullPutPath })},
		{Name: "min_delete_depth", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutNum(c, &c.Loc().(*locConf).minDeleteDepth)
		}},
		{Name: "dav_access", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 3, Set: setAccess},
	},
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		if child.methods == 0 {
			child.methods = parent.methods
		}
		child.access.Merge(parent.access)
		child.minDeleteDepth.Merge(parent.minDeleteDepth)
		child.fullPutPath.Merge(parent.fullPutPath)
		return nil
	},
}

func init() {
	module.Content = content
	server.Register(module)
}

// setMethods is ngx_conf_set_bitmask_slot: several lines at one level add
// up, a value named twice is a warning.
func setMethods(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	for _, a := range c.Args {
		bit, ok := methodNames[strings.ToLower(a)]
		if !ok {
			return c.Errorf("invalid value %q", a)
		}
		if lc.methods&bit != 0 {
			c.Notice(fmt.Sprintf("duplicate value %q", a))
		}
		lc.methods |= bit
	}
	return nil
}

// setAccess is ngx_conf_set_access_slot: "user:rw group:r all:r", the
// owner's read and write always granted unless "user:" says otherwise.
func setAccess(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if lc.access.Set {
		return c.Duplicate()
	}
	var access fs.FileMode
	user := fs.FileMode(0o600)
	for _, a := range c.Args {
		var shift uint
		var rights string
		switch {
		case strings.HasPrefix(a, "user:"):
			shift, rights, user = 6, a[len("user:"):], 0
		case strings.HasPrefix(a, "group:"):
			shift, rights = 3, a[len("group:"):]
		case strings.HasPrefix(a, "all:"):
			shift, rights = 0, a[len("all:"):]
		default:
			return c.Errorf("invalid value %q", a)
		}
		switch rights {
		case "rw":
			access |= 6 << shift
		case "r":
			access |= 4 << shift
		default:
			return c.Errorf("invalid value %q", a)
		}
	}
	lc.access.Put(access | user)
	return nil
}

func content(l *server.Location) (http.Handler, error) {
	lc := server.LocConf[*locConf](l, module)
	methods := lc.methods &^ methodsOff
	if methods == 0 {
		return nil, nil
	}
	next, err := staticmod.Content(l)
	if err != nil {
		return nil, err
	}
	_, tempFile := l.ClientBodyBuffer()
	return dav.New(dav.Options{
		AliasPrefix:       l.AliasPrefix(),
		Methods:           methods,
		Access:            lc.access.Or(0o600),
		MinDeleteDepth:    lc.minDeleteDepth.V,
		CreateFullPutPath: lc.fullPutPath.V,
		Path:              filePath(l),
		TempFile:          tempFile,
		Next:              next,
		Location:          server.AbsoluteRedirect,
		Error:             server.Error,
		Logger:            l.Logger(),
	}), nil
}

// filePath is the location's FilePath, but for an alias written without
// its trailing slash ("alias /srv/data;") the paths below the alias
// directory are bounded by that directory rather than by its parent,
// which FilePath names so that the directory's own URI maps to a name.
// The alias directory is then the root that dav never removes, and no
// link in it leads to its siblings.
func filePath(l *server.Location) func(r *http.Request, uri string) (string, string) {
	tpl, alias := l.Root()
	if !alias || l.AliasWhole() {
		return l.FilePath
	}
	return func(r *http.Request, uri string) (string, string) {
		dir, rel := l.FilePath(r, uri)
		a := tpl.Eval(r)
		base := a[strings.LastIndexByte(a, '/')+1:]
		// A value ending in ".." (a variable's, which FilePath leaves in
		// rel for dav to refuse) names no directory to bound by.
		if base != "" && base != ".." && (rel == base || strings.HasPrefix(rel, base+"/")) {
			return filepath.Join(dir, base), rel[len(base):]
		}
		return dir, rel
	}
}
