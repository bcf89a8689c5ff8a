package static

import (
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"

	"github.com/mosaic-edge/mosaic/internal/reason"
)

// openFailed answers for a file that could not be opened, with NGINX's
// mapping of errors to statuses: a missing file is 404, a refused one 403,
// anything else 500.
func (h *FileServer) openFailed(w http.ResponseWriter, r *http.Request, rel string, err error) {
	var errno syscall.Errno
	errors.As(err, &errno)
	switch {
	case errors.Is(err, fs.ErrNotExist), errno == syscall.ENOTDIR, errno == syscall.ENAMETOOLONG:
		if h.logNotFound {
			h.log.LogAttrs(r.Context(), slog.LevelError, "static: open failed",
				slog.String("path", h.fsPath(rel)), slog.Any("error", err))
		}
		h.fail(w, r, http.StatusNotFound)
	case errors.Is(err, h.escapes), errno == syscall.EXDEV:
		// os.Root's error, or openat2's for RESOLVE_BENEATH.
		h.log.LogAttrs(r.Context(), slog.LevelError, "static: symbolic link leads outside the root",
			slog.String("path", h.fsPath(rel)))
		h.fail(w, r, http.StatusForbidden)
	case errors.Is(err, fs.ErrPermission), errno == syscall.ELOOP, errno == syscall.EMLINK:
		h.log.LogAttrs(r.Context(), slog.LevelError, "static: open failed",
			slog.String("path", h.fsPath(rel)), slog.Any("error", err))
		h.fail(w, r, http.StatusForbidden)
	default:
		h.log.LogAttrs(r.Context(), slog.LevelError, "static: open failed",
			slog.String("path", h.fsPath(rel)), slog.Any("error", err))
		h.fail(w, r, http.StatusInternalServerError)
	}
}

func (h *FileServer) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	w.Header()["Allow"] = []string{"GET, HEAD"}
	h.fail(w, r, http.StatusMethodNotAllowed)
}

// redirectToDir sends a client that named a directory without a trailing
// slash to the same URI with one, keeping the query string. The Location is
// a path; the server makes it absolute where absolute_redirect asks for it.
// Leading slashes are merged into one: "//host/" would send the client to
// another site.
func (h *FileServer) redirectToDir(w http.ResponseWriter, r *http.Request, uri string) {
	p := "/"
	if t := strings.TrimLeft(uri, "/"); t != "" {
		p += t + "/"
	}
	loc := (&url.URL{Path: p, RawQuery: r.URL.RawQuery}).String()
	w.Header()["Location"] = []string{loc}
	h.fail(w, r, http.StatusMovedPermanently)
}

// fail hands status to the Error option, or writes NGINX's kind of page.
func (h *FileServer) fail(w http.ResponseWriter, r *http.Request, status int) {
	if h.errorPage != nil {
		h.errorPage(w, r, status)
		return
	}
	writeErrorPage(w, status)
}

// writeErrorPage writes the short HTML page NGINX answers errors and
// redirects with.
func writeErrorPage(w http.ResponseWriter, status int) {
	page, _ := reason.Page(status)
	hdr := w.Header()
	hdr["Content-Type"] = []string{"text/html"}
	hdr["Content-Length"] = []string{strconv.Itoa(len(page))}
	w.WriteHeader(status)
	w.Write([]byte(page))
}
