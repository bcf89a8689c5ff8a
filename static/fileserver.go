package static

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"path"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mosaic-edge/mosaic/internal/dirwatch"
	"github.com/mosaic-edge/mosaic/internal/nolinks"
)

// FileServer serves the files below one root directory. It is safe for
// concurrent use.
type FileServer struct {
	op            opener
	rootID        rootID
	closed        atomic.Bool
	rootName      string
	index         []string
	indexRedirect func(http.ResponseWriter, *http.Request, string)
	indexFallback func(http.ResponseWriter, *http.Request)
	contentType   func(name string) string
	defaultType   string
	etag          bool
	ims           ModifiedSince
	maxRanges     int
	logNotFound   bool
	log           *slog.Logger
	errorPage     func(http.ResponseWriter, *http.Request, int)
	variants      VariantFunc
	varyVariants  []Variant
	transformed   func(contentType string) bool
	unranged      func(contentType string) bool
	varyEnc       func(contentType string, length int64) bool
	varyDict      bool
	cache         *OpenFileCache
	policy        cachePolicy
	root          *os.Root
	listing       func(http.ResponseWriter, *http.Request, fs.FS, string)
	randomIndex   bool
	cut           Cutter

	// escapes is the error os.Root returns for a path that leaves the root.
	// The value is unexported by package os, so New captures it from a
	// lookup that must fail that way; errors.Is then tells a symlink that
	// points outside the root apart from other open errors.
	escapes error
}

// New opens opts.Root and returns a FileServer that serves r.URL.Path
// below it. The root stays open until Close. It fails when Root is empty
// or cannot be opened as a directory, or when an Index name is not a plain
// relative file name.
func New(opts Options) (*FileServer, error) {
	if opts.Root == "" {
		return nil, errors.New("static: no root directory")
	}
	index := opts.Index
	if index == nil {
		index = []string{"index.html"}
	}
	for _, name := range index {
		if name == "" || strings.HasSuffix(name, "/") || refusePath(name) != "" {
			return nil, fmt.Errorf("static: invalid index file name %q", name)
		}
	}
	root, err := dirwatch.OpenRoot(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("static: open root: %w", err)
	}
	var pe *fs.PathError
	if _, err := root.Stat(".."); !errors.As(err, &pe) {
		root.Close()
		return nil, fmt.Errorf("static: os.Root did not refuse a path above the root (%v)", err)
	}
	op, id, err := newOpener(opts.Root, root, opts.Symlinks.mode())
	if err != nil {
		root.Close()
		return nil, err
	}
	if mode := opts.Symlinks.mode(); mode != 0 {
		// The root's own path is checked once: the directory stays open,
		// so a link put in that path later leads nowhere for this server.
		if err := nolinks.InPath(opts.Root, opts.SymlinksFrom, mode); err != nil {
			op = linkedRoot{err: err, op: op}
		}
	}
	h := &FileServer{
		op:            op,
		rootID:        id,
		rootName:      opts.Root,
		index:         index,
		indexRedirect: opts.IndexRedirect,
		indexFallback: opts.IndexFallback,
		contentType:   opts.ContentType,
		defaultType:   opts.DefaultType,
		etag:          !opts.DisableETag,
		ims:           opts.IfModifiedSince,
		maxRanges:     opts.MaxRanges,
		logNotFound:   opts.LogNotFound,
		log:           opts.Logger,
		errorPage:     opts.Error,
		variants:      opts.Variants,
		varyVariants:  opts.VaryVariants,
		transformed:   opts.Transformed,
		unranged:      opts.Unranged,
		varyEnc:       opts.VaryEncoding,
		varyDict:      opts.VaryDictionary,
		cache:         opts.OpenFileCache,
		root:          root,
		listing:       opts.Listing,
		randomIndex:   opts.RandomIndex,
		cut:           opts.Cut,
		policy: cachePolicy{
			valid:   opts.OpenFileCacheValid,
			minUses: max(opts.OpenFileCacheMinUses, 1),
			errors:  opts.OpenFileCacheErrors,
		},
		escapes: pe.Err,
	}
	if _, refused := op.(linkedRoot); refused {
		// Its root has the identity of the directory the link leads to:
		// the cache would answer for that directory's files.
		h.cache = nil
	}
	if h.policy.valid == 0 {
		h.policy.valid = 60 * time.Second
	}
	if h.policy.valid < 0 {
		// Every use stats the path: a kept descriptor saves an open and
		// a close only for a body read in one pread.
		h.policy.maxKept = copyBufSize
	}
	if h.contentType == nil {
		h.contentType = typeByExtension
	}
	if h.defaultType == "" {
		h.defaultType = "application/octet-stream"
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	return h, nil
}

func typeByExtension(name string) string {
	return mime.TypeByExtension(path.Ext(name))
}

// Close releases the root directory. Requests served afterwards fail with
// 500, even for files an open file cache still holds.
func (h *FileServer) Close() error {
	h.closed.Store(true)
	return h.op.close()
}

// ServeHTTP serves r.URL.Path below the root. Leading slashes are dropped,
// so "//a" names the same file as "/a".
func (h *FileServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	uri := r.URL.Path
	if uri == "" {
		uri = "/"
	}
	h.ServePath(w, r, strings.TrimLeft(uri, "/"), uri)
}

// ServePath serves the file at rel, a slash-separated path relative to the
// root that the caller has already mapped from the request URI (root, alias,
// try_files). uri is the request's decoded URI path: a trailing slash asks
// for the directory's index file, and a directory named without one is
// redirected to uri + "/".
func (h *FileServer) ServePath(w http.ResponseWriter, r *http.Request, rel, uri string) {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPost:
		// NGINX looks a POST target up first, so that a missing file is
		// still 404 and a directory still 301; only a file answers 405.
	default:
		h.methodNotAllowed(w, r)
		return
	}
	if why := refusePath(rel); why != "" {
		h.log.LogAttrs(r.Context(), slog.LevelInfo, "static: request path refused",
			slog.String("rel", rel), slog.String("reason", why))
		h.fail(w, r, http.StatusNotFound)
		return
	}
	if strings.HasSuffix(uri, "/") {
		h.serveIndex(w, r, rel, uri)
		return
	}
	if h.variants != nil && h.cut == nil && h.serveVariant(w, r, rel) {
		return
	}
	f, err := h.open(rel)
	if err != nil {
		h.openFailed(w, r, rel, err)
		return
	}
	h.serveOpened(w, r, &f, rel, uri)
}

// Lookup reports whether rel exists inside the root as a regular file or a
// directory, the test try_files makes. Paths refused by ServePath, paths
// that leave the root through a symlink and other kinds of file do not
// exist for Lookup.
func (h *FileServer) Lookup(rel string) (isDir bool, ok bool) {
	if refusePath(rel) != "" {
		return false, false
	}
	info, err := h.stat(rel)
	if err != nil {
		return false, false
	}
	return info.kind == kindDir, info.kind != kindOther
}

// open opens rel for reading, through the open file cache when there is
// one.
func (h *FileServer) open(rel string) (file, error) {
	if h.closed.Load() {
		return file{}, &fs.PathError{Op: "open", Path: rel, Err: fs.ErrClosed}
	}
	if h.cache != nil {
		return h.cache.open(h, rel, true)
	}
	return h.openDirect(rel, true)
}

// stat reports what rel is, through the open file cache when there is
// one.
func (h *FileServer) stat(rel string) (fileInfo, error) {
	if h.closed.Load() {
		return fileInfo{}, &fs.PathError{Op: "stat", Path: rel, Err: fs.ErrClosed}
	}
	if h.cache != nil {
		f, err := h.cache.open(h, rel, false)
		return f.info, err
	}
	f, err := h.openDirect(rel, false)
	return f.info, err
}

// openDirect opens rel, or with wantFD false only stats it, without the
// cache.
func (h *FileServer) openDirect(rel string, wantFD bool) (file, error) {
	if !wantFD {
		info, err := h.op.stat(rel)
		return file{info: info}, err
	}
	d, info, err := h.op.open(rel)
	return file{info: info, d: d}, err
}

// serveOpened answers with the open file f, found at rel for uri, and
// closes it.
func (h *FileServer) serveOpened(w http.ResponseWriter, r *http.Request, f *file, rel, uri string) {
	defer f.close()
	switch f.info.kind {
	case kindDir:
		h.redirectToDir(w, r, uri)
		return
	case kindOther:
		h.log.LogAttrs(r.Context(), slog.LevelError, "static: not a regular file",
			slog.String("path", h.fsPath(rel)))
		h.fail(w, r, http.StatusNotFound)
		return
	}
	if r.Method == http.MethodPost {
		h.methodNotAllowed(w, r)
		return
	}
	h.serveFile(w, r, f, rel, Variant{})
}

// serveIndex answers a request for a directory (uri ends in "/") with its
// first index file that exists.
func (h *FileServer) serveIndex(w http.ResponseWriter, r *http.Request, dir, uri string) {
	if h.randomIndex && h.serveRandom(w, r, dir, uri) {
		return
	}
	dirTested := false
	for _, name := range h.index {
		// The name goes after the mapped path as it is, as NGINX's index
		// module appends it: where that path lacks its slash (a URI equal
		// to the prefix of a location whose alias has none), the file is
		// the one the internal redirect to uri+name maps to, and a
		// missing one leaves the directory's answer (403) to testDir.
		rel := dir + name
		f, err := h.open(rel)
		if err == nil && h.indexRedirect != nil {
			f.close()
			h.indexRedirect(w, r, uri+name)
			return
		}
		if err == nil {
			if h.variants != nil && h.cut == nil && h.serveVariant(w, r, rel) {
				f.close()
				return
			}
			h.serveOpened(w, r, &f, rel, uri+name)
			return
		}
		if !errors.Is(err, fs.ErrNotExist) {
			h.openFailed(w, r, rel, err)
			return
		}
		// A missing index file is only worth trying the next one for if
		// the directory itself is there; NGINX checks that once.
		if !dirTested {
			if err := h.testDir(dir); err != nil {
				h.openFailed(w, r, dir, err)
				return
			}
			dirTested = true
		}
	}
	// The absolute last name is redirected to as it is reached, as
	// NGINX's index module does: with no name tried before it, without a
	// look at the directory, which need not exist ("index /app.php;").
	if h.indexFallback != nil {
		h.indexFallback(w, r)
		return
	}
	if !dirTested {
		if err := h.testDir(dir); err != nil {
			h.openFailed(w, r, dir, err)
			return
		}
	}
	if h.listing != nil && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		name := listedDir(dir)
		if h.refuseListed(w, r, name) {
			return
		}
		if name != strings.TrimSuffix(dir, "/") && name != "." {
			// An alias without its slash: the directory listed is not
			// the one tested above.
			if err := h.testDir(name); err != nil {
				h.openFailed(w, r, name, err)
				return
			}
		}
		if sub, err := fs.Sub(h.root.FS(), name); err == nil {
			h.listing(w, r, sub, uri)
			return
		}
	}
	h.log.LogAttrs(r.Context(), slog.LevelError, "static: directory index is forbidden",
		slog.String("path", h.fsPath(dir)+"/"))
	h.fail(w, r, http.StatusForbidden)
}

// testDir returns nil if dir is a directory inside the root, and the reason
// otherwise.
func (h *FileServer) testDir(dir string) error {
	info, err := h.stat(dir)
	if err != nil {
		return err
	}
	if info.kind != kindDir {
		return &fs.PathError{Op: "stat", Path: dir, Err: syscall.ENOTDIR}
	}
	return nil
}

// listedDir is the directory that autoindex and random_index read for a
// request whose URI, ending in "/", maps to dir. NGINX's two modules drop
// the mapped path's last byte, taking it for the URI's slash: under an
// alias without its slash ("location /w/ { alias DIR/www; }") the path
// has none, and "/w/" reads DIR/ww, a directory that is usually missing
// (404), where the index module tests DIR/www itself.
func listedDir(dir string) string {
	if len(dir) <= 1 {
		return "."
	}
	return dir[:len(dir)-1]
}

// refuseListed answers 404 where name, the directory listedDir gives,
// climbs out of its parent: "pub/..." less a byte is "pub/..", which
// NGINX reads as the directory above; ServePath refuses such a path so.
func (h *FileServer) refuseListed(w http.ResponseWriter, r *http.Request, name string) bool {
	why := refusePath(name)
	if why == "" {
		return false
	}
	h.log.LogAttrs(r.Context(), slog.LevelInfo, "static: listed path refused",
		slog.String("rel", name), slog.String("reason", why))
	h.fail(w, r, http.StatusNotFound)
	return true
}

func joinRel(dir, name string) string {
	if dir == "" || strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}

// fsPath is the file-system path of rel, for log lines.
func (h *FileServer) fsPath(rel string) string {
	return strings.TrimSuffix(h.rootName, "/") + "/" + rel
}
