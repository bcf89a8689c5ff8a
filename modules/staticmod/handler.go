package staticmod

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mosaic-edge/mosaic/internal/dirwatch"
	"github.com/mosaic-edge/mosaic/internal/nolinks"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/static"
	"github.com/mosaic-edge/mosaic/vars"
)

// maxRoots bounds the roots one location keeps open when its root or
// alias has variables ($host, captures...).
const maxRoots = 256

// locHandler serves a location's files. The root is opened on first use,
// not at load time, since NGINX does not require it to exist then, and
// opened again when its name comes to mean another directory (a deploy
// that switches a symbolic link; see dirwatch).
type locHandler struct {
	loc   *server.Location
	opts  static.Options
	mu    sync.RWMutex
	roots map[rootKey]*rootEntry
	// last is the entry the last lookup found in roots, or nil: a
	// location whose root has no variables asks for one key on every
	// request, which one comparison of the key answers without the
	// lock and the map's hashing of two strings (about 300 instructions
	// a request). It is stored only while mu is held, read or write, so
	// it is never an entry that roots has already replaced.
	last atomic.Pointer[rootEntry]
}

// rootKey names an open root: its directory, and what disable_symlinks
// asks of the files below it there.
type rootKey struct {
	dir   string
	links nolinks.Mode
	from  string
}

// rootEntry is an open root and what its name meant when it was opened.
type rootEntry struct {
	key  rootKey
	fs   *static.FileServer
	name *dirwatch.Name
}

func (h *locHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	dir, rel := h.loc.FilePath(r, r.URL.Path)
	links, from := h.loc.Symlinks(r, dir)
	fs, err := h.server(dir, links, from, vars.StartTime(r.Context()))
	if err != nil {
		h.opts.Logger.Error("cannot open root", "root", dir, "err", err)
		// A root that does not exist answers like a missing file, after
		// the method, as NGINX's static handler looks at it first.
		if m := r.Method; m != http.MethodGet && m != http.MethodHead && m != http.MethodPost {
			w.Header()["Allow"] = []string{"GET, HEAD"}
			server.Error(w, r, http.StatusMethodNotAllowed)
			return
		}
		server.Error(w, r, http.StatusNotFound)
		return
	}
	fs.ServePath(w, r, trimSlash(rel), r.URL.Path)
}

func trimSlash(s string) string {
	for len(s) > 0 && s[0] == '/' {
		s = s[1:]
	}
	return s
}

// server returns the file server of the root dir, opening it on first use
// and again once its name means another directory; when links refuses
// symbolic links, one that refuses them below dir and in dir's path after
// from (disable_symlinks).
func (h *locHandler) server(dir string, links nolinks.Mode, from string, now time.Time) (*static.FileServer, error) {
	key := rootKey{dir, links, from}
	e := h.last.Load()
	if e == nil || e.key != key {
		h.mu.RLock()
		if e = h.roots[key]; e != nil {
			h.last.Store(e)
		}
		h.mu.RUnlock()
	}
	if e != nil && !e.name.Stale(now) {
		return e.fs, nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if cur := h.roots[key]; cur != nil && cur != e {
		return cur.fs, nil // opened meanwhile
	}
	// What the name means is read before the directory is opened: a
	// switch in between makes the next look find it stale again, rather
	// than the old directory pass for the new one.
	opts := h.opts
	opts.Root = dir
	switch links {
	case nolinks.Refuse:
		opts.Symlinks, opts.SymlinksFrom = static.RefuseSymlinks, from
	case nolinks.IfNotOwner:
		opts.Symlinks, opts.SymlinksFrom = static.RefuseSymlinksIfNotOwner, from
	}
	name, err := dirwatch.New(dir, now)
	var fs *static.FileServer
	if err == nil {
		fs, err = static.New(opts)
	}
	if err != nil {
		delete(h.roots, key) // a root that went away answers 404 from now on
		h.last.Store(nil)
		return nil, err
	}
	if h.roots == nil || len(h.roots) >= maxRoots {
		h.roots = map[rootKey]*rootEntry{}
	}
	// A replaced or dropped root is not closed: a request may still use
	// it, and its descriptors close when it is collected (the cleanup
	// static attaches to its directory descriptor, and os.Root's own).
	e = &rootEntry{key: key, fs: fs, name: name}
	h.roots[key] = e
	h.last.Store(e)
	return fs, nil
}

func (h *locHandler) close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range h.roots {
		_ = e.fs.Close()
	}
	h.roots = nil
	h.last.Store(nil)
	return nil
}
