// Package testfs changes files for tests the way deploys do: a new file
// or symbolic link is renamed over the old name, so that a reader sees
// either the old one or the new one, and descriptors already open stay on
// the old file.
package testfs

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Replace puts body at rel below root by renaming a new file over it, and
// gives the file mtime.
func Replace(t testing.TB, root, rel, body string, mtime time.Time) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.WriteFile(p+".new", []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p+".new", mtime, mtime); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p+".new", p); err != nil {
		t.Fatal(err)
	}
}

// Relink points the symbolic link name at target by renaming a new link
// over it (name need not exist yet).
func Relink(t testing.TB, name, target string) {
	t.Helper()
	tmp := name + ".tmp"
	if err := os.Symlink(target, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, name); err != nil {
		t.Fatal(err)
	}
}
