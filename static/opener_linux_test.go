//go:build linux

package static

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// osRootVariant serves through os.Root, the opener of kernels without
// openat2, instead.
func osRootVariant() (fixtureVariant, bool) {
	return fixtureVariant{name: "os.Root", server: func(h *FileServer) {
		h.op = rootOpener{root: h.op.(*beneath).root}
	}}, true
}

// useOSRoot makes fs, serving with links, open through os.Root rather
// than openat2.
func useOSRoot(fs *FileServer, links Symlinks) {
	if b, ok := fs.op.(*beneath); ok {
		fs.op = rootOpener{root: b.root, links: links.mode()}
	}
}

// Every FileServer on Linux opens with openat2.
func TestOpenat2IsUsed(t *testing.T) {
	fx := serve(t, nil)
	if _, ok := fx.fs.op.(*beneath); !ok {
		t.Fatalf("opener %T, want openat2's", fx.fs.op)
	}
}

// openat2 copies short paths to the stack and hands long ones, and any
// with a NUL, to unix.Openat2: each length opens the same file, and a
// NUL is refused.
func TestOpenat2PathLengths(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("d", 200)
	if err := os.MkdirAll(filepath.Join(dir, long, long), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"f", long + "/f", long + "/" + long + "/f"} {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(rel), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	op, _, err := newOpener(dir, root, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, ok := op.(*beneath)
	if !ok {
		t.Skipf("opener %T: no openat2 here", op)
	}
	defer b.close()
	for _, rel := range []string{"f", long + "/f", long + "/" + long + "/f"} {
		fd, err := openat2(b.dir.get(), rel, &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC, Resolve: resolveBeneath})
		if err != nil {
			t.Errorf("path of %d bytes: %v", len(rel), err)
			continue
		}
		buf := make([]byte, len(rel)+1)
		n, _ := unix.Read(fd, buf)
		unix.Close(fd)
		if string(buf[:n]) != rel {
			t.Errorf("path of %d bytes opened a file holding %q", len(rel), buf[:n])
		}
	}
	if fd, err := openat2(b.dir.get(), "f\x00x", &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC, Resolve: resolveBeneath}); err == nil {
		unix.Close(fd)
		t.Error("a path with a NUL opened")
	}
}

// A file server dropped without Close, as a location with variables in its
// root drops roots past its bound, gives its directory descriptors back
// when it is collected.
func TestDroppedServerClosesRoot(t *testing.T) {
	dir := t.TempDir()
	openFDs := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skipf("no /proc/self/fd: %v", err)
		}
		return len(ents)
	}
	before := openFDs()
	for i := 0; i < 50; i++ {
		if _, err := New(Options{Root: dir}); err != nil {
			t.Fatal(err)
		}
	}
	if n := openFDs(); n < before+50 {
		t.Fatalf("%d descriptors open for 50 servers, want at least %d", n-before, 50)
	}
	deadline := time.Now().Add(5 * time.Second)
	for openFDs() > before+5 {
		if time.Now().After(deadline) {
			t.Fatalf("%d descriptors still open after the servers were dropped", openFDs()-before)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// A body whose pages are not in memory is read all the same: preadv2 with
// RWF_NOWAIT refuses it (EAGAIN) and the ordinary pread waits for the disk.
func TestReadAtAfterPagesDropped(t *testing.T) {
	name := filepath.Join(t.TempDir(), "cold.bin")
	want := []byte(strings.Repeat("0123456789abcdef", 3<<10))
	if err := os.WriteFile(name, want, 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := &fdFile{fd: fd}
	defer f.Close()
	if err := unix.Fsync(fd); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	probe := make([]byte, 16)
	if _, err := unix.Preadv2(fd, [][]byte{probe}, int64(len(want)-16), unix.RWF_NOWAIT); err != unix.EAGAIN {
		t.Skipf("preadv2(RWF_NOWAIT) of a dropped page: %v, not EAGAIN: the file system keeps it", err)
	}
	got := make([]byte, len(want))
	n, err := f.ReadAt(got, 0)
	if err != nil || n != len(want) || string(got) != string(want) {
		t.Fatalf("ReadAt: %d bytes, %v; same bytes: %v", n, err, string(got) == string(want))
	}
	if f.waits.Load() {
		t.Error("an EAGAIN made the file give up RWF_NOWAIT")
	}
}
