package server

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mosaic-edge/mosaic/internal/dirwatch"
	"github.com/mosaic-edge/mosaic/internal/nolinks"
	"github.com/mosaic-edge/mosaic/internal/reqrule"
	"github.com/mosaic-edge/mosaic/vars"
)

// FilePath maps a URI to a file: with root, the root joined with the URI;
// with alias, the alias replacing the prefix of the location that
// declared it, which a location inside inherits (or, declared in a regex
// location, the alias alone, usually built from captures; the alias and
// the URI where try_files found its file so). It returns the directory
// that bounds the lookup and the path relative to it, so that callers
// can refuse anything that escapes dir.
func (l *Location) FilePath(r *http.Request, uri string) (dir, rel string) {
	dir, rel, _ = l.filePath(r, uri, false)
	return dir, rel
}

// aliasAdded marks, as the request's vars.State.Paths, the location and
// URI for which a regex location's alias is the alias and the URI joined:
// NGINX's r->add_uri_to_alias, which its try_files sets with the
// candidate it found as the URI. It marks too a candidate without "/"
// that try_files found written raw after the root (joinRaw). In Paths,
// $request_filename in the access log sees it too, and the next
// location to take the request (an internal redirect, where NGINX
// clears the flag) replaces it.
type aliasAdded struct {
	*Location
	uri string
}

// PathsLocation is the location that st.Paths maps for, the one serving
// the request, whether or not try_files marked it (aliasAdded); nil
// where Paths is no location. Modules that choose their settings by it
// (access_log, fastcgi) ask here rather than type-test Paths, so the
// mark does not hide the location from them.
func PathsLocation(st *vars.State) *Location {
	switch p := st.Paths.(type) {
	case *Location:
		return p
	case aliasAdded:
		return p.Location
	}
	return nil
}

// uriAddedToAlias reports whether try_files marked r for uri in l.
func uriAddedToAlias(r *http.Request, l *Location, uri string) bool {
	st := vars.FromContext(r.Context())
	if st == nil {
		return false
	}
	a, ok := st.Paths.(aliasAdded)
	return ok && a.Location == l && a.uri == uri
}

// filePath is FilePath; add says uri is a try_files candidate, which
// NGINX writes after a regex location's alias, where the alias alone is
// the file otherwise, and after the root without a "/" between (joinRaw);
// a URI try_files found so and marked the request for is mapped the
// same way. j says whether uri, written without "/", continues the last
// segment of the root or alias.
func (l *Location) filePath(r *http.Request, uri string, add bool) (dir, rel string, j rawJoin) {
	cl := LocConf[*coreLoc](l, coreModule)
	root := cl.root.V.Eval(r)
	if climb := VariableClimb(cl.root.V, root); climb >= 0 {
		// A variable climbed ("alias /srv/pub/$arg_f" with
		// f=../../etc/passwd), which NGINX follows. The lookup stays
		// bounded by the directory before the "..", and the path below
		// it keeps the segment, which every caller refuses as a missing
		// file: the static handler's request-path rules, and the
		// kernel's RESOLVE_BENEATH (os.Root elsewhere) for try_files.
		switch {
		case cl.aliasIn == nil:
			root += uri
		case !cl.aliasIn.IsRegex():
			root += cl.aliasTail(uri)
		}
		return absPath(root[:climb]), root[climb:], rawNone
	}
	if cl.aliasIn == nil {
		if uri == "" || uri[0] == '/' {
			return absPath(root), uri, rawNone
		}
		// Written without its "/": NGINX writes it after the root, which
		// has lost the "/" it was written with ("root /srv/www/;
		// try_files x" names /srv/wwwx).
		root = documentRoot(root, cl.root.V.String(), false)
		if add || uriAddedToAlias(r, l, uri) {
			return joinRaw(root, uri)
		}
		// Not try_files' (a rewrite's "$1 break", an X-Accel-Redirect):
		// who wrote the segment that continues the root's is unknown, so
		// the name is left outside the root, where every caller refuses
		// it as a missing file, rather than let a client's value pick
		// the root's neighbour (/rw/_private/key for /srv/www_private/key).
		return absPath(root), "../" + filepath.Base(root) + uri, rawNone
	}
	if cl.aliasIn.IsRegex() {
		added := uri != "" && (add || uriAddedToAlias(r, l, uri))
		if cut := literalDir(cl.root.V); cut > 0 {
			// Bounded by the directory the alias writes before its first
			// variable (alias /srv/www/$1: /srv/www/), as a prefix
			// location's alias is, for a file, a directory (a value
			// ending in "/": its index or listing) and a try_files
			// candidate alike: a symbolic link in the captured part that
			// leads to a sibling below it is followed, as NGINX follows
			// it, one that leaves it is refused, whichever of them names
			// the file, and a loop on the way is the file's 403, not a
			// root that fails to open.
			return belowLiteral(root, cut, uri, added)
		}
		if added {
			// The alias is a directory then, or the start of a name
			// ("alias /srv/d; try_files $1" names /srv/dx for x), and
			// bounds the lookup: a ".." that a candidate's variable
			// brings stays below it.
			return joinRaw(root, uri)
		}
		full := absPath(root)
		if strings.HasSuffix(root, "/") {
			// A directory (an alias without variables ending in a
			// slash): its index or listing, as NGINX serves it.
			return full, "", rawNone
		}
		return filepath.Dir(full), filepath.Base(full), rawNone
	}
	tail := cl.aliasTail(uri)
	cut := strings.LastIndexByte(root, '/')
	if cut < 0 {
		return absPath("."), root + tail, rawNone
	}
	// An alias ending in a slash (the usual "alias /srv/www/;") bounds the
	// lookup by itself: the path below it is the URI's tail as it is, so
	// no string is built for it per request.
	return absPath(root[:cut+1]), root[cut+1:] + tail, rawNone
}

// rawJoin says how filePath wrote a uri after the root or alias.
type rawJoin uint8

const (
	rawNone   rawJoin = iota // uri starts a segment of its own
	rawMerged                // uri continues the root's last segment
	rawClimbs                // a ".." segment in the name climbs
)

// literalDir returns the length of the directory that tpl, a regex
// location's alias, writes before its first variable, slash included
// ("/srv/www/" of "/srv/www/$1"), or 0 where it writes none: a value
// without variables, or one that starts with a variable or names no
// directory before it ("pre$1").
func literalDir(tpl *vars.Template) int {
	if tpl.Static() {
		return 0
	}
	return strings.LastIndexByte(tpl.Prefix(), '/') + 1
}

// belowLiteral maps root, a regex location's alias's value, below its
// first cut bytes, the directory literalDir names, with uri written
// after it where added (a try_files candidate, as NGINX writes it). The
// value's part past cut holds no ".." segment (VariableClimb's scan
// starts there), so one in the name is the candidate's ("?f=/../x"):
// rawClimbs, for try_files to skip. Resolved, it could climb from the
// value to its siblings below the bound, and the static handler refuses
// a ".." in the path it is given anyway (404), so the candidate is taken
// as missing, as one that climbed out of the value was while the value
// was the bound.
func belowLiteral(root string, cut int, uri string, added bool) (dir, rel string, j rawJoin) {
	dir, rel = absPath(root[:cut]), root[cut:]
	if !added {
		return dir, rel, rawNone
	}
	if uri[0] != '/' && !strings.HasSuffix(root, "/") {
		j = rawMerged
	}
	rel += uri
	if reqrule.DotDot(rel) >= 0 {
		j = rawClimbs
	}
	return dir, rel, j
}

// joinRaw splits root+uri, the name NGINX makes by writing one after the
// other, into the directory that bounds its lookup and the path below
// it. Where uri does not start a segment of its own, the segment it ends
// is root's last, and the directory root's parent: the name reaches the
// root's neighbours that start with its last segment, as NGINX's does.
// A ".." segment in the name would climb from there (rawClimbs), which
// try_files refuses before it looks, so it never marks such a URI for
// the content handler.
func joinRaw(root, uri string) (dir, rel string, j rawJoin) {
	if uri == "" || uri[0] == '/' || strings.HasSuffix(root, "/") {
		return absPath(root), uri, rawNone
	}
	cut := strings.LastIndexByte(root, '/')
	if reqrule.DotDot(root[cut+1:]+uri) >= 0 {
		return absPath(root), uri, rawClimbs
	}
	if cut < 0 {
		return absPath("."), root + uri, rawMerged
	}
	return absPath(root[:cut+1]), root[cut+1:] + uri, rawMerged
}

// VariableClimb returns where the first ".." segment of p, tpl's value,
// starts, or -1, looking only from the segment where tpl's first variable
// is: a ".." the configuration writes before it ("root ../site/$host",
// a relative root) is the administrator's and followed, one that a
// client's value brings may climb out of the directory the template
// names (FilePath, the *_store writers). A template without variables
// is not scanned.
func VariableClimb(tpl *vars.Template, p string) int {
	if tpl == nil || tpl.Static() {
		return -1
	}
	// From the start of the prefix's last segment: "/srv/." and a value
	// "./x" make a ".." segment together.
	from := strings.LastIndexByte(tpl.Prefix(), '/') + 1
	if i := reqrule.DotDot(p[from:]); i >= 0 {
		return from + i
	}
	return -1
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
	loc   *Location
	files []*vars.Template
	// dirs says which of files asks for a directory: written with a
	// trailing slash, which NGINX takes off the name it tries.
	dirs    []bool
	last    *vars.Template
	code    int
	content http.Handler
	roots   rootSet
	// whole: the location's alias names the whole path (AliasWhole),
	// and each candidate is tried below it.
	whole bool
	// prefix: the prefix that the location's alias replaces, where it
	// has one (an alias declared in a prefix or exact location).
	prefix string
}

func newTryFiles(l *Location, args []string, content http.Handler) http.Handler {
	t := &tryFiles{loc: l, content: content, whole: l.AliasWhole()}
	if in := LocConf[*coreLoc](l, coreModule).aliasIn; in != nil && !in.IsRegex() {
		t.prefix = in.pattern
	}
	// The arguments compiled when the directive was read: in the
	// configuration's scope, they bind to the same variables (map) again.
	compile := vars.MustCompile
	if l.server != nil && l.server.cfg != nil {
		l.server.cfg.OnClose(t.roots.close)
		scope := l.server.cfg.vars
		compile = func(s string) *vars.Template {
			tpl, err := scope.Compile(s, nil)
			if err != nil {
				panic(err) // compiled without error by setTryFiles
			}
			return tpl
		}
	}
	t.last = compile(args[len(args)-1])
	for _, a := range args[:len(args)-1] {
		dir := strings.HasSuffix(a, "/")
		t.files = append(t.files, compile(strings.TrimSuffix(a, "/")))
		t.dirs = append(t.dirs, dir)
	}
	if last := args[len(args)-1]; strings.HasPrefix(last, "=") {
		t.code, _ = strconv.Atoi(last[1:])
	}
	return t
}

// ServeHTTP serves the first candidate that exists, else redirects
// internally to the last argument or answers with its "=code". As in
// NGINX, an argument written with a trailing slash asks for a directory
// and is tried without the slash (so "$uri/" for /dir makes $uri /dir,
// which the static handler redirects to /dir/), and any other asks for a
// file: "$uri" for / finds no file.
//
// In a regex location with alias (AliasWhole), each candidate is tried
// as the alias and the candidate joined, as NGINX's try_files does:
// "alias /srv/$1; try_files $uri =404;" tries /srv/f.txt/a/f.txt for
// /a/f.txt, and "" the alias itself. A file found becomes $uri and is
// served as that join; a directory leaves the URI, and the content
// handler the alias alone.
func (t *tryFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	whole := t.whole
	for i, f := range t.files {
		uri := f.Eval(r)
		if uri == "" && !whole {
			continue
		}
		wantDir := t.dirs[i]
		// A candidate names a file whole: a "?" in it (a client's %3F,
		// decoded into $uri) is part of the name, as NGINX takes it. Cut
		// there, /secret.php%3F.css would serve secret.php past a
		// location for \.php$ that the decoded URI did not match. Only
		// the last argument, a URI to redirect to, has arguments.
		path := uri
		if t.prefix != "" {
			path = t.aliasURI(f, uri)
		}
		dir, rel, j := t.loc.filePath(r, path, true)
		if j == rawClimbs || j == rawMerged && !f.Static() && !strings.Contains(f.Prefix(), "/") {
			// Written after the root's last segment ("root /srv/www;
			// try_files $arg_f"), a client's value would pick any of
			// the root's neighbours (f=_private/key names
			// /srv/www_private/key), and a ".." would climb from one:
			// NGINX follows both, mosaic takes the candidate as missing,
			// as it bounds a root's own climbing variables. A merged
			// segment the configuration wrote whole ("try_files x.txt",
			// "x/$arg_f") is the administrator's, and followed.
			continue
		}
		links, from := t.loc.Symlinks(r, dir)
		isDir := false
		err := error(nil)
		if links != 0 {
			err = nolinks.InPath(dir, from, links)
		}
		if err == nil {
			isDir, err = t.roots.stat(dir, rel, links, vars.StartTime(r.Context()))
		}
		if errors.Is(err, syscall.ELOOP) {
			// As NGINX logs a candidate that disable_symlinks refuses,
			// and goes on to the next.
			t.loc.Logger().Error("try_files: candidate refused", "path", filepath.Join(dir, rel), "error", err)
		}
		if err != nil || isDir != wantDir {
			continue
		}
		if whole && (wantDir || path == "") {
			// A directory, or the alias itself (""): the URI stays,
			// and the content handler maps the alias alone. (For "",
			// NGINX's $uri becomes empty; mosaic keeps the request's.)
			t.content.ServeHTTP(w, r)
			return
		}
		if path != r.URL.Path {
			r2 := new(http.Request)
			*r2 = *r
			u := *r.URL
			u.Path, u.RawPath = path, ""
			r2.URL = &u
			r2.RequestURI = ""
			r = r2
			// As in NGINX, the file found becomes $uri.
			if st := vars.FromContext(r.Context()); st != nil {
				st.URL = &u
			}
		}
		if st := vars.FromContext(r.Context()); (whole || path[0] != '/') && st != nil {
			// The content handler maps the file found as it was tried:
			// unmarked, a URI without "/" is no candidate of try_files'
			// to it, and missing (filePath), also where the root's value
			// ends in "/" and the candidate went below it (rawNone).
			st.Paths = aliasAdded{Location: t.loc, uri: path}
		}
		t.content.ServeHTTP(w, r)
		return
	}
	if t.code != 0 {
		// "=code" is what NGINX's handler returns for
		// ngx_http_finalize_request: a page for 201, 204 and 300 up,
		// the connection closed for 444, 408 and 499, and for the
		// other codes below 300 no response at all (the request ends
		// as if one had been sent, with no status in the access log),
		// which a closed connection is here.
		if closesUnanswered(t.code) || t.code < 300 && t.code != http.StatusCreated && t.code != http.StatusNoContent {
			abortUnanswered(r, t.code)
		}
		Error(w, r, t.code)
		return
	}
	InternalRedirect(w, r, t.last.Eval(r))
}

// aliasURI is the URI that candidate c, the value of f, stands for under
// an alias that replaces t.prefix: NGINX writes what follows the prefix
// after the alias, and a file found so has the prefix and that as its
// URI. Only a candidate with variables loses the prefix it starts with
// ("$uri"); one written without them is taken whole, so "try_files
// /i/x" under "location /i/ { alias /srv/; }" is /srv//i/x, URI /i//i/x,
// and "x" is /srv/x, URI /i/x.
func (t *tryFiles) aliasURI(f *vars.Template, c string) string {
	if !f.Static() && strings.HasPrefix(c, t.prefix) {
		return c
	}
	return t.prefix + c
}

// maxRoots bounds the directories one try_files keeps open. A root or
// alias with variables can name many; past the bound, a lookup opens its
// directory for itself.
const maxRoots = 256

// rootSet looks candidates up inside their directory, each opened once as
// an os.Root: a candidate exists only if it lies inside, symbolic links
// included, which is what the static handler will serve (it refuses
// anything that leaves the root). os.Stat would follow a link out of the
// root, choose the candidate, and leave the client a 403 where the next
// candidate or the fallback should have answered. A directory is opened
// again when its name comes to mean another one, as the static handler's
// roots are (a deploy that switches a symbolic link; see dirwatch).
type rootSet struct {
	mu     sync.Mutex
	roots  map[string]*rootRef
	closed bool // retired: a late request opens and closes its own
}

type rootRef struct {
	root *os.Root
	raw  *rawDir // nil where stats go through root alone
	name *dirwatch.Name
}

// close closes the directory, once no lookup uses raw.
func (r *rootRef) close() error {
	r.raw.close()
	return r.root.Close()
}

// stat reports whether rel exists inside dir, and whether it is a
// directory, as os.Root.Stat finds it.
func (s *rootSet) stat(dir, rel string, links nolinks.Mode, now time.Time) (isDir bool, err error) {
	rel = strings.TrimLeft(filepath.FromSlash(rel), string(filepath.Separator))
	if rel == "" {
		rel = "."
	}
	s.mu.Lock()
	ref := s.roots[dir]
	s.mu.Unlock()
	if ref != nil && !ref.name.Stale(now) {
		// disable_symlinks' checks go through os.Root.
		if links == 0 && rawPath(rel) {
			if isDir, ok, err := ref.raw.stat(rel); ok {
				return isDir, err
			}
		}
		isDir, err := dirOf(lookup(ref.root, rel, links))
		if errors.Is(err, fs.ErrClosed) {
			// The configuration was retired under this request.
			return dirOf(statOnce(dir, rel, links))
		}
		return isDir, err
	}
	// The name is read before the directory is opened (see static's
	// locHandler.server).
	name, err := dirwatch.New(dir, now)
	if err != nil {
		s.forget(dir, ref)
		return false, err
	}
	root, err := dirwatch.OpenRoot(dir)
	if err != nil {
		s.forget(dir, ref)
		return false, err
	}
	s.mu.Lock()
	switch cur := s.roots[dir]; {
	case cur != nil && cur != ref: // opened meanwhile by another request
		s.mu.Unlock()
		_ = root.Close()
		return dirOf(lookup(cur.root, rel, links))
	case !s.closed && (cur != nil || len(s.roots) < maxRoots):
		if s.roots == nil {
			s.roots = make(map[string]*rootRef)
		}
		s.roots[dir] = &rootRef{root: root, raw: openRawDir(root), name: name}
		s.mu.Unlock()
		if cur != nil {
			// Replaced: a lookup still using it sees ErrClosed and
			// opens its own.
			_ = cur.close()
		}
		return dirOf(lookup(root, rel, links))
	}
	s.mu.Unlock()
	defer root.Close()
	return dirOf(lookup(root, rel, links))
}

// maxRawDepth bounds the components of a candidate looked up raw: a
// stat that walks cold directories reads each from the disk holding its
// processor.
const maxRawDepth = 4

// rawPath reports whether rawDir may look rel up: no ".." (a path from a
// URI has none, but the walk must not leave the directory), and at most
// maxRawDepth components.
func rawPath(rel string) bool {
	return !strings.Contains(rel, "..") && strings.Count(rel, string(filepath.Separator)) < maxRawDepth
}

// dirOf is stat's answer for a lookup's.
func dirOf(fi fs.FileInfo, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	return fi.IsDir(), nil
}

// lookup stats rel inside root; a symbolic link on the way that links
// refuses refuses it (disable_symlinks).
func lookup(root *os.Root, rel string, links nolinks.Mode) (fs.FileInfo, error) {
	if links != 0 {
		if err := nolinks.Below(root, rel, links); err != nil {
			return nil, err
		}
	}
	return root.Stat(rel)
}

// forget drops dir's root after its name stopped naming a directory, if
// it is still ref.
func (s *rootSet) forget(dir string, ref *rootRef) {
	if ref == nil {
		return
	}
	s.mu.Lock()
	if s.roots[dir] == ref {
		delete(s.roots, dir)
		_ = ref.close()
	}
	s.mu.Unlock()
}

// statOnce looks rel up in dir opened for this lookup alone.
func statOnce(dir, rel string, links nolinks.Mode) (fs.FileInfo, error) {
	root, err := dirwatch.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return lookup(root, rel, links)
}

// close releases the directories, when the configuration is retired.
func (s *rootSet) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, r := range s.roots {
		errs = append(errs, r.close())
	}
	s.roots, s.closed = nil, true
	return errors.Join(errs...)
}
