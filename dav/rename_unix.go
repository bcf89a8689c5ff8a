//go:build unix

package dav

import (
	"os"

	"golang.org/x/sys/unix"
)

// renameInto renames the file old (a path outside the root, in
// client_body_temp_path) to base in the open directory dir. base is one
// name, so the rename cannot leave dir whatever links lie on the way.
func renameInto(old string, dir *os.File, base string) error {
	err := unix.Renameat(unix.AT_FDCWD, old, int(dir.Fd()), base)
	if err != nil {
		return &os.LinkError{Op: "renameat", Old: old, New: base, Err: err}
	}
	return nil
}
