package static

import (
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"syscall"
)

// randomBatch is how many directory entries are read at a time: the
// choice is made as the directory streams by (reservoir sampling), so
// that a directory of any size costs one batch of memory.
const randomBatch = 256

// serveRandom answers a request for the directory dir (uri ends in "/")
// with one of its regular files, chosen with equal chances, as NGINX's
// random_index does: names starting with "." are skipped, a symbolic
// link counts for what it leads to (inside the root). It reports false,
// having written nothing, when the directory holds no such file; a
// directory that cannot be read is answered as a file that cannot be
// opened (404, 403, 500), and one with a link that cannot be followed
// (a loop) with 500, as NGINX.
func (h *FileServer) serveRandom(w http.ResponseWriter, r *http.Request, dir, uri string) bool {
	name := listedDir(dir)
	if h.refuseListed(w, r, name) {
		return true
	}
	// Opened without waiting, as files are (opener.go): nothing has
	// looked at the name yet, and a FIFO there ("/fifo/") would hold
	// the request in open(2) until a writer came.
	d, err := h.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err == nil {
		if info, serr := d.Stat(); serr == nil && !info.IsDir() {
			err = &fs.PathError{Op: "readdir", Path: name, Err: syscall.ENOTDIR}
		}
	}
	if err != nil {
		if d != nil {
			d.Close()
		}
		h.openFailed(w, r, name, err)
		return true
	}
	defer d.Close()
	root := h.root.FS()
	chosen, seen := "", 0
	for {
		entries, err := d.ReadDir(randomBatch)
		for _, e := range entries {
			if n := e.Name(); n[0] != '.' {
				regular, err := h.isRegular(root, name, e)
				if err != nil {
					// NGINX fails the request when it cannot stat an
					// entry (ngx_http_random_index_error).
					h.log.LogAttrs(r.Context(), slog.LevelError, "static: random index: stat failed",
						slog.String("path", h.fsPath(joinRel(name, n))), slog.Any("error", err))
					h.fail(w, r, http.StatusInternalServerError)
					return true
				}
				if regular {
					seen++
					if rand.IntN(seen) == 0 {
						chosen = n
					}
				}
			}
		}
		if errors.Is(err, io.EOF) || (err == nil && len(entries) == 0) {
			break
		}
		if err != nil {
			h.openFailed(w, r, name, err)
			return true
		}
	}
	if chosen == "" {
		return false
	}
	if h.indexRedirect != nil {
		h.indexRedirect(w, r, uri+chosen)
		return true
	}
	// The file is the one uri+chosen maps to, as the internal redirect
	// above would find it: dir and the name, as the index module joins them.
	rel := dir + chosen
	f, err := h.open(rel)
	if err != nil {
		h.openFailed(w, r, rel, err)
		return true
	}
	h.serveOpened(w, r, &f, rel, uri+chosen)
	return true
}

// isRegular reports whether the entry e of directory dir is a regular
// file, following a symbolic link (inside the root). A link whose target
// is missing, or outside the root, is not one; a link that cannot be
// followed for another reason (a loop) is an error, as NGINX's stat of
// it is.
func (h *FileServer) isRegular(root fs.FS, dir string, e fs.DirEntry) (bool, error) {
	if e.Type()&fs.ModeSymlink == 0 {
		return e.Type().IsRegular(), nil
	}
	path := e.Name()
	if dir != "." {
		path = dir + "/" + path
	}
	info, err := fs.Stat(root, path)
	switch {
	case err == nil:
		return info.Mode().IsRegular(), nil
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, h.escapes), errors.Is(err, syscall.EXDEV):
		return false, nil
	}
	return false, err
}
