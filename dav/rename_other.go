//go:build !unix

package dav

import (
	"os"
	"syscall"
)

// renameInto has no renameat to rely on here: the caller copies the
// file beside its destination instead, as across file systems.
func renameInto(string, *os.File, string) error { return syscall.EXDEV }
