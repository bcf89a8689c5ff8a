// Package authmod wires the auth library to the server: NGINX's
// auth_basic module (auth_basic, auth_basic_user_file) and auth_request
// module (auth_request, auth_request_set), each a check of the access
// phase.
package authmod

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/mosaic-edge/mosaic/auth"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/vars"
)

// basicConf is one level's auth_basic settings; unset ones are
// inherited.
type basicConf struct {
	realm server.Setting[*vars.Template]
	file  server.Setting[userFile]
}

// userFile is auth_basic_user_file: a path with variables, taken from
// the directory of the main configuration file unless it starts with
// "/" (prefix holds that directory and a "/", as NGINX prepends its
// configuration prefix to a value that does not start with "/", even
// one that a variable makes absolute).
type userFile struct {
	prefix string
	path   *vars.Template
}

func (u userFile) eval(r *http.Request) string { return u.prefix + u.path.Eval(r) }

// basicMain holds the user files read, shared by the configuration's
// locations.
type basicMain struct{ files auth.Files }

var basic = &server.Module{
	Name: "auth_basic",
	Directives: []server.Directive{
		{Name: "auth_basic", Context: server.CtxHTTPAll | server.CtxLimitExcept, MinArgs: 1, MaxArgs: 1, Set: setRealm},
		{Name: "auth_basic_user_file", Context: server.CtxHTTPAll | server.CtxLimitExcept, MinArgs: 1, MaxArgs: 1, Set: setUserFile},
	},
	NewLoc:  func() any { return &basicConf{} },
	NewMain: func() any { return &basicMain{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*basicConf), c.(*basicConf)
		child.realm.Merge(parent.realm)
		child.file.Merge(parent.file)
		return nil
	},
}

func setRealm(c *server.Cmd) error {
	t, err := c.Template(c.Args[0])
	if err != nil {
		return err
	}
	return server.Put(c, &c.Loc().(*basicConf).realm, t)
}

func setUserFile(c *server.Cmd) error {
	t, err := c.Template(c.Args[0])
	if err != nil {
		return err
	}
	uf := userFile{path: t}
	if !strings.HasPrefix(c.Args[0], "/") {
		dir, err := filepath.Abs(filepath.Dir(c.Config().File))
		if err != nil {
			return c.Errorf("%v", err)
		}
		uf.prefix = dir + "/"
	}
	return server.Put(c, &c.Loc().(*basicConf).file, uf)
}

// basicCheck is a location's auth_basic check: nil unless both the realm
// and the user file are set, and the realm is not a plain "off".
func basicCheck(l *server.Location) (server.AccessCheck, error) {
	bc := server.LocConf[*basicConf](l, basic)
	if !bc.realm.Set || !bc.file.Set || (bc.realm.V.Static() && bc.realm.V.Literal() == "off") {
		return nil, nil
	}
	realm, file := bc.realm.V, bc.file.V
	files := &server.MainConf[*basicMain](l.Server().Config(), basic).files
	if !file.path.Static() {
		// A path made of variables is read for every request, in
		// pieces, as NGINX reads it, and kept nowhere: a client that
		// spells the same file many ways ("users/./t", "users//t", ...
		// from a header) would otherwise make the cache hold a copy for
		// each spelling.
		files = nil
	}
	return func(r *http.Request, run *server.AccessRun) server.Verdict {
		rv := realm.Eval(r)
		if rv == "off" {
			return server.Declined
		}
		path := file.eval(r)
		res, err := auth.Check(r, files, path)
		log := run.Loc.Logger()
		switch res {
		case auth.Granted:
			return server.Allowed
		case auth.NoFile:
			log.ErrorContext(r.Context(), err.Error())
			return http.StatusForbidden
		case auth.FileError:
			log.Log(r.Context(), slogCrit, err.Error())
			return http.StatusInternalServerError
		case auth.NoCredentials:
			log.InfoContext(r.Context(), err.Error())
		default:
			log.ErrorContext(r.Context(), err.Error())
		}
		run.AddHeader("WWW-Authenticate", auth.Challenge(rv))
		return http.StatusUnauthorized
	}, nil
}

// slogCrit is the level the error log writes as "crit" (server/errorlog.go).
const slogCrit = slog.LevelError + 4

// requestConf is one level's auth_request settings.
type requestConf struct {
	uri server.Setting[string] // "" for off
	set server.Setting[[]setVar]
}

// setVar is one auth_request_set: the variable and the value, computed
// in the subrequest (its $upstream_http_*, $sent_http_*, $status...).
type setVar struct {
	v     *vars.Var
	value *vars.Template
}

var request = &server.Module{
	Name: "auth_request",
	Directives: []server.Directive{
		{Name: "auth_request", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setAuthRequest},
		{Name: "auth_request_set", Context: server.CtxHTTPAll, MinArgs: 2, MaxArgs: 2, Set: setAuthRequestSet},
	},
	NewLoc: func() any { return &requestConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*requestConf), c.(*requestConf)
		child.uri.Merge(parent.uri)
		child.set.Merge(parent.set)
		return nil
	},
}

func init() {
	basic.Access = basicCheck
	request.Access = requestCheck
	server.Register(basic)
	server.Register(request)
}

func setAuthRequest(c *server.Cmd) error {
	uri := c.Args[0]
	if uri == "off" {
		uri = ""
	}
	return server.Put(c, &c.Loc().(*requestConf).uri, uri)
}

func setAuthRequestSet(c *server.Cmd) error {
	name, ok := strings.CutPrefix(c.Args[0], "$")
	if !ok || name == "" {
		return c.Errorf("invalid variable name %q", c.Args[0])
	}
	value, err := c.Template(c.Args[1])
	if err != nil {
		return err
	}
	scope := c.Config().Vars()
	v, ok := scope.Lookup(name)
	if !ok {
		// Read before the check set it, the variable is empty, as
		// NGINX's "not found".
		if v, err = scope.Define(name, func(*http.Request, *vars.State) string { return "" }, false); err != nil {
			return c.Errorf("%v", err)
		}
	}
	rc := c.Loc().(*requestConf)
	rc.set.V = append(rc.set.V, setVar{v: v, value: value})
	rc.set.Set = true
	return nil
}

// requestCheck is a location's auth_request check, nil without one.
func requestCheck(l *server.Location) (server.AccessCheck, error) {
	rc := server.LocConf[*requestConf](l, request)
	if rc.uri.V == "" {
		return nil, nil
	}
	uri, sets := rc.uri.V, rc.set.V
	return func(r *http.Request, run *server.AccessRun) server.Verdict {
		log := run.Loc.Logger()
		// Only the status and headers count, as NGINX makes the
		// subrequest header-only: its body is not waited for, and the
		// variables it set are final once it returns.
		resp, err := server.SubrequestHeader(r, uri, nil)
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				log.ErrorContext(r.Context(), fmt.Sprintf("auth request %q failed: %v", uri, err))
			}
			return http.StatusInternalServerError
		}
		if len(sets) > 0 {
			sub := vars.FromContext(resp.Request.Context())
			st := vars.FromContext(r.Context())
			for _, s := range sets {
				s.v.Set(st, s.value.EvalState(resp.Request, sub))
			}
		}
		switch code := resp.StatusCode; {
		case code == http.StatusForbidden:
			return http.StatusForbidden
		case code == http.StatusUnauthorized:
			// The subrequest's challenge goes to the client: its first
			// one, the only one NGINX 1.22 keeps of an upstream's
			// (ngx_http_upstream_process_header_line keeps the first
			// WWW-Authenticate line).
			if ch := resp.Header.Values("WWW-Authenticate"); len(ch) > 0 {
				run.AddHeader("WWW-Authenticate", ch[0])
			}
			return http.StatusUnauthorized
		case code >= 200 && code < 300:
			return server.Allowed
		default:
			log.ErrorContext(r.Context(), fmt.Sprintf("auth request unexpected status: %d", code))
			return http.StatusInternalServerError
		}
	}, nil
}
