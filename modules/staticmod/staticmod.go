// Package staticmod makes package static the content of the mosaic server:
// it declares the static module's directives (index, etag,
// if_modified_since, max_ranges, log_not_found, open_file_cache*), merges
// them http -> server -> location, and serves each location's files through
// a static.FileServer per root directory.
//
// The options that other modules' directives decide are asked of their
// wiring packages when a location is built: compressmod for the
// precompressed variants and Vary (gzip_static, gzip_vary and their kin),
// esimod for the types whose body ESI rebuilds.
package staticmod

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/modules/additionmod"
	"github.com/mosaic-edge/mosaic/modules/autoindexmod"
	"github.com/mosaic-edge/mosaic/modules/charsetmod"
	"github.com/mosaic-edge/mosaic/modules/compressmod"
	"github.com/mosaic-edge/mosaic/modules/esimod"
	"github.com/mosaic-edge/mosaic/modules/imagefiltermod"
	"github.com/mosaic-edge/mosaic/modules/randomindexmod"
	"github.com/mosaic-edge/mosaic/modules/ssimod"
	"github.com/mosaic-edge/mosaic/modules/submod"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/static"
	"github.com/mosaic-edge/mosaic/vars"
)

// locConf holds the static module's directives at one level.
type locConf struct {
	index       server.Setting[indexList]
	etag        server.Setting[bool]
	ims         server.Setting[static.ModifiedSince]
	maxRanges   server.Setting[int]
	logNotFound server.Setting[bool]

	// The open file cache is made where open_file_cache appears and shared
	// by every level below that inherits it; nil is "off".
	fileCache    server.Setting[*static.OpenFileCache]
	cacheValid   server.Setting[time.Duration]
	cacheMinUses server.Setting[int]
	cacheErrors  server.Setting[bool]
}

func mergeLoc(p, c any) error {
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
}

// mainConf holds what one configuration's locations share.
type mainConf struct {
	// checked is the open file cache of the locations that set no
	// open_file_cache, made on first need (see checkedCache).
	checked *static.OpenFileCache
}

var module = &server.Module{
	Name:     "static",
	NewMain:  func() any { return &mainConf{} },
	NewLoc:   func() any { return &locConf{} },
	MergeLoc: mergeLoc,
}

func init() {
	module.Directives = []server.Directive{
		{Name: "index", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: setIndex},
		{Name: "etag", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: server.SetFlag(func(l *locConf) *server.Setting[bool] { return &l.etag })},
		{Name: "if_modified_since", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setIMS},
		{Name: "max_ranges", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			n, err := c.Count(c.Args[0], 0)
			if err != nil {
				return err
			}
			if n == 0 {
				n = -1 // "max_ranges 0" turns ranges off
			}
			return server.Put(c, &c.Loc().(*locConf).maxRanges, n)
		}},
		{Name: "log_not_found", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: server.SetFlag(func(l *locConf) *server.Setting[bool] { return &l.logNotFound })},
		{Name: "open_file_cache", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 3, Set: setOpenFileCache},
		{Name: "open_file_cache_valid", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			d, err := c.Seconds(c.Args[0])
			if err != nil {
				return err
			}
			if d == 0 {
				d = -1 // "open_file_cache_valid 0" revalidates on every use
			}
			return server.Put(c, &c.Loc().(*locConf).cacheValid, d)
		}},
		{Name: "open_file_cache_min_uses", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			n, err := c.Count(c.Args[0], 0)
			if err != nil {
				return err
			}
			return server.Put(c, &c.Loc().(*locConf).cacheMinUses, n)
		}},
		{Name: "open_file_cache_errors", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutFlag(c, &c.Loc().(*locConf).cacheErrors)
		}},
	}
	module.Content = Content
	server.Register(module)
}

// indexList is what index lines say: names tried in the directory, and
// the first absolute one (with variables, as Nextcloud's
// "/index.php$request_uri") that the request is redirected to when none
// of them exists; the names after it are never reached.
type indexList struct {
	names []string
	last  *vars.Template
}

func setIndex(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	l := lc.index.V
	if !lc.index.Set {
		l = indexList{}
	}
	// Several index lines at one level add up, as in NGINX.
	for i, a := range c.Args {
		if a == "" {
			// NGINX's words, which name the line's first index.
			return c.Errorf(`index "%s" in "index" directive is invalid`, c.Args[0])
		}
		if l.last != nil {
			// NGINX's index handler redirects to an absolute name as
			// soon as its turn comes, so no name after it is ever
			// tried; it still has to compile.
			if strings.Contains(a, "$") {
				if _, err := c.Template(a); err != nil {
					return err
				}
			}
			continue
		}
		switch {
		case strings.HasPrefix(a, "/"):
			if i != len(c.Args)-1 {
				// NGINX warns and loads it.
				c.Notice(`only the last index in "index" directive should be absolute`)
			}
			t, err := c.Template(a)
			if err != nil {
				return err
			}
			l.last = t
		case strings.Contains(a, "$"):
			if _, err := c.Template(a); err != nil {
				return err // "a$": NGINX's message
			}
			return c.Errorf("variables in an index file name are supported only in its last, absolute name: %q", a)
		default:
			l.names = append(l.names, a)
		}
	}
	lc.index.Put(l)
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
			d, err := server.ParseSeconds(arg[len("inactive="):])
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
	cache := static.NewOpenFileCache(limit, inactive)
	c.Config().OnClose(cache.Close)
	lc.fileCache.Put(cache)
	return nil
}

func setIMS(c *server.Cmd) error {
	var m static.ModifiedSince
	switch strings.ToLower(c.Args[0]) { // NGINX's enum values ignore case
	case "off":
		m = static.ModifiedSinceOff
	case "exact":
		m = static.ModifiedSinceExact
	case "before":
		m = static.ModifiedSinceBefore
	default:
		return c.Invalid(c.Args[0], `it must be "off", "exact" or "before"`)
	}
	return server.Put(c, &c.Loc().(*locConf).ims, m)
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
// small files but checks the path on every use (open_file_cache_valid 0),
// and opens it again unless it still resolves the same way to the same,
// unchanged file, so that a request sees what an open would have found,
// for one or two system calls fewer (static's README has the details).
func checkedCache(cfg *server.Config) *static.OpenFileCache {
	mc := server.MainConf[*mainConf](cfg, module)
	if mc.checked == nil {
		mc.checked = static.NewOpenFileCache(checkedMax, checkedInactive)
		cfg.OnClose(mc.checked.Close)
	}
	return mc.checked
}

// MaxRanges is l's max_ranges as static.Options.MaxRanges reads it (0: no
// limit, negative: ranges off), for the cache's ranges of stored responses.
func MaxRanges(l *server.Location) int {
	return server.LocConf[*locConf](l, module).maxRanges.V
}

// IfModifiedSince returns l's if_modified_since, for content that has a
// modification time without being a file (empty_gif).
func IfModifiedSince(l *server.Location) static.ModifiedSince {
	return server.LocConf[*locConf](l, module).ims.Or(static.ModifiedSinceExact)
}

// options turns l's merged directives, and what the compression and ESI
// modules decide about its files, into static.Options (all but Root,
// which the request's root or alias gives).
func options(l *server.Location) static.Options {
	lc := server.LocConf[*locConf](l, module)
	index := lc.index.Or(indexList{names: []string{"index.html"}})
	if index.names == nil {
		// "index /app.php;": no name is tried before the absolute one
		// (nil would mean static's default, index.html).
		index.names = []string{}
	}
	opts := static.Options{
		Index:           index.names,
		ContentType:     l.Types().ByName,
		DefaultType:     l.DefaultType(),
		DisableETag:     !lc.etag.Or(true),
		IfModifiedSince: IfModifiedSince(l),
		MaxRanges:       lc.maxRanges.V,
		LogNotFound:     lc.logNotFound.Or(true),
		Logger:          l.Logger(),
		Error:           server.Error,

		Variants:       compressmod.Variants(l),
		VaryVariants:   compressmod.VaryVariants(l),
		VaryEncoding:   compressmod.VaryEncoding(l),
		VaryDictionary: compressmod.VaryDictionary(l),
		Transformed:    esimod.Transformed(l),
		// SSI rebuilds the body but, as NGINX's not-modified filter runs
		// before the SSI filter clears the validators, the file's still
		// answer the conditions there.
		Unranged:    AnyType(ssimod.Transformed(l), submod.Unranged(l), additionmod.Unranged(l), charsetmod.Unranged(l), imagefiltermod.Unranged(l)),
		Listing:     autoindexmod.Listing(l),
		RandomIndex: randomindexmod.Enabled(l),
		// The index file is served by the location its URI matches, after
		// an internal redirect, as NGINX's index module does.
		// The index file by an internal redirect with the request's
		// arguments, as NGINX's index module makes it: the decoded URI
		// taken whole, a "?" in it (a client's %3F) part of the name.
		IndexRedirect: server.InternalRedirectKeepArgs,
		IndexFallback: indexFallback(index.last),

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
	return opts
}

// Content builds the file-serving content of a location; the WebDAV
// module serves the methods it does not take with it.
func Content(l *server.Location) (http.Handler, error) {
	return CutContent(l, nil)
}

// CutContent is Content whose regular files are served through cut, the
// flv and mp4 modules' content; nil serves them whole.
func CutContent(l *server.Location, cut static.Cutter) (http.Handler, error) {
	opts := options(l)
	opts.Cut = cut
	h := &locHandler{loc: l, opts: opts}
	if srv := l.Server(); srv != nil {
		srv.Config().OnClose(h.close)
	}
	return h, nil
}

// GetOrHead answers 405 to every method but GET and HEAD before it looks
// at the URI, as NGINX's flv and mp4 handlers do: a POST is refused even
// for a missing file or a directory, which the static module would
// answer 404 or 301.
func GetOrHead(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			server.Error(w, r, http.StatusMethodNotAllowed)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// indexFallback redirects a directory request to the absolute last index
// name when no other index file exists, as NGINX's index module does
// without testing that file: the name is the new URI as it is, "?"
// included, and the request keeps its arguments; nil without one.
func indexFallback(last *vars.Template) func(http.ResponseWriter, *http.Request) {
	if last == nil {
		return nil
	}
	return func(w http.ResponseWriter, r *http.Request) {
		server.InternalRedirectKeepArgs(w, r, last.Eval(r))
	}
}

// AnyType is the test of the types that any of the filters given (ESI,
// SSI, sub) rebuilds; nil when none is on. The cache's wiring shares it.
func AnyType(tests ...func(string) bool) func(string) bool {
	var on []func(string) bool
	for _, t := range tests {
		if t != nil {
			on = append(on, t)
		}
	}
	if len(on) == 0 {
		return nil
	}
	return func(ct string) bool {
		for _, t := range on {
			if t(ct) {
				return true
			}
		}
		return false
	}
}
