// Package nolinks finds symbolic links on the way to a file, for NGINX's
// disable_symlinks. A path is refused with the errors NGINX's opens that
// may not follow links get: ENOTDIR for a link where a directory of the
// path stands (a 404), ELOOP for the file itself (a 403).
package nolinks

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Below returns an error for the first component of rel, a path below
// root, that is a symbolic link: each is looked at without following it.
// Other errors (a missing component) are left to the open that follows.
func Below(root *os.Root, rel string) error {
	rel = strings.Trim(filepath.ToSlash(rel), "/")
	for end := 0; end < len(rel); {
		next := strings.IndexByte(rel[end+1:], '/')
		if next < 0 {
			end = len(rel)
		} else {
			end += 1 + next
		}
		part := rel[:end]
		if part == "" || part == "." {
			continue
		}
		fi, err := root.Lstat(part)
		if err != nil {
			return nil
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if end < len(rel) {
				return &fs.PathError{Op: "lstat", Path: part, Err: syscall.ENOTDIR}
			}
			return &fs.PathError{Op: "lstat", Path: part, Err: syscall.ELOOP}
		}
	}
	return nil
}

// InPath returns an error (ENOTDIR) for the first component of the
// directory dir that is a symbolic link, looking only at those that lie
// beyond from, a leading part of dir's path ("" for all of them; dir for
// none).
func InPath(dir, from string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if from != "" {
		if from, err = filepath.Abs(from); err != nil {
			return err
		}
	}
	for p := abs; ; {
		if from != "" && (p == from || len(p) < len(from)) {
			return nil
		}
		fi, err := os.Lstat(p)
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return &fs.PathError{Op: "lstat", Path: p, Err: syscall.ENOTDIR}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return nil
		}
		p = parent
	}
}
