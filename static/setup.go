package static

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mosaic-edge/mosaic/internal/dirwatch"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/vars"
)

// locConf holds the static module's directives at one level.
type locConf struct {
	index       server.Setting[[]string]
	etag        server.Setting[bool]
	ims         server.Setting[ModifiedSince]
	maxRanges   server.Setting[int]
	logNotFound server.Setting[bool]

	// The open file cache is made where open_file_cache appears and shared
	// by every level below that inherits it; nil is "off".
	fileCache    server.Setting[*OpenFileCache]
	cacheValid   server.Setting[time.Duration]
	cacheMinUses server.Setting[int]
	cacheErrors  server.Setting[bool]
}

// mainConf holds what one configuration's locations share.
type mainConf struct {
	// checked is the open file cache of the locations that set no
	// open_file_cache, made on first need (see checkedCache).
	checked *OpenFileCache
}

var module = &server.Module{
	Name:    "static",
	NewMain: func() any { return &mainConf{} },
	NewLoc:  func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		child.index.Merge(parent.index)
		child.etag.Merge(parent.etag)
		child.ims.Merge(parent.ims)
		child.maxRanges.Merge(parent.maxRanges)
		child.logNotFound.Merge(parent.logNotFound)
		child.fileCache.Merge(parent.fileCache)
		child.cacheValid.Merge(parent.cacheValid)
		child.cacheMinUses.Merge(parent.cacheMinUses)
		child.cacheErrors.Merge(parent.cacheErrors)
		return nil
	},
}

func init() {
	module.Directives = []server.Directive{
		{Name: "index", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: setIndex},
		{Name: "etag", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: server.SetFlag(func(l *locConf) *server.Setting[bool] { return &l.etag })},
		{Name: "if_modified_since", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setIMS},
		{Name: "max_ranges", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			n, err := c.Int(c.Args[0], 0, 1<<30)
			if err != nil {
				return err
			}
			if n == 0 {
				n = -1 // "max_ranges 0" turns ranges off
			}
			c.Loc().(*locConf).maxRanges.Put(n)
			return nil
		}},
		{Name: "log_not_found", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: server.SetFlag(func(l *locConf) *server.Setting[bool] { return &l.logNotFound })},
		{Name: "open_file_cache", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 3, Set: setOpenFileCache},
		{Name: "open_file_cache_valid", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			d, err := c.Duration(c.Args[0])
			if err != nil {
				return err
			}
			if d == 0 {
				d = -1 // "open_file_cache_valid 0" revalidates on every use
			}
			c.Loc().(*locConf).cacheValid.Put(d)
			return nil
		}},
		{Name: "open_file_cache_min_uses", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			n, err := c.Int(c.Args[0], 0, 1<<30)
			c.Loc().(*locConf).cacheMinUses.Put(n)
			return err
		}},
		{Name: "open_file_cache_errors", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			on, err := c.Flag()
			c.Loc().(*locConf).cacheErrors.Put(on)
			return err
		}},
	}
	module.Content = content
	server.Register(module)
}

func setIndex(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if lc.index.Set {
		// Several index lines at one level add up, as in NGINX.
		lc.index.V = append(lc.index.V, c.Args...)
		return nil
	}
	lc.index.Put(append([]string(nil), c.Args...))
	return nil
}

// setOpenFileCache reads "open_file_cache max=N [inactive=time] | off" as
// NGINX does, and makes the cache this level and the ones below it share.
// The configuration closes it when it is retired.
func setOpenFileCache(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if lc.fileCache.Set {
		return c.Duplicate()
	}
	limit, inactive, off := 0, 60*time.Second, false
	for _, arg := range c.Args {
		switch {
		case strings.HasPrefix(arg, "max="):
			n, err := strconv.Atoi(arg[len("max="):])
			if err != nil || n <= 0 {
				return c.Errorf("invalid %q parameter %q", c.Name, arg)
			}
			limit = n
		case strings.HasPrefix(arg, "inactive="):
			d, err := server.ParseDuration(arg[len("inactive="):])
			if err != nil {
				return c.Errorf("invalid %q parameter %q", c.Name, arg)
			}
			// NGINX counts idle time in whole seconds, so "inactive=0"
			// still keeps an entry through the second it was used in;
			// one second is the nearest to that.
			inactive = max(d, time.Second)
		case arg == "off":
			off = true
		default:
			return c.Errorf("invalid %q parameter %q", c.Name, arg)
		}
	}
	if off {
		lc.fileCache.Put(nil)
		return nil
	}
	if limit == 0 {
		return c.Errorf("%q must have the \"max\" parameter", c.Name)
	}
	cache := NewOpenFileCache(limit, inactive)
	c.Config().OnClose(cache.Close)
	lc.fileCache.Put(cache)
	return nil
}

// The checked cache's size: NGINX's usual open_file_cache line,
// "max=1000 inactive=20s". Since every use stats the path, inactive only
// bounds how long a file deleted or replaced since its last request keeps
// its descriptor, and so its disk space.
const (
	checkedMax      = 1000
	checkedInactive = 20 * time.Second
)

// checkedCache returns cfg's checked cache, the one every location that
// sets no open_file_cache uses. NGINX without open_file_cache opens, stats
// and closes each file for each request; this cache keeps descriptors of
// small files (see cachePolicy.maxKept) but checks the path on every use
// (open_file_cache_valid 0; see identifier), and opens it again unless it
// still resolves the same way to the same, unchanged file, so that a
// request sees what an open would have found, for one or two system calls
// fewer.
func checkedCache(cfg *server.Config) *OpenFileCache {
	mc := server.MainConf[*mainConf](cfg, module)
	if mc.checked == nil {
		mc.checked = NewOpenFileCache(checkedMax, checkedInactive)
		cfg.OnClose(mc.checked.Close)
	}
	return mc.checked
}

func setIMS(c *server.Cmd) error {
	var m ModifiedSince
	switch c.Args[0] {
	case "off":
		m = ModifiedSinceOff
	case "exact":
		m = ModifiedSinceExact
	case "before":
		m = ModifiedSinceBefore
	default:
		return c.Invalid(c.Args[0], `it must be "off", "exact" or "before"`)
	}
	c.Loc().(*locConf).ims.Put(m)
	return nil
}

// optionSources fill in the Options that other modules own.
var optionSources []func(l *server.Location, o *Options)

// RegisterOptions installs a function that sets, for each location, the
// Options fields that depend on another module's directives: the
// compression module's Variants (gzip_static and its kin) and
// VaryEncoding (gzip_vary), the ESI module's Transformed (esi, esi_types).
// Modules call it from their init.
func RegisterOptions(f func(l *server.Location, o *Options)) {
	optionSources = append(optionSources, f)
}

// content builds the file-serving content of a location.
func content(l *server.Location) (http.Handler, error) {
	lc := server.LocConf[*locConf](l, module)
	opts := Options{
		Index:           lc.index.Or([]string{"index.html"}),
		ContentType:     func(name string) string { return l.Types().ByName(name) },
		DefaultType:     l.DefaultType(),
		DisableETag:     !lc.etag.Or(true),
		IfModifiedSince: lc.ims.Or(ModifiedSinceExact),
		MaxRanges:       lc.maxRanges.V,
		LogNotFound:     lc.logNotFound.Or(true),
		Logger:          l.Logger(),
		Error:           server.Error,

		OpenFileCache:        lc.fileCache.V,
		OpenFileCacheValid:   lc.cacheValid.V,
		OpenFileCacheMinUses: lc.cacheMinUses.V,
		OpenFileCacheErrors:  lc.cacheErrors.V,
	}
	if !lc.fileCache.Set && l.Server() != nil {
		// No open_file_cache anywhere above: the checked cache, whose
		// entries are confirmed by name on every use.
		opts.OpenFileCache = checkedCache(l.Server().Config())
		opts.OpenFileCacheValid, opts.OpenFileCacheMinUses, opts.OpenFileCacheErrors = -1, 1, false
	}
	for _, set := range optionSources {
		set(l, &opts)
	}
	h := &locHandler{loc: l, opts: opts}
	if srv := l.Server(); srv != nil {
		srv.Config().OnClose(h.close)
	}
	return h, nil
}

// maxRoots bounds the roots one location keeps open when its root or
// alias has variables ($host, captures...).
const maxRoots = 256

// locHandler serves a location's files. The root is opened on first use,
// not at load time, since NGINX does not require it to exist then, and
// opened again when its name comes to mean another directory (a deploy
// that switches a symbolic link; see dirwatch).
type locHandler struct {
	loc   *server.Location
	opts  Options
	mu    sync.RWMutex
	roots map[string]*rootEntry
}

// rootEntry is an open root and what its name meant when it was opened.
type rootEntry struct {
	fs   *FileServer
	name *dirwatch.Name
}

func (h *locHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	dir, rel := h.loc.FilePath(r, r.URL.Path)
	fs, err := h.server(dir, vars.StartTime(r.Context()))
	if err != nil {
		h.opts.Logger.Error("cannot open root", "root", dir, "err", err)
		// A root that does not exist answers like a missing file.
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
// and again once its name means another directory.
func (h *locHandler) server(dir string, now time.Time) (*FileServer, error) {
	h.mu.RLock()
	e := h.roots[dir]
	h.mu.RUnlock()
	if e != nil && !e.name.Stale(now) {
		return e.fs, nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if cur := h.roots[dir]; cur != nil && cur != e {
		return cur.fs, nil // opened meanwhile
	}
	// What the name means is read before the directory is opened: a
	// switch in between makes the next look find it stale again, rather
	// than the old directory pass for the new one.
	opts := h.opts
	opts.Root = dir
	name, err := dirwatch.New(dir, now)
	var fs *FileServer
	if err == nil {
		fs, err = Handler(opts)
	}
	if err != nil {
		delete(h.roots, dir) // a root that went away answers 404 from now on
		return nil, err
	}
	if h.roots == nil || len(h.roots) >= maxRoots {
		h.roots = map[string]*rootEntry{}
	}
	// A replaced or dropped root is not closed: a request may still use
	// it, and its descriptors close when it is collected (dirFD, and
	// os.Root's own finalizer).
	h.roots[dir] = &rootEntry{fs: fs, name: name}
	return fs, nil
}

func (h *locHandler) close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range h.roots {
		_ = e.fs.Close()
	}
	h.roots = nil
	return nil
}
