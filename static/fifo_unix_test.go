//go:build unix

package static

import (
	"syscall"
	"testing"
)

// mkfifo makes a named pipe at path, a file that is neither regular nor a
// directory.
func mkfifo(t testing.TB, path string) {
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}
