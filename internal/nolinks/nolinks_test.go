package nolinks

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func tree(t testing.TB) string {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "real", "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for target, name := range map[string]string{"real": "sub", "real/f": "link"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestBelowAndInPath(t *testing.T) {
	dir := tree(t)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for rel, want := range map[string]error{
		"real/f": nil, "/real/f": nil, "real/missing/x": nil, "": nil,
		"link": syscall.ELOOP, "sub/f": syscall.ENOTDIR, "sub": syscall.ELOOP, "/sub/": syscall.ELOOP,
	} {
		if err := Below(root, rel); !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("Below(%q) = %v, want %v", rel, err, want)
		}
	}
	linked := filepath.Join(dir, "sub")
	if err := InPath(linked, ""); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("InPath(%s) = %v, want ENOTDIR", linked, err)
	}
	if err := InPath(linked, linked); err != nil {
		t.Errorf("InPath(%s) from itself = %v", linked, err)
	}
	if err := InPath(filepath.Join(dir, "real"), ""); err != nil {
		t.Errorf("InPath(real) = %v", err)
	}
}

// FuzzBelow: any request path is answered with nothing or one of the two
// refusals, never a panic.
func FuzzBelow(f *testing.F) {
	f.Add("sub/f")
	f.Add("../link")
	f.Add("//sub//")
	dir := tree(f)
	root, err := os.OpenRoot(dir)
	if err != nil {
		f.Fatal(err)
	}
	defer root.Close()
	f.Fuzz(func(t *testing.T, rel string) {
		if err := Below(root, rel); err != nil && !errors.Is(err, syscall.ELOOP) && !errors.Is(err, syscall.ENOTDIR) {
			t.Fatalf("Below(%q) = %v", rel, err)
		}
	})
}
