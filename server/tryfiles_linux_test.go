package server

import (
	"os"
	"path/filepath"
	"runtime/debug"
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

// Reloads give back try_files' descriptors, the raw one included: after
// twenty, the directory is open only for the configuration in force (its
// os.Root and its raw descriptor).
func TestTryFilesReloadKeepsNoDescriptors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	conf := `http { server { listen 127.0.0.1:0; location / { root ` + dir + `; try_files $uri =418; } } }`
	// An *os.File left open is closed by the collector: none runs here,
	// so that a leak shows.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	rt, url := startRuntime(t, conf)
	for i := range 20 {
		// Twice: the first opens the directory, the second stats raw.
		for range 2 {
			if resp, _ := get(t, url+"/file"); resp.StatusCode != 404 {
				t.Fatalf("reload %d: /file answered %d, want the core's 404", i, resp.StatusCode)
			}
		}
		next, err := LoadString("test.conf", conf)
		if err != nil {
			t.Fatal(err)
		}
		if err := rt.Apply(next); err != nil {
			t.Fatal(err)
		}
	}
	if resp, _ := get(t, url+"/file"); resp.StatusCode != 404 {
		t.Fatalf("/file answered %d", resp.StatusCode)
	}
	if !eventually(func() bool { return openCount(t, dir) <= 2 }) {
		t.Errorf("%d descriptors open on %s after 20 reloads, want at most 2", openCount(t, dir), dir)
	}
}
