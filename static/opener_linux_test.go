//go:build linux

package static

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mosaic-edge/mosaic/internal/nolinks"
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
	b := openBeneath(t, dir, 0)
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
	f := &fdFile{fd: fd, local: true}
	defer f.Close()
	if err := unix.Fsync(fd); err != nil {
		t.Fatal(err)
	}
	drop := func() {
		t.Helper()
		if err := unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED); err != nil {
			t.Fatal(err)
		}
	}
	drop()
	probe := make([]byte, 16)
	if _, err := unix.Preadv2(fd, [][]byte{probe}, int64(len(want)-16), unix.RWF_NOWAIT); err != unix.EAGAIN {
		t.Skipf("preadv2(RWF_NOWAIT) of a dropped page: %v, not EAGAIN: the file system keeps it", err)
	}
	got := make([]byte, len(want))
	n, err := f.ReadAt(got, 0)
	if err != nil || n != len(want) || string(got) != string(want) {
		t.Fatalf("ReadAt: %d bytes, %v; same bytes: %v", n, err, string(got) == string(want))
	}
	// Read, at the file's position: a first part from the page cache
	// (preadv2 at offset -1), the rest after the pages are dropped (the
	// ordinary read), each where the one before left off.
	drop()
	first := make([]byte, 1000)
	if _, err := unix.Pread(fd, first, 0); err != nil { // back in memory
		t.Fatal(err)
	}
	if n, err := f.Read(first); err != nil || n != len(first) {
		t.Fatalf("first Read: %d bytes, %v", n, err)
	}
	drop()
	rest, err := io.ReadAll(f)
	if err != nil || string(first)+string(rest) != string(want) {
		t.Fatalf("Read: %d+%d bytes, %v; same bytes: %v", len(first), len(rest), err, string(first)+string(rest) == string(want))
	}
	if f.waits.Load() {
		t.Error("an EAGAIN made the file give up RWF_NOWAIT")
	}
}

// Opens first try RESOLVE_CACHED with a raw call; where the kernel
// refuses (EAGAIN: the lookup needs the disk, or a symlink's atime needs
// writing), the ordinary openat2 opens the same files and refuses the
// same escapes. Each links mode is asked twice: with the cached call
// refused (the ordinary answers, whose lookups also fill the caches), then
// with it made. Every answer is the same both ways, the cached call gets
// exactly the root's RESOLVE_* flags plus RESOLVE_CACHED and
// RESOLVE_NO_XDEV, and it answers some paths itself, refusals included:
// it refuses what escapes (or, with links refused, any link) rather than
// handing it on.
func TestOpenat2CachedAndItsFallback(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "root")
	if err := os.MkdirAll(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range [][2]string{{"root/d/f", "F"}, {"secret", "S"}} {
		if err := os.WriteFile(filepath.Join(base, f[0]), []byte(f[1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range [][2]string{{"d/f", "in"}, {"../../secret", "d/out"}, {filepath.Join(base, "secret"), "abs"}, {"/proc/self/root", "magic"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { openat2Cached = rawOpenat2 })
	paths := []string{"d/f", "in", "d/out", "abs", "magic", "missing", "d/f/x"}
	want := map[string]string{"d/f": "F", "in": "F", "d/out": "EXDEV", "abs": "EXDEV", "magic": "EXDEV", "missing": "ENOENT", "d/f/x": "ENOTDIR"}
	// What the cached call must have answered itself (not EAGAIN), warm:
	// a plain file, an absolute link's escape and, links refused, a link.
	mustAnswer := map[nolinks.Mode][]string{0: {"d/f", "abs"}, nolinks.Refuse: {"d/f", "in"}}
	for _, links := range []nolinks.Mode{0, nolinks.Refuse} {
		b := openBeneath(t, dir, links)
		if !b.cached {
			t.Skip("no RESOLVE_CACHED here (before Linux 5.12, or not a local file system)")
		}
		read := func(rel string) string {
			d, _, err := b.open(rel)
			if err != nil {
				var errno unix.Errno
				if errors.As(err, &errno) {
					return unix.ErrnoName(errno)
				}
				return err.Error()
			}
			defer d.Close()
			body, err := io.ReadAll(d)
			if err != nil {
				return err.Error()
			}
			return string(body)
		}
		answered := map[string]string{} // by the cached call itself
		answers := func(refuse bool) map[string]string {
			openat2Cached = func(dirfd int, path string, how *unix.OpenHow) (int, error) {
				if how.Resolve != b.resolve|resolveCached|unix.RESOLVE_NO_XDEV {
					t.Errorf("links %v, %s: resolve %#x, want %#x", links, path, how.Resolve, b.resolve|resolveCached|unix.RESOLVE_NO_XDEV)
				}
				if refuse {
					return -1, unix.EAGAIN
				}
				fd, err := rawOpenat2(dirfd, path, how)
				switch {
				case err == nil:
					answered[path] = "fd"
				case err != unix.EAGAIN:
					answered[path] = unix.ErrnoName(err.(unix.Errno))
				}
				return fd, err
			}
			got := map[string]string{}
			for _, rel := range paths {
				got[rel] = read(rel)
			}
			return got
		}
		ordinary, cached := answers(true), answers(false)
		for _, rel := range paths {
			if ordinary[rel] != cached[rel] {
				t.Errorf("links %v: %s read %q through the cached call, %q without", links, rel, cached[rel], ordinary[rel])
			}
			if links == 0 && ordinary[rel] != want[rel] {
				t.Errorf("%s read %q, want %q", rel, ordinary[rel], want[rel])
			}
		}
		for _, rel := range mustAnswer[links] {
			if _, ok := answered[rel]; !ok {
				t.Errorf("links %v: the cached call left %s to the ordinary one", links, rel)
			}
		}
		t.Logf("links %v: the cached call answered %v", links, answered)
	}
}

// openBeneath opens dir as an openat2 opener, closed when the test ends;
// it skips the test where the kernel offers os.Root's instead.
func openBeneath(t *testing.T, dir string, links nolinks.Mode) *beneath {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	op, _, err := newOpener(dir, root, links)
	if err != nil {
		t.Fatal(err)
	}
	b, ok := op.(*beneath)
	if !ok {
		_ = op.close()
		t.Skipf("opener %T: no openat2 here", op)
	}
	t.Cleanup(func() { _ = b.close() })
	return b
}

// A mount below the root may be NFS or FUSE, whose open, fstat and close
// can wait for a server: only files on the root's own file system are
// opened, stated, read and closed raw. The root here is "/" and the file
// /proc/version, on procfs.
func TestRawCallsStayOnTheRootsFileSystem(t *testing.T) {
	b := openBeneath(t, "/", 0)
	if !b.local {
		t.Skip("/ is not on a local file system")
	}
	var raw []string
	t.Cleanup(func() { openat2Cached = rawOpenat2 })
	openat2Cached = func(dirfd int, path string, how *unix.OpenHow) (int, error) {
		fd, err := rawOpenat2(dirfd, path, how)
		if err == nil {
			raw = append(raw, path)
		}
		return fd, err
	}
	d, info, err := b.open("proc/version")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if info.id.dev == b.dev {
		t.Skip("/proc is not mounted")
	}
	if f := d.(*fdFile); f.local || len(raw) > 0 {
		t.Errorf("/proc/version: raw open of %q, raw reads and close %v", raw, f.local)
	}
}
