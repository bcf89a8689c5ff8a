package server

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mosaic-edge/mosaic/vars"
)

// FilePath maps a URI to a file: with root, the root joined with the URI;
// with alias, the alias replacing the location's prefix (or, in a regex
// location, the alias alone, usually built from captures). It returns the
// directory that bounds the lookup and the path relative to it, so that
// callers can refuse anything that escapes dir.
func (l *Location) FilePath(r *http.Request, uri string) (dir, rel string) {
	cl := LocConf[*coreLoc](l, coreModule)
	root := cl.root.V.Eval(r)
	if !cl.alias {
		return absPath(root), uri
	}
	if l.kind == levelRegex {
		full := absPath(root)
		return filepath.Dir(full), filepath.Base(full)
	}
	full := root + strings.TrimPrefix(uri, l.pattern)
	cut := strings.LastIndexByte(root, '/')
	if cut < 0 {
		return absPath("."), full
	}
	return absPath(root[:cut+1]), full[cut+1:]
}

// absPath makes a relative root absolute against the working directory,
// once per configuration rather than per request where it is static.
func absPath(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

type tryFiles struct {
	loc     *Location
	files   []*vars.Template
	last    *vars.Template
	code    int
	content http.Handler
}

func newTryFiles(l *Location, args []string, content http.Handler) http.Handler {
	t := &tryFiles{loc: l, content: content, last: vars.MustCompile(args[len(args)-1])}
	for _, a := range args[:len(args)-1] {
		t.files = append(t.files, vars.MustCompile(a))
	}
	if last := args[len(args)-1]; strings.HasPrefix(last, "=") {
		t.code, _ = strconv.Atoi(last[1:])
	}
	return t
}

// ServeHTTP serves the first candidate that exists (a trailing slash asks
// for a directory), else redirects internally to the last argument or
// answers with its "=code".
func (t *tryFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for _, f := range t.files {
		uri := f.Eval(r)
		if uri == "" {
			continue
		}
		wantDir := strings.HasSuffix(uri, "/")
		path, _, _ := strings.Cut(uri, "?")
		dir, rel := t.loc.FilePath(r, path)
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil || fi.IsDir() != wantDir {
			continue
		}
		if path != r.URL.Path {
			r2 := new(http.Request)
			*r2 = *r
			u := *r.URL
			u.Path, u.RawPath = path, ""
			r2.URL = &u
			r2.RequestURI = ""
			r = r2
		}
		t.content.ServeHTTP(w, r)
		return
	}
	if t.code != 0 {
		Error(w, r, t.code)
		return
	}
	InternalRedirect(w, r, t.last.Eval(r))
}
