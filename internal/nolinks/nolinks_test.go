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
		if err := Below(root, rel, Refuse); !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("Below(%q) = %v, want %v", rel, err, want)
		}
	}
	linked := filepath.Join(dir, "sub")
	if err := InPath(linked, "", Refuse); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("InPath(%s) = %v, want ENOTDIR", linked, err)
	}
	if err := InPath(linked, linked, Refuse); err != nil {
		t.Errorf("InPath(%s) from itself = %v", linked, err)
	}
	if err := InPath(filepath.Join(dir, "real"), "", Refuse); err != nil {
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
		if err := Below(root, rel, Refuse); err != nil && !errors.Is(err, syscall.ELOOP) && !errors.Is(err, syscall.ENOTDIR) {
			t.Fatalf("Below(%q) = %v", rel, err)
		}
	})
}

// TestIfNotOwner: a link is followed when its owner owns what it leads
// to, and refused with ELOOP where it stands otherwise. Changing a link's
// owner needs root.
func TestIfNotOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a link another owner")
	}
	dir := tree(t)
	for target, name := range map[string]string{"real": "subnobody", "real/f": "linknobody"} {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for rel, want := range map[string]error{
		"link": nil, "sub/f": nil, "linknobody": syscall.ELOOP, "subnobody/f": syscall.ELOOP,
	} {
		if err := Below(root, rel, IfNotOwner); !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("Below(%q) = %v, want %v", rel, err, want)
		}
	}
	if err := InPath(filepath.Join(dir, "subnobody"), "", IfNotOwner); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("InPath(subnobody) = %v, want ELOOP", err)
	}
	if err := InPath(filepath.Join(dir, "sub"), "", IfNotOwner); err != nil {
		t.Errorf("InPath(sub) = %v", err)
	}
}
