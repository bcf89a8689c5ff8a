// Package dav is NGINX's ngx_http_dav_module: PUT, DELETE, MKCOL, COPY
// and MOVE on the files below a directory, with NGINX's answers. It is an
// http.Handler of its own; the methods it is not given pass to Next (the
// static files, in the server). modules/davmod makes it a location's
// content.
//
// Every path, the request's and the Destination header's, is resolved
// below the directory that Options.Path names through os.Root: "..",
// symbolic links that lead out and NUL bytes cannot reach a file outside
// it. A PUT body waits in a temporary file and is renamed onto its name
// whole, so that a partial body is never seen there.
package dav

import (
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/mosaic-edge/mosaic/internal/chunked"
	"github.com/mosaic-edge/mosaic/internal/dirwatch"
	"github.com/mosaic-edge/mosaic/internal/httpdate"
	"github.com/mosaic-edge/mosaic/internal/percent"
	"github.com/mosaic-edge/mosaic/internal/reqrule"
	"github.com/mosaic-edge/mosaic/vars"
)

// Methods is the set of methods the handler takes (dav_methods).
type Methods uint8

// The methods, as dav_methods names them.
const (
	Put Methods = 1 << iota
	Delete
	Mkcol
	Copy
	Move
)

// methodBits maps a request method to its bit.
var methodBits = map[string]Methods{
	http.MethodPut: Put, http.MethodDelete: Delete, "MKCOL": Mkcol, "COPY": Copy, "MOVE": Move,
}

// NGINX's crit and alert levels, as the server's error_log maps them.
const (
	levelCrit  = slog.LevelError + 4
	levelAlert = slog.LevelError + 8
)

// Options configure a Handler.
type Options struct {
	// Methods are the methods handled; the others go to Next.
	Methods Methods
	// Access is the permission of the files PUT creates (dav_access;
	// NGINX's default 0600). Directories get it with the search bit
	// added where it has the read bit.
	Access fs.FileMode
	// MinDeleteDepth is the number of URI path segments that a DELETE
	// needs (min_delete_depth), 0 for none.
	MinDeleteDepth int
	// CreateFullPutPath lets PUT create the directories the file's path
	// lacks (create_full_put_path).
	CreateFullPutPath bool
	// Path maps a URI to the directory that bounds it and the path below
	// it (root or alias). Required.
	Path func(r *http.Request, uri string) (dir, rel string)
	// AliasPrefix is the length of the URI prefix that the location's
	// alias replaces, that of the location declaring it (0: none, a root
	// or an alias declared in a regex location): a
	// Destination shorter than it names no file below the alias and is
	// refused (400), as NGINX refuses it.
	AliasPrefix int
	// TempFile makes the file a PUT body waits in
	// (client_body_temp_path); nil: one in os.TempDir.
	TempFile func() (*os.File, error)
	// Next serves the other methods; nil answers them 405.
	Next http.Handler
	// Location makes the Location of a 201 from the URI, escaped (the
	// server makes it absolute, as NGINX's absolute_redirect); nil
	// leaves it as it is.
	Location func(r *http.Request, target string) string
	// Error answers an error status; nil: http.Error.
	Error func(w http.ResponseWriter, r *http.Request, code int)
	// Logger receives NGINX's error log lines; nil: slog.Default.
	Logger *slog.Logger
}

// Handler serves the WebDAV methods.
type Handler struct{ o Options }

// New returns a Handler for o.
func New(o Options) *Handler {
	if o.Access == 0 {
		o.Access = 0o600
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.TempFile == nil {
		o.TempFile = func() (*os.File, error) { return os.CreateTemp("", "dav-") }
	}
	return &Handler{o: o}
}

// dirAccess is NGINX's ngx_dir_access: the search bit wherever the read
// bit is set.
func dirAccess(a fs.FileMode) fs.FileMode { return a | (a&0o444)>>2 }

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	bit := methodBits[r.Method]
	if bit&h.o.Methods == 0 {
		if h.o.Next != nil {
			h.o.Next.ServeHTTP(w, r)
			return
		}
		h.fail(w, r, http.StatusMethodNotAllowed)
		return
	}
	uri := r.URL.Path
	if uri == "" {
		uri = "/"
	}
	var code int
	switch bit {
	case Put:
		code = h.put(w, r, uri)
	case Delete:
		code = h.delete(r, uri)
	case Mkcol:
		code = h.mkcol(w, r, uri)
	default:
		code = h.copyMove(r, uri)
	}
	if code >= 300 {
		h.fail(w, r, code)
		return
	}
	if code == http.StatusCreated {
		w.Header()["Content-Length"] = []string{"0"} // NGINX's 201 has no page
	}
	w.WriteHeader(code)
}

func (h *Handler) fail(w http.ResponseWriter, r *http.Request, code int) {
	if h.o.Error != nil {
		h.o.Error(w, r, code)
		return
	}
	http.Error(w, http.StatusText(code), code)
}

func (h *Handler) logf(r *http.Request, level slog.Level, msg string, args ...any) {
	h.o.Logger.Log(r.Context(), level, "dav: "+msg, args...)
}

// hasBody reports a request body, which DELETE, MKCOL, COPY and MOVE
// refuse (415): a length, or none known (chunked, or an HTTP/2 stream
// that goes on). A chunked one counts even when a module in front (the
// mirror) has read it and found it empty, as NGINX refuses any chunked.
func hasBody(r *http.Request) bool { return r.ContentLength != 0 || len(r.TransferEncoding) > 0 }

// escapeErr is the error os.Root gives for a path that leaves the root,
// learnt from the first root opened.
var (
	escapeOnce sync.Once
	escapeErr  error
)

// escapes reports os.Root's refusal of a path that leaves the root.
func escapes(err error) bool { return escapeErr != nil && errors.Is(err, escapeErr) }

// target is a path below an open root.
type target struct {
	root *os.Root
	rel  string // below root, cleaned; "." for the root itself
	full string // dir and rel joined, cleaned: for the log and overlap
}

// open opens the root that uri maps to and the path below it. A URI
// that ends in "/" names the same path as without it.
func (h *Handler) open(r *http.Request, uri string) (target, error) {
	dir, rel := h.o.Path(r, uri)
	if reqrule.DotDot(rel) >= 0 {
		// A ".." that a root's variables brought, which Path leaves for
		// the caller to refuse (server.FilePath): Clean below would fold
		// it into another name under dir.
		return target{}, &fs.PathError{Op: "open", Path: dir + "/" + rel, Err: fs.ErrNotExist}
	}
	root, err := dirwatch.OpenRoot(dir)
	if err != nil {
		return target{}, err
	}
	escapeOnce.Do(func() {
		var pe *fs.PathError
		if _, err := root.Lstat("../x"); errors.As(err, &pe) {
			escapeErr = pe.Err
		}
	})
	// The URI is the server's normalized one, and the Destination
	// passed ParseUnsafeURI: no ".." segment is left for Clean to fold,
	// so cleaning changes no meaning, only "//" and "/./".
	rel = strings.TrimPrefix(path.Clean("/"+rel), "/")
	if rel == "" {
		rel = "."
	}
	return target{root: root, rel: rel, full: path.Join(dir, rel)}, nil
}

// status is NGINX's ngx_http_dav_error: the status for a failed file
// operation, notFound for a missing file, and logs it.
func (h *Handler) status(r *http.Request, err error, notFound int, op, name string) int {
	var errno syscall.Errno
	errors.As(err, &errno)
	code, level := http.StatusInternalServerError, levelCrit
	switch {
	case errors.Is(err, fs.ErrNotExist), errno == syscall.ENOTDIR, errno == syscall.ENAMETOOLONG:
		code, level = notFound, slog.LevelError
	case escapes(err), errors.Is(err, fs.ErrPermission):
		// A symbolic link that leads out of the root is refused as a
		// file without access would be.
		code, level = http.StatusForbidden, slog.LevelError
	case errors.Is(err, fs.ErrExist):
		code, level = http.StatusMethodNotAllowed, slog.LevelError
	case errno == syscall.ENOSPC:
		code = http.StatusInsufficientStorage
	}
	h.logf(r, level, op+" failed", "path", name, "err", err)
	return code
}

// The Depth header's values beside "0" and "1".
const (
	depthInfinity = -1
	depthInvalid  = -2
)

// depth reads the Depth header as NGINX does: "0", "1" or "infinity",
// dflt when absent, and depthInvalid for anything else.
func (h *Handler) depth(r *http.Request, dflt int) int {
	v, ok := r.Header["Depth"]
	if !ok || len(v) == 0 {
		return dflt
	}
	switch v[0] {
	case "0":
		return 0
	case "1":
		return 1
	case "infinity":
		return depthInfinity
	}
	h.logf(r, slog.LevelError, "client sent invalid \"Depth\" header", "value", v[0])
	return depthInvalid
}

// location sets the Location of a 201 as NGINX does: the URI, escaped.
func (h *Handler) location(w http.ResponseWriter, r *http.Request, uri string) {
	loc := percent.URI.Escape(uri)
	if h.o.Location != nil {
		loc = h.o.Location(r, loc)
	}
	w.Header()["Location"] = []string{loc}
}

func (h *Handler) put(w http.ResponseWriter, r *http.Request, uri string) int {
	if strings.HasSuffix(uri, "/") {
		h.logf(r, slog.LevelError, "cannot PUT to a collection")
		return http.StatusConflict
	}
	if _, ok := r.Header["Content-Range"]; ok {
		h.logf(r, slog.LevelError, "PUT with range is unsupported")
		return http.StatusNotImplemented
	}
	tmp, err := h.o.TempFile()
	if err != nil {
		h.logf(r, levelCrit, "cannot create a temporary file", "err", err)
		return http.StatusInternalServerError
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name()) // nothing when renamed
	}()
	if r.Body != nil {
		body := &bodyReader{r: r.Body}
		if _, err := io.Copy(tmp, body); err != nil {
			if body.err == nil {
				// The temporary file failed (a full disk: 507).
				return h.status(r, err, http.StatusInternalServerError, "write()", tmp.Name())
			}
			err = body.err
			var mb *http.MaxBytesError
			var ne net.Error
			switch {
			case errors.As(err, &mb):
				return http.StatusRequestEntityTooLarge
			case errors.Is(err, chunked.ErrFraming):
				// The client is there and gets its answer, as NGINX's
				// 400 after "client sent invalid chunked body".
				h.logf(r, slog.LevelError, "client sent invalid chunked body")
				return http.StatusBadRequest
			case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
				h.logf(r, slog.LevelInfo, "client timed out")
				terminate(r, http.StatusRequestTimeout)
			}
			h.logf(r, slog.LevelInfo, "client prematurely closed connection", "err", err)
			terminate(r, http.StatusBadRequest)
		}
	}
	t, err := h.open(r, uri)
	if err != nil {
		return h.status(r, err, http.StatusInternalServerError, "open root", uri)
	}
	defer t.root.Close()
	code := http.StatusCreated
	fi, err := t.root.Stat(t.rel)
	switch {
	case err == nil && fi.IsDir():
		h.logf(r, slog.LevelError, "could not be created", "path", t.full, "err", syscall.EISDIR)
		return http.StatusConflict
	case err == nil, escapes(err):
		// A link that leads out of the root is not followed, but it is
		// there: the rename replaces the link itself, as in NGINX.
		code = http.StatusNoContent
	}
	if err := tmp.Chmod(h.o.Access); err != nil {
		return h.status(r, err, http.StatusInternalServerError, "chmod", tmp.Name())
	}
	if d, ok := r.Header["Date"]; ok && len(d) > 0 {
		// The Date the client sent becomes the file's time, as in NGINX.
		if when, ok := httpdate.Parse(d[0]); ok {
			if err := os.Chtimes(tmp.Name(), when, when); err != nil {
				return h.status(r, err, http.StatusInternalServerError, "utimes", tmp.Name())
			}
		}
	}
	if err := h.place(t, tmp, h.o.CreateFullPutPath); err != nil {
		// NGINX answers 500 for a rename that fails, a missing directory
		// included.
		h.logf(r, levelCrit, "rename failed", "from", tmp.Name(), "to", t.full, "err", err)
		return http.StatusInternalServerError
	}
	if code == http.StatusCreated {
		h.location(w, r, uri)
	}
	return code
}

// bodyReader keeps the request body's read error apart from the
// temporary file's write error.
type bodyReader struct {
	r   io.Reader
	err error
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}

// terminate ends a request whose client closed or timed out while
// sending its body: NGINX sends nothing, and its log says status (400 or
// 408). The panic makes the server drop the connection (the stream);
// the deferred removals of the temporary file still run.
func terminate(r *http.Request, status int) {
	if st := vars.FromContext(r.Context()); st != nil {
		st.WroteHeader(status)
	}
	panic(http.ErrAbortHandler)
}

// place renames the file tmp onto t's name, through a descriptor of the
// directory t lies in: the name appears with its whole content or not at
// all. With createPath, missing directories are made first (dav_access's
// directory permissions). A file on another file system is copied to a
// temporary name beside t, then renamed.
func (h *Handler) place(t target, tmp *os.File, createPath bool) error {
	parent, base := path.Split(t.rel)
	if parent == "" {
		parent = "."
	}
	dir, err := t.root.Open(parent)
	if errors.Is(err, fs.ErrNotExist) && createPath {
		if err = t.root.MkdirAll(parent, dirAccess(h.o.Access)); err == nil {
			dir, err = t.root.Open(parent)
		}
	}
	if err != nil {
		return err
	}
	defer dir.Close()
	if err := renameInto(tmp.Name(), dir, base); !errors.Is(err, syscall.EXDEV) {
		return err
	}
	side := path.Join(parent, "."+base+".dav-"+randomSuffix())
	out, err := t.root.OpenFile(side, os.O_WRONLY|os.O_CREATE|os.O_EXCL, h.o.Access)
	if err != nil {
		return err
	}
	// err, not a new one: a copy that fails must not be renamed onto the
	// name.
	if _, err = tmp.Seek(0, io.SeekStart); err == nil {
		_, err = io.Copy(out, tmp)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = t.root.Rename(side, t.rel)
	}
	if err != nil {
		t.root.Remove(side)
	}
	return err
}

func (h *Handler) delete(r *http.Request, uri string) int {
	if hasBody(r) {
		h.logf(r, slog.LevelError, "DELETE with body is unsupported")
		return http.StatusUnsupportedMediaType
	}
	if min := h.o.MinDeleteDepth; min > 0 {
		// NGINX counts the slashes, each needing something after it.
		d, ok := 0, false
		for i := 0; i < len(uri) && !ok; i++ {
			if uri[i] == '/' {
				d++
				ok = d >= min && i+1 < len(uri)
			}
		}
		if !ok {
			h.logf(r, slog.LevelError, "insufficient URI depth to DELETE", "depth", d)
			return http.StatusConflict
		}
	}
	t, err := h.open(r, uri)
	if err != nil {
		return h.status(r, err, http.StatusNotFound, "open root", uri)
	}
	defer t.root.Close()
	fi, err := h.lstat(t, uri)
	if err != nil {
		notFound := http.StatusNotFound
		if errors.Is(err, syscall.ENOTDIR) {
			notFound = http.StatusConflict
		}
		return h.status(r, err, notFound, "lstat()", t.full)
	}
	if t.rel == "." {
		return h.rootRefused(r, t)
	}
	dir := fi.IsDir()
	if dir {
		if !strings.HasSuffix(uri, "/") {
			h.logf(r, slog.LevelError, "DELETE failed", "path", t.full, "err", syscall.EISDIR)
			return http.StatusConflict
		}
		if h.depth(r, depthInfinity) != depthInfinity {
			h.logf(r, slog.LevelError, "\"Depth\" header must be infinity")
			return http.StatusBadRequest
		}
	} else if d := h.depth(r, 0); d != 0 && d != depthInfinity {
		h.logf(r, slog.LevelError, "\"Depth\" header must be 0 or infinity")
		return http.StatusBadRequest
	}
	if code := h.remove(r, t, t.rel, dir); code != 0 {
		return code
	}
	return http.StatusNoContent
}

// rootRefused answers a DELETE of the root itself, or a COPY or MOVE
// onto it: NGINX would remove the directory the location serves, and
// os.Root cannot remove the directory it is opened on.
func (h *Handler) rootRefused(r *http.Request, t target) int {
	h.logf(r, slog.LevelError, "the root cannot be removed", "path", t.full)
	return http.StatusForbidden
}

// lstat is NGINX's lstat of the mapped path: with the URI's trailing
// slash, a file is ENOTDIR and a link to a directory the directory.
func (h *Handler) lstat(t target, uri string) (fs.FileInfo, error) {
	if !strings.HasSuffix(uri, "/") {
		return t.root.Lstat(t.rel)
	}
	fi, err := t.root.Stat(t.rel)
	if err == nil && !fi.IsDir() {
		return nil, &fs.PathError{Op: "lstat", Path: t.rel, Err: syscall.ENOTDIR}
	}
	return fi, err
}

// remove deletes rel, a directory with all it holds when dir is set; as
// NGINX, the files that cannot go are logged and the directory's own
// removal decides the status (0 when it went).
func (h *Handler) remove(r *http.Request, t target, rel string, dir bool) int {
	if dir {
		h.removeTree(r, t, rel)
	}
	err := t.root.Remove(rel)
	if err == nil {
		return 0
	}
	return h.status(r, err, http.StatusNotFound, "delete", path.Join(t.full, rel))
}

// removeTree empties the directory rel, depth first, without following
// symbolic links (a link is removed, not what it names).
func (h *Handler) removeTree(r *http.Request, t target, rel string) {
	entries, err := fs.ReadDir(t.root.FS(), rel)
	if err != nil {
		h.logf(r, levelCrit, "opendir failed", "path", rel, "err", err)
		return
	}
	for _, e := range entries {
		name := path.Join(rel, e.Name())
		if e.IsDir() {
			h.removeTree(r, t, name)
		}
		if err := t.root.Remove(name); err != nil {
			h.logf(r, slog.LevelError, "delete failed", "path", name, "err", err)
		}
	}
}

func (h *Handler) mkcol(w http.ResponseWriter, r *http.Request, uri string) int {
	if hasBody(r) {
		h.logf(r, slog.LevelError, "MKCOL with body is unsupported")
		return http.StatusUnsupportedMediaType
	}
	if !strings.HasSuffix(uri, "/") {
		h.logf(r, slog.LevelError, "MKCOL can create a collection only")
		return http.StatusConflict
	}
	t, err := h.open(r, uri)
	if err != nil {
		return h.status(r, err, http.StatusConflict, "open root", uri)
	}
	defer t.root.Close()
	if err := t.root.Mkdir(t.rel, dirAccess(h.o.Access)); err != nil {
		return h.status(r, err, http.StatusConflict, "mkdir()", t.full)
	}
	h.location(w, r, uri)
	return http.StatusCreated
}

// destination reads the Destination header as NGINX does: a path, or an
// absolute URI of the request's scheme whose host part starts with the
// request's host; the path after it must pass ParseUnsafeURI. It returns
// the decoded path and the header's last byte, or a status.
func (h *Handler) destination(r *http.Request) (uri string, last byte, code int) {
	v, ok := r.Header["Destination"]
	if !ok || len(v) == 0 {
		h.logf(r, slog.LevelError, "client sent no \"Destination\" header")
		return "", 0, http.StatusBadRequest
	}
	dest := v[0]
	p := dest
	if !strings.HasPrefix(dest, "/") {
		host, _ := reqrule.Host(r.Host)
		if host == "" {
			h.logf(r, slog.LevelError, "client sent no \"Host\" header")
			return "", 0, http.StatusBadRequest
		}
		scheme := "http://"
		if r.TLS != nil {
			scheme = "https://"
		}
		rest, ok := strings.CutPrefix(dest, scheme)
		if !ok {
			return h.invalidDestination(r, dest)
		}
		if !strings.HasPrefix(rest, host) {
			h.logf(r, slog.LevelError, "\"Destination\" URI is handled by different repository than the source URI", "destination", dest)
			return "", 0, http.StatusBadRequest
		}
		// What follows the host up to the first "/" (a port, or more
		// of a name) is not looked at, as in NGINX.
		i := strings.IndexByte(rest[len(host):], '/')
		if i < 0 {
			return h.invalidDestination(r, dest)
		}
		p = rest[len(host)+i:]
	}
	uri, _, ok = percent.ParseUnsafeURI(p)
	if !ok {
		return h.invalidDestination(r, dest)
	}
	return uri, dest[len(dest)-1], 0
}

func (h *Handler) invalidDestination(r *http.Request, dest string) (string, byte, int) {
	h.logf(r, slog.LevelError, "client sent invalid \"Destination\" header", "value", dest)
	return "", 0, http.StatusBadRequest
}

func (h *Handler) copyMove(r *http.Request, uri string) int {
	if hasBody(r) {
		h.logf(r, slog.LevelError, "COPY and MOVE with body are unsupported")
		return http.StatusUnsupportedMediaType
	}
	duri, last, code := h.destination(r)
	if code != 0 {
		return code
	}
	if strings.HasSuffix(uri, "/") != (last == '/') {
		h.logf(r, slog.LevelError, "both URI and \"Destination\" URI should be either collections or non-collections")
		return http.StatusConflict
	}
	if len(duri) < h.o.AliasPrefix {
		// NGINX 1.29.7 (upstream 9739e75): its path mapping cut the
		// prefix from a shorter URI, underflowing.
		_, _, code := h.invalidDestination(r, r.Header.Get("Destination"))
		return code
	}
	move := r.Method == "MOVE"
	if d := h.depth(r, depthInfinity); d != depthInfinity && (move || d != 0) {
		if move {
			h.logf(r, slog.LevelError, "\"Depth\" header must be infinity")
		} else {
			h.logf(r, slog.LevelError, "\"Depth\" header must be 0 or infinity")
		}
		return http.StatusBadRequest
	}
	overwrite := true
	if v, ok := r.Header["Overwrite"]; ok && len(v) > 0 {
		switch v[0] {
		case "T", "t":
		case "F", "f":
			overwrite = false
		default:
			h.logf(r, slog.LevelError, "client sent invalid \"Overwrite\" header", "value", v[0])
			return http.StatusBadRequest
		}
	}
	src, err := h.open(r, uri)
	if err != nil {
		return h.status(r, err, http.StatusNotFound, "open root", uri)
	}
	defer src.root.Close()
	dst, err := h.open(r, duri)
	if err != nil {
		return h.status(r, err, http.StatusNotFound, "open root", duri)
	}
	defer dst.root.Close()

	if overlap(src, dst, last == '/') {
		// Deleting the destination would delete the source, or the
		// copy would copy itself: NGINX 1.31 refuses these, as
		// ngx_http_dav_validate_paths, with 403; 1.22 emptied the
		// collection or copied into itself until the path was too long.
		h.logf(r, slog.LevelError, "both URI and \"Destination\" URI point to the same location or one holds the other", "uri", uri, "destination", duri)
		return http.StatusForbidden
	}
	if dst.rel == "." {
		return h.rootRefused(r, dst)
	}
	dstDir := false
	dfi, err := dst.root.Lstat(dst.rel)
	if err != nil {
		dfi = nil
		if !errors.Is(err, fs.ErrNotExist) {
			return h.status(r, err, http.StatusNotFound, "lstat()", dst.full)
		}
		overwrite = false
	} else {
		if dfi.IsDir() && last != '/' {
			h.logf(r, slog.LevelError, "could not be copied or moved to a collection", "uri", uri, "destination", duri)
			return http.StatusConflict
		}
		if !overwrite {
			h.logf(r, slog.LevelError, "could not be created", "path", dst.full, "err", syscall.EEXIST)
			return http.StatusPreconditionFailed
		}
		dstDir = dfi.IsDir()
	}
	fi, err := h.lstat(src, uri)
	if err != nil {
		return h.status(r, err, http.StatusNotFound, "lstat()", src.full)
	}
	if !fi.IsDir() {
		return h.copyMoveFile(r, src, dst, fi, move)
	}
	if !strings.HasSuffix(uri, "/") {
		h.logf(r, slog.LevelError, "is collection", "uri", uri)
		return http.StatusBadRequest
	}
	if onPath(dst, dfi, fi) || dstDir && onPath(src, fi, dfi) {
		// The overlap of overlap, through a symbolic link inside the
		// root (ld -> d: COPY /d/ onto /ld/x/ copied d into itself
		// level after level; MOVE /ld/e/ onto /d/ deleted the source
		// with the destination).
		h.logf(r, slog.LevelError, "both URI and \"Destination\" URI point to the same location or one holds the other", "uri", uri, "destination", duri)
		return http.StatusForbidden
	}
	if overwrite {
		if code := h.remove(r, dst, dst.rel, dstDir); code != 0 {
			return code
		}
	}
	if move {
		if err := renameBetween(src, dst); err == nil {
			return http.StatusCreated
		}
	}
	if err := dst.root.Mkdir(dst.rel, fi.Mode().Perm()); err != nil {
		return h.status(r, err, http.StatusNotFound, "mkdir()", dst.full)
	}
	h.copyTree(r, src, dst, src.rel, dst.rel)
	if move {
		if code := h.remove(r, src, src.rel, true); code != 0 {
			return code
		}
	}
	return http.StatusCreated
}

// overlap reports whether src and dst name the same file, or, for
// collections, one lies below the other; the full paths compared are
// cleaned, so "//" and "/./" hide nothing.
func overlap(src, dst target, collection bool) bool {
	below := func(a, b string) bool { return strings.HasPrefix(a, strings.TrimSuffix(b, "/")+"/") }
	return src.full == dst.full || collection && (below(dst.full, src.full) || below(src.full, dst.full))
}

// onPath reports whether the directory dir is t itself (fi, t's own
// information, nil when t is missing) or one of the directories t lies
// below, the root included (a link "lr -> ." makes the root a source),
// symbolic links on the way followed. A link as t's last name is not
// followed: it is replaced or removed, never what it names.
func onPath(t target, fi, dir fs.FileInfo) bool {
	if fi != nil && os.SameFile(fi, dir) {
		return true
	}
	for p := t.rel; p != "."; {
		p = path.Dir(p)
		if up, err := t.root.Stat(p); err == nil && os.SameFile(up, dir) {
			return true
		}
	}
	return false
}

// renameBetween renames src onto dst when both lie below one directory
// (the same root, as a COPY or MOVE in one location has).
func renameBetween(src, dst target) error {
	if src.root.Name() != dst.root.Name() {
		return syscall.EXDEV
	}
	return src.root.Rename(src.rel, dst.rel)
}

// copyMoveFile is COPY or MOVE of a file: 204 whether the destination
// was there or not, as in NGINX. MOVE creates the directories missing on
// the way (dav_access's), COPY does not.
func (h *Handler) copyMoveFile(r *http.Request, src, dst target, fi fs.FileInfo, move bool) int {
	if move {
		err := renameBetween(src, dst)
		if errors.Is(err, fs.ErrNotExist) {
			if parent := path.Dir(dst.rel); parent != "." {
				if err = dst.root.MkdirAll(parent, dirAccess(h.o.Access)); err == nil {
					err = renameBetween(src, dst)
				}
			}
		}
		if err != nil {
			h.logf(r, levelCrit, "rename failed", "from", src.full, "to", dst.full, "err", err)
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	}
	if err := copyFile(src.root, src.rel, dst.root, dst.rel, fi); err != nil {
		if escapes(err) {
			// NGINX would copy the file a link outside the root names
			// into it, for the client to read.
			return h.status(r, err, http.StatusNotFound, "open()", src.full)
		}
		h.logf(r, levelCrit, "copy failed", "from", src.full, "to", dst.full, "err", err)
		return http.StatusInternalServerError
	}
	return http.StatusNoContent
}

// copyTree copies the directory from's entries into to, as NGINX's tree
// walk does: directories with their permission (search bits added where
// read is) and afterwards their time, files with theirs, other entries
// (links, sockets) left out; failures are logged and the walk goes on.
func (h *Handler) copyTree(r *http.Request, src, dst target, from, to string) {
	entries, err := fs.ReadDir(src.root.FS(), from)
	if err != nil {
		h.logf(r, levelCrit, "opendir failed", "path", from, "err", err)
		return
	}
	for _, e := range entries {
		sname, dname := path.Join(from, e.Name()), path.Join(to, e.Name())
		fi, err := src.root.Lstat(sname)
		if err != nil {
			continue
		}
		switch {
		case fi.IsDir():
			if err := dst.root.Mkdir(dname, dirAccess(fi.Mode().Perm())); err != nil {
				h.logf(r, slog.LevelError, "mkdir() failed", "path", dname, "err", err)
			}
			h.copyTree(r, src, dst, sname, dname)
			if err := dst.root.Chtimes(dname, fi.ModTime(), fi.ModTime()); err != nil {
				h.logf(r, levelAlert, "utimes() failed", "path", dname, "err", err)
			}
		case fi.Mode().IsRegular():
			if err := copyFile(src.root, sname, dst.root, dname, fi); err != nil {
				h.logf(r, levelCrit, "copy failed", "from", sname, "to", dname, "err", err)
			}
		}
	}
}

// copyFile copies a file with its permission and time, to a temporary
// name beside the destination that is then renamed onto it: the
// destination is never seen half copied.
func copyFile(sr *os.Root, sname string, dr *os.Root, dname string, fi fs.FileInfo) error {
	in, err := sr.Open(sname)
	if err != nil {
		return err
	}
	defer in.Close()
	parent, base := path.Split(dname)
	side := path.Join(parent, "."+base+".dav-"+randomSuffix())
	out, err := dr.OpenFile(side, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = dr.Chtimes(side, fi.ModTime(), fi.ModTime())
	}
	if err == nil {
		err = dr.Rename(side, dname)
	}
	if err != nil {
		dr.Remove(side)
	}
	return err
}

// randomSuffix names a temporary file; O_EXCL refuses one that exists.
func randomSuffix() string { return strconv.FormatUint(rand.Uint64(), 36) }
