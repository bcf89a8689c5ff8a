package static

import (
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// TestRefuseSymlinks: with RefuseSymlinks a link for the file answers
// 403 and a link for a directory on the way 404 (what NGINX's opens find),
// through openat2 and through os.Root alike; a root whose own path goes
// through a link refuses everything unless SymlinksFrom covers that part;
// and a file an open file cache holds from a server that follows links is
// not served from it to one that refuses them.
func TestRefuseSymlinks(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	for name, body := range map[string]string{"a.txt": "A", "real/b.txt": "B"} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for target, name := range map[string]string{"a.txt": "root/link.txt", "real": "root/sub", "root": "linked"} {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	cache := NewOpenFileCache(16, 0)
	server := func(dir string, links Symlinks, from string, osRoot bool) *FileServer {
		fs, err := New(Options{Root: dir, Symlinks: links, SymlinksFrom: from, OpenFileCache: cache,
			OpenFileCacheMinUses: 1, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { fs.Close() })
		if osRoot {
			useOSRoot(fs, links)
		}
		return fs
	}
	status := func(fs *FileServer, path string) int {
		rec := httptest.NewRecorder()
		fs.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code
	}
	// The server that follows links fills the cache first.
	follow := server(root, FollowSymlinks, "", false)
	for path, want := range map[string]int{"/link.txt": 200, "/sub/b.txt": 200} {
		if got := status(follow, path); got != want {
			t.Errorf("following %s: %d, want %d", path, got, want)
		}
	}
	for _, osRoot := range []bool{false, true} {
		for _, c := range []struct {
			dir, from string
			want      map[string]int
		}{
			{root, root, map[string]int{"/a.txt": 200, "/link.txt": 403, "/sub/b.txt": 404, "/real/b.txt": 200}},
			{root, "", map[string]int{"/a.txt": 200, "/link.txt": 403, "/sub/b.txt": 404}},
			{filepath.Join(base, "linked"), "", map[string]int{"/a.txt": 404, "/real/b.txt": 404}},
			{filepath.Join(base, "linked"), filepath.Join(base, "linked"), map[string]int{"/a.txt": 200, "/link.txt": 403}},
		} {
			fs := server(c.dir, RefuseSymlinks, c.from, osRoot)
			for path, want := range c.want {
				if got := status(fs, path); got != want {
					t.Errorf("os.Root %v, root %s from %q: %s answered %d, want %d", osRoot, c.dir, c.from, path, got, want)
				}
			}
		}
	}
}
