package server

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/rawstat"
)

// On a local file system the set keeps a raw descriptor beside each
// root, so that TestRootSetRawAsRoot compares the raw answers and not
// os.Root's with themselves; a reload closes both.
func TestRootSetRawOpened(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	local := rawstat.Local(int(f.Fd()))
	f.Close()
	if !local {
		t.Skipf("%s is not on a local file system", dir)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var rs rootSet
	if _, err := rs.stat(dir, "file", 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	raw := rs.roots[dir].raw
	if raw == nil {
		t.Fatal("no raw descriptor on a local file system")
	}
	if isDir, ok, err := raw.stat("file"); !ok || isDir || err != nil {
		t.Errorf("raw stat of a file: dir %v, told %v, error %v", isDir, ok, err)
	}
	if err := rs.close(); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := raw.stat("file"); ok {
		t.Error("a closed raw descriptor still answers")
	}
}
