package static

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// TestRandomIndex: every answer is one of the directory's regular files,
// each comes up, dot files and subdirectories never; an empty directory
// goes on to the index (403 without one).
func TestRandomIndex(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "d", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b", "c", ".hidden"} {
		if err := os.WriteFile(filepath.Join(root, "d", name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "empty", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Root: root, RandomIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	seen := map[string]int{}
	for i := 0; i < 300; i++ {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/d/", nil))
		if w.Code != http.StatusOK {
			t.Fatalf("%d %q", w.Code, w.Body)
		}
		seen[w.Body.String()]++
	}
	if len(seen) != 3 || seen["a"] == 0 || seen["b"] == 0 || seen["c"] == 0 {
		t.Errorf("answers %v", seen)
	}
	for path, want := range map[string]int{"/empty/": 403, "/missing/": 404, "/d/a/": 404} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		if w.Code != want {
			t.Errorf("%s: %d, want %d", path, w.Code, want)
		}
	}
}
