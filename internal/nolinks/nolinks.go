// Package nolinks finds symbolic links on the way to a file, for NGINX's
// disable_symlinks. With Refuse, a path is refused with the errors
// NGINX's opens that may not follow links get: ENOTDIR for a link where a
// directory of the path stands (a 404), ELOOP for the file itself (a
// 403). With IfNotOwner, a link is followed when its owner owns what it
// leads to, and refused with ELOOP otherwise, wherever it stands.
package nolinks

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Mode is what a link on the way does.
type Mode uint8

const (
	Refuse     Mode = iota + 1 // disable_symlinks on
	IfNotOwner                 // disable_symlinks if_not_owner
)

// Below returns an error for the first component of rel, a path below
// root, that is a link mode refuses: each is looked at without following
// it. Other errors (a missing component) are left to the open that
// follows.
func Below(root *os.Root, rel string, mode Mode) error {
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
		if err := check(fi, func() (fs.FileInfo, error) { return root.Stat(part) }, part, end < len(rel), mode); err != nil {
			return err
		}
	}
	return nil
}

// InPath returns an error for the first component of the directory dir
// that is a link mode refuses, looking only at those that lie beyond
// from, a leading part of dir's path ("" for all of them; dir for none).
func InPath(dir, from string, mode Mode) error {
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
		if fi, err := os.Lstat(p); err == nil {
			if err := check(fi, func() (fs.FileInfo, error) { return os.Stat(p) }, p, true, mode); err != nil {
				return err
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return nil
		}
		p = parent
	}
}

// check refuses the component name, found to be fi without following it,
// if it is a link mode refuses; target stats what it leads to, and dir
// says a directory of the path stands there.
func check(fi fs.FileInfo, target func() (fs.FileInfo, error), name string, dir bool, mode Mode) error {
	if fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	if mode == IfNotOwner {
		to, err := target()
		if err != nil || sameOwner(to, fi) {
			return nil // a broken link is the open's to report
		}
		return &fs.PathError{Op: "stat", Path: name, Err: syscall.ELOOP}
	}
	if dir {
		return &fs.PathError{Op: "lstat", Path: name, Err: syscall.ENOTDIR}
	}
	return &fs.PathError{Op: "lstat", Path: name, Err: syscall.ELOOP}
}
