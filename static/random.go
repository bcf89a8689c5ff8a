package static

import (
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"strings"
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
// opened (404, 403, 500).
func (h *FileServer) serveRandom(w http.ResponseWriter, r *http.Request, dir, uri string) bool {
	name := strings.TrimSuffix(dir, "/")
	if name == "" {
		name = "."
	}
	root := h.root.FS()
	d, err := root.Open(name)
	if err == nil {
		if info, serr := d.Stat(); serr == nil && !info.IsDir() {
			err = &fs.PathError{Op: "readdir", Path: name, Err: syscall.ENOTDIR}
		}
	}
	if err != nil {
		if d != nil {
			d.Close()
		}
		h.openFailed(w, r, dir, err)
		return true
	}
	defer d.Close()
	rd, ok := d.(fs.ReadDirFile)
	if !ok {
		return false
	}
	chosen, seen := "", 0
	for {
		entries, err := rd.ReadDir(randomBatch)
		for _, e := range entries {
			if n := e.Name(); n[0] != '.' && h.isRegular(root, name, e) {
				seen++
				if rand.IntN(seen) == 0 {
					chosen = n
				}
			}
		}
		if errors.Is(err, io.EOF) || (err == nil && len(entries) == 0) {
			break
		}
		if err != nil {
			h.openFailed(w, r, dir, err)
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
	rel := joinRel(dir, chosen)
	f, err := h.open(rel)
	if err != nil {
		h.openFailed(w, r, rel, err)
		return true
	}
	h.serveOpened(w, r, &f, rel, uri+chosen)
	return true
}

// isRegular reports whether the entry e of directory dir is a regular
// file, following a symbolic link (inside the root).
func (h *FileServer) isRegular(root fs.FS, dir string, e fs.DirEntry) bool {
	if e.Type()&fs.ModeSymlink == 0 {
		return e.Type().IsRegular()
	}
	path := e.Name()
	if dir != "." {
		path = dir + "/" + path
	}
	info, err := fs.Stat(root, path)
	return err == nil && info.Mode().IsRegular()
}
