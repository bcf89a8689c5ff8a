//go:build unix

package dav

import (
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func sameDevice(a, b fs.FileInfo) bool {
	return a.Sys().(*syscall.Stat_t).Dev == b.Sys().(*syscall.Stat_t).Dev
}

// otherFileSystem is a directory on another file system than root, in
// /dev/shm; the test is skipped where there is none.
func otherFileSystem(t *testing.T, root string) string {
	t.Helper()
	other, err := os.MkdirTemp("/dev/shm", "dav-")
	if err != nil {
		t.Skip("no /dev/shm")
	}
	t.Cleanup(func() { os.RemoveAll(other) })
	a, _ := os.Stat(other)
	b, _ := os.Stat(root)
	if sameDevice(a, b) {
		t.Skip("/dev/shm is on the root's file system")
	}
	return other
}

// TestPutAcrossFileSystems: a body kept on another file system than the
// root is copied beside its name, then renamed onto it.
func TestPutAcrossFileSystems(t *testing.T) {
	h, root, _ := site(t)
	other := otherFileSystem(t, root)
	h.o.TempFile = func() (*os.File, error) { return os.CreateTemp(other, "body-") }
	if w := do(h, "PUT", "/f.txt", "across"); w.Code != http.StatusNoContent {
		t.Fatalf("PUT: %d", w.Code)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "f.txt")); string(b) != "across" {
		t.Errorf("f.txt holds %q", b)
	}
	for _, d := range []string{root, other} {
		if m, _ := filepath.Glob(filepath.Join(d, ".*dav-*")); len(m) != 0 {
			t.Errorf("temporary files left: %v", m)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(other, "body-*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// TestPutAcrossFileSystemsCopyFails: a copy that fails leaves the name as
// it was and answers 500, not a file cut short under the name.
func TestPutAcrossFileSystemsCopyFails(t *testing.T) {
	h, root, _ := site(t)
	other := otherFileSystem(t, root)
	// A body file opened for writing only takes the body, then cannot be
	// read back for the copy.
	h.o.TempFile = func() (*os.File, error) {
		return os.OpenFile(filepath.Join(other, "body"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	}
	if w := do(h, "PUT", "/f.txt", "across"); w.Code != http.StatusInternalServerError {
		t.Errorf("PUT: %d, want 500", w.Code)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "f.txt")); string(b) != "f" {
		t.Errorf("f.txt holds %q, want what it held before", b)
	}
	if m, _ := filepath.Glob(filepath.Join(root, ".*dav-*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
}
