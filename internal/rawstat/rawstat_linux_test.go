package rawstat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Lstatat answers as fstatat(2) with AT_SYMLINK_NOFOLLOW, for short paths
// (the stack's copy) and for those PathBuf cannot hold (a NUL, 256 bytes
// and more), which go through unix.Fstatat.
func TestLstatat(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("n", 300)
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	fd := int(d.Fd())
	for _, c := range []struct {
		path string
		mode uint32
		err  error
	}{
		{"sub", unix.S_IFDIR, nil},
		{"sub/file", unix.S_IFREG, nil},
		{"link", unix.S_IFLNK, nil}, // not followed at the end
		{"link/file", unix.S_IFREG, nil},
		{"missing", 0, unix.ENOENT},
		{"sub/file/x", 0, unix.ENOTDIR},
		{"nul\x00", 0, unix.EINVAL},
		{long, 0, unix.ENAMETOOLONG},
		{"sub/" + long, 0, unix.ENAMETOOLONG},
	} {
		var st unix.Stat_t
		err := Lstatat(fd, c.path, &st)
		if err != c.err || (err == nil && st.Mode&unix.S_IFMT != c.mode) {
			t.Errorf("%.20q: mode %o, error %v; want %o, %v", c.path, st.Mode&unix.S_IFMT, err, c.mode, c.err)
		}
	}
}

// /proc's statistics are made up by the kernel, not a disk's: not local.
// (Where the temporary directory lies varies by machine, so no file
// system is required to be local here; server's TestRootSetRawOpened
// checks the raw path where it is.)
func TestLocalRefusesProc(t *testing.T) {
	d, err := os.Open("/proc")
	if err != nil {
		t.Skip(err)
	}
	defer d.Close()
	if Local(int(d.Fd())) {
		t.Error("Local(/proc) = true")
	}
}
