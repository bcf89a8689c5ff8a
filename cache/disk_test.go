package cache_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
)

func newDiskStore(t testing.TB, dir string, opts cache.DiskOptions) *cache.DiskStore {
	t.Helper()
	s, err := cache.NewDiskStore(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// entryFiles lists the entry files under dir (not tmp, not generation).
func entryFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "tmp" {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() != cache.GenerationFile {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func cachedOrigin(t *testing.T) *origin {
	return newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Header().Set("Surrogate-Key", "all "+strings.Trim(r.URL.Path, "/"))
		fmt.Fprint(w, "body of ", r.URL.Path, strings.Repeat(".", 100<<10*len(r.URL.Query()["big"])))
	})
}

func TestDiskEntriesSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	o := cachedOrigin(t)
	s1 := newDiskStore(t, dir, cache.DiskOptions{Levels: []int{1, 2}})
	f1 := newFront(t, o, cache.Options{Store: s1, Key: pathKey})
	f1.get(t, "/a")
	f1.get(t, "/b?big=1")
	if r := f1.get(t, "/a"); r.cacheStatus() != cache.StatusHit {
		t.Fatalf("before restart: %q", r.cacheStatus())
	}
	s1.Close()
	files := entryFiles(t, dir)
	if len(files) != 2 {
		t.Fatalf("files %v", files)
	}
	// levels=1:2: dir/c/ab/<md5 ending in abc>
	rel, _ := filepath.Rel(dir, files[0])
	parts := strings.Split(rel, string(filepath.Separator))
	if len(parts) != 3 || len(parts[0]) != 1 || len(parts[1]) != 2 || !strings.HasSuffix(parts[2], parts[1]+parts[0]) {
		t.Fatalf("file %s does not follow levels=1:2", rel)
	}

	s2 := newDiskStore(t, dir, cache.DiskOptions{Levels: []int{1, 2}})
	f2 := newFront(t, o, cache.Options{Store: s2, Key: pathKey})
	for _, p := range []string{"/a", "/b?big=1"} {
		r := f2.get(t, p)
		if r.cacheStatus() != cache.StatusHit || !strings.HasPrefix(r.body, "body of "+strings.Split(p, "?")[0]) {
			t.Fatalf("after restart %s: %q %q", p, r.cacheStatus(), r.body[:min(len(r.body), 20)])
		}
	}
	if r := f2.get(t, "/b?big=1"); len(r.body) != len("body of /b")+100<<10 {
		t.Fatalf("large body has %d bytes", len(r.body))
	}
	if n := o.hits.Load(); n != 2 {
		t.Fatalf("origin saw %d requests, want 2", n)
	}
}

// corrupt applies damage to the only entry file under dir.
func corruptEntry(t *testing.T, dir string, damage func(path string, size int64)) {
	t.Helper()
	files := entryFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	fi, err := os.Stat(files[0])
	if err != nil {
		t.Fatal(err)
	}
	damage(files[0], fi.Size())
}

func TestDiskCorruptEntryIsDroppedNotServed(t *testing.T) {
	for _, tc := range []struct {
		name    string
		big     bool
		restart bool
		damage  func(t *testing.T, path string, size int64)
	}{
		{"flipped body byte", false, false, func(t *testing.T, p string, size int64) {
			flipByte(t, p, cache.DiskHeaderSize+3)
		}},
		{"flipped byte in a large body", true, false, func(t *testing.T, p string, size int64) {
			flipByte(t, p, cache.DiskHeaderSize+90<<10)
		}},
		{"truncated, found on restart", false, true, func(t *testing.T, p string, size int64) {
			if err := os.Truncate(p, size-5); err != nil {
				t.Fatal(err)
			}
		}},
		{"flipped metadata byte, found on restart", false, true, func(t *testing.T, p string, size int64) {
			flipByte(t, p, size-3)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			o := cachedOrigin(t)
			s := newDiskStore(t, dir, cache.DiskOptions{})
			f := newFront(t, o, cache.Options{Store: s, Key: pathKey})
			path := "/c"
			if tc.big {
				path = "/c?big=1"
			}
			f.get(t, path)
			corruptEntry(t, dir, func(p string, size int64) { tc.damage(t, p, size) })
			if tc.restart {
				s.Close()
				s = newDiskStore(t, dir, cache.DiskOptions{})
				f = newFront(t, o, cache.Options{Store: s, Key: pathKey})
				if s.Len() != 0 {
					t.Fatalf("the loader kept a broken entry")
				}
			}
			if tc.big {
				// A large body is checked as it streams: the first reader gets
				// a broken connection, never a complete-looking response.
				resp, err := http.Get(f.URL + path)
				if err == nil {
					_, err = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				if err == nil {
					t.Fatal("a corrupt large body was served as complete")
				}
			}
			r := f.get(t, path)
			if r.cacheStatus() != cache.StatusMiss || !strings.HasPrefix(r.body, "body of /c") {
				t.Fatalf("after damage: %q", r.cacheStatus())
			}
			if n := o.hits.Load(); n != 2 {
				t.Fatalf("origin saw %d requests, want 2", n)
			}
		})
	}
}

func flipByte(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0xff
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

// TestDiskKillDuringWrite kills (SIGKILL) a process that is writing an
// entry, then opens the directory again: the half-written entry must not
// be served, and a complete entry written before must be.
func TestDiskKillDuringWrite(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	url := strings.TrimSpace(line)

	for range 2 {
		resp, err := http.Get(url + "/complete")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	resp, err := http.Get(url + "/big")
	if err != nil {
		t.Fatal(err)
	}
	// Read a good part of the body, then make sure the entry is being
	// written, then kill the writer.
	if _, err := io.CopyN(io.Discard, resp.Body, 1<<20); err != nil {
		t.Fatal(err)
	}
	tmp, _ := os.ReadDir(filepath.Join(dir, "tmp"))
	if len(tmp) != 1 {
		t.Fatalf("expected one entry being written, found %d temporary files", len(tmp))
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	killed = true
	resp.Body.Close()

	s := newDiskStore(t, dir, cache.DiskOptions{})
	if n := s.Len(); n != 1 {
		t.Fatalf("after the kill the store indexes %d entries, want 1", n)
	}
	if tmp, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(tmp) != 0 {
		t.Fatalf("%d temporary files left after restart", len(tmp))
	}
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, "fresh ", r.URL.Path)
	})
	f := newFront(t, o, cache.Options{Store: s, Key: pathKey})
	if r := f.get(t, "/complete"); r.cacheStatus() != cache.StatusHit || r.body != "complete entry" {
		t.Fatalf("complete entry after restart: %q %q", r.cacheStatus(), r.body)
	}
	if r := f.get(t, "/big"); r.cacheStatus() != cache.StatusMiss || r.body != "fresh /big" {
		t.Fatalf("half entry after restart: %q %q", r.cacheStatus(), r.body[:min(20, len(r.body))])
	}
}

func TestDiskMaxSizeEvictsLeastRecentlyUsed(t *testing.T) {
	dir := t.TempDir()
	o := cachedOrigin(t)
	// Each entry is about 100 KiB; room for two.
	s := newDiskStore(t, dir, cache.DiskOptions{MaxSize: 250 << 10})
	f := newFront(t, o, cache.Options{Store: s, Key: pathKey})
	f.get(t, "/1?big=1")
	f.get(t, "/2?big=1")
	f.get(t, "/1?big=1") // /1 is now the most recently used
	f.get(t, "/3?big=1")
	if s.Len() != 2 || len(entryFiles(t, dir)) != 2 {
		t.Fatalf("%d entries, %d files; want 2", s.Len(), len(entryFiles(t, dir)))
	}
	if r := f.get(t, "/1?big=1"); r.cacheStatus() != cache.StatusHit {
		t.Fatalf("/1: %q", r.cacheStatus())
	}
	if r := f.get(t, "/2?big=1"); r.cacheStatus() != cache.StatusMiss {
		t.Fatalf("/2 should have been evicted: %q", r.cacheStatus())
	}
}

func TestDiskInactiveAndGeneration(t *testing.T) {
	dir := t.TempDir()
	s := newDiskStore(t, dir, cache.DiskOptions{Inactive: time.Minute})
	ctx := context.Background()
	put := func(key string, gen uint64) {
		w, err := s.Put(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(w, "x")
		if err := w.Commit(ctx, &cache.Meta{Key: key, Status: 200, Header: http.Header{}, Generation: gen}); err != nil {
			t.Fatal(err)
		}
	}
	put("old", 0)
	cache.Sweep(s, time.Now().Add(2*time.Minute))
	if s.Len() != 0 || len(entryFiles(t, dir)) != 0 {
		t.Fatal("inactive entry kept")
	}
	put("a", 0)
	g, err := s.BumpGeneration(ctx)
	if err != nil || g != 1 {
		t.Fatalf("generation %d, %v", g, err)
	}
	s.Close()
	s2 := newDiskStore(t, dir, cache.DiskOptions{})
	if g, _ := s2.Generation(ctx); g != 1 {
		t.Fatalf("generation after restart %d, want 1", g)
	}
	cache.Sweep(s2, time.Now())
	if s2.Len() != 0 {
		t.Fatal("an entry of an older generation survived the sweep")
	}
}
