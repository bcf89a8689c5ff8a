//go:build unix

package nolinks

import (
	"io/fs"
	"syscall"
)

// sameOwner reports whether one user owns the files a and b describe.
func sameOwner(a, b fs.FileInfo) bool { return owner(a) == owner(b) }

// owner is the user that owns the file fi describes.
func owner(fi fs.FileInfo) uint32 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Uid
	}
	return 0
}
