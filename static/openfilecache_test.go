package static

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/internal/testfs"
)

// countingOpener counts the opens and stats that reach the file system,
// which is how a cache hit shows: it makes none; and, where the opener
// can check paths by name (countingIdentifier), the traces and checks.
type countingOpener struct {
	opener
	opens, stats, traces, identifies atomic.Int32
}

func (c *countingOpener) open(rel string) (descriptor, fileInfo, error) {
	c.opens.Add(1)
	return c.opener.open(rel)
}

func (c *countingOpener) stat(rel string) (fileInfo, error) {
	c.stats.Add(1)
	return c.opener.stat(rel)
}

// countingIdentifier is a countingOpener over an identifier, so that an
// opener that is none (os.Root) stays none when counted.
type countingIdentifier struct{ *countingOpener }

func (c countingIdentifier) trace(rel string, info fileInfo) (pathTrace, bool) {
	c.traces.Add(1)
	return c.opener.(identifier).trace(rel, info)
}

func (c countingIdentifier) identify(rel string, t *pathTrace) (fileInfo, error) {
	c.identifies.Add(1)
	return c.opener.(identifier).identify(rel, t)
}

// counting wraps h's opener in a countingOpener, keeping what it is.
func counting(h *FileServer) *countingOpener {
	c := &countingOpener{opener: h.op}
	if _, ok := h.op.(identifier); ok {
		h.op = countingIdentifier{c}
	} else {
		h.op = c
	}
	return c
}

// testClock is the cache's clock in these tests, moved by hand.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// cacheFixture is a FileServer with an open file cache on a test clock.
type cacheFixture struct {
	*fixture
	cache  *OpenFileCache
	clock  *testClock
	counts *countingOpener
}

func serveCached(t *testing.T, max int, inactive time.Duration, change func(*Options)) *cacheFixture {
	t.Helper()
	cache := NewOpenFileCache(max, inactive)
	clock := &testClock{now: time.Unix(1700000000, 0)}
	cache.now = clock.Now
	t.Cleanup(func() { cache.Close() })
	fx := serve(t, func(o *Options) {
		o.OpenFileCache = cache
		if change != nil {
			change(o)
		}
	})
	counts := counting(fx.fs)
	return &cacheFixture{fixture: fx, cache: cache, clock: clock, counts: counts}
}

// get asks for path and checks the status and, when want is not empty, the
// body.
func (cf *cacheFixture) get(path string, status int, want string) *http.Response {
	cf.t.Helper()
	resp, body := cf.do("GET", path)
	if resp.StatusCode != status {
		cf.t.Fatalf("GET %s: status %d, want %d", path, resp.StatusCode, status)
	}
	if want != "" && body != want {
		cf.t.Fatalf("GET %s: body %q, want %q", path, body, want)
	}
	return resp
}

func (cf *cacheFixture) wantOpens(n int32) {
	cf.t.Helper()
	if got := cf.counts.opens.Load(); got != n {
		cf.t.Fatalf("%d opens, want %d", got, n)
	}
}

func TestCacheHit(t *testing.T) {
	cf := serveCached(t, 10, 0, nil)
	first := cf.get("/a.txt", 200, alphabet)
	for range 3 {
		resp := cf.get("/a.txt", 200, alphabet)
		expect(t, resp, 200, "ETag", first.Header.Get("ETag"), "Content-Length", "26")
	}
	cf.wantOpens(1)
	if n := cf.cache.Len(); n != 1 {
		t.Errorf("%d entries, want 1", n)
	}
	// The descriptor stays on the file it opened: a file renamed over it
	// is not seen while the entry is valid.
	testfs.Replace(t, cf.root, "a.txt", "new", fixedMtime.Add(time.Hour))
	cf.get("/a.txt", 200, alphabet)
	cf.wantOpens(1)
	// HEAD, conditional and range requests are answered from it too.
	resp, _ := cf.do("HEAD", "/a.txt")
	expect(t, resp, 200, "Content-Length", "26")
	resp, _ = cf.do("GET", "/a.txt", "If-None-Match", first.Header.Get("ETag"))
	expect(t, resp, 304)
	resp, body := cf.do("GET", "/a.txt", "Range", "bytes=2-4")
	expect(t, resp, 206, "Content-Range", "bytes 2-4/26")
	if body != "cde" {
		t.Errorf("range body %q", body)
	}
	cf.wantOpens(1)
}

func TestCacheRevalidatesAfterValid(t *testing.T) {
	cf := serveCached(t, 10, 0, func(o *Options) { o.OpenFileCacheValid = 30 * time.Second })
	cf.get("/a.txt", 200, alphabet)
	// Past valid, an unchanged file is confirmed by name and kept.
	cf.clock.advance(31 * time.Second)
	cf.get("/a.txt", 200, alphabet)
	cf.get("/a.txt", 200, alphabet)
	if canIdentify(cf.fs) {
		cf.wantOpens(1)
		if n := cf.counts.identifies.Load(); n != 1 {
			t.Errorf("%d identifies, want 1: the confirmed entry is fresh again", n)
		}
	}
	before := cf.counts.opens.Load()
	later := fixedMtime.Add(time.Hour)
	testfs.Replace(t, cf.root, "a.txt", "new body", later)
	cf.clock.advance(29 * time.Second)
	cf.get("/a.txt", 200, alphabet)
	cf.clock.advance(2 * time.Second)
	resp := cf.get("/a.txt", 200, "new body")
	expect(t, resp, 200, "Content-Length", "8", "Last-Modified", later.UTC().Format(http.TimeFormat),
		"ETag", fmt.Sprintf(`"%x-8"`, later.Unix()))
	cf.wantOpens(before + 1)
	// Revalidation replaced the entry; the next request is a hit again.
	cf.get("/a.txt", 200, "new body")
	cf.wantOpens(before + 1)
}

// "open_file_cache_valid 0" checks the path on every request: one stat by
// name, and an open only when it names another or a changed file.
func TestCacheRevalidatesEveryTime(t *testing.T) {
	cf := serveCached(t, 10, 0, func(o *Options) { o.OpenFileCacheValid = -1 })
	for range 3 {
		cf.get("/a.txt", 200, alphabet)
	}
	if !canIdentify(cf.fs) {
		cf.wantOpens(3) // the os.Root opener knows no fileID
		return
	}
	cf.wantOpens(1)
	if n := cf.counts.identifies.Load(); n != 2 {
		t.Errorf("%d identifies, want 2", n)
	}
	testfs.Replace(t, cf.root, "a.txt", "new body", fixedMtime)
	cf.get("/a.txt", 200, "new body")
	cf.get("/a.txt", 200, "new body")
	cf.wantOpens(2)
}

// canIdentify reports whether h's opener can check paths by name where
// the tests run (the openat2 opener, on a local file system), which the
// checked cache needs to keep descriptors: it traces a.txt.
func canIdentify(h *FileServer) bool {
	op := h.op
	if c, ok := op.(countingIdentifier); ok {
		op = c.opener
	}
	idr, ok := op.(identifier)
	if !ok {
		return false
	}
	d, info, err := op.open("a.txt")
	if err != nil {
		return false
	}
	d.Close()
	_, ok = idr.trace("a.txt", info)
	return ok
}

// A cache checked on every use answers as if it were not there: after each
// change to the file system, the same request gets the same status, body
// and validators from it as from a FileServer without a cache.
func TestCheckedCacheSeesEveryChange(t *testing.T) {
	cf := serveCached(t, 10, 0, func(o *Options) { o.OpenFileCacheValid = -1 })
	plain, err := New(Options{Root: cf.root, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	plainSrv := httptest.NewServer(plain)
	t.Cleanup(func() { plainSrv.Close(); plain.Close() })
	outside := filepath.Join(filepath.Dir(cf.root), "elsewhere")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	sub := filepath.Join(cf.root, "sub")
	must(os.Mkdir(sub, 0o755))
	must(os.WriteFile(filepath.Join(sub, "f.txt"), []byte("inside"), 0o644))
	// A hard link made before the file is first served: its ctime then
	// no longer tells that the file can be reached from outside.
	early := filepath.Join(filepath.Dir(cf.root), "early")
	must(os.Mkdir(early, 0o755))
	must(os.Link(filepath.Join(sub, "f.txt"), filepath.Join(early, "f.txt")))
	away := filepath.Join(filepath.Dir(cf.root), "away")
	back := func(from string) func() {
		return func() {
			must(os.Remove(sub))
			must(os.Rename(from, sub))
		}
	}
	const refused, served = false, true
	// Changes in the order they are made; each is followed by requests.
	// kept says whether the file may then come from a kept descriptor.
	steps := []struct {
		name   string
		change func()
		kept   bool
	}{
		{"unchanged", func() {}, served},
		{"directory switched to a link to the directory of an earlier hard link", func() {
			must(os.Rename(sub, sub+".old"))
			must(os.Symlink(early, sub))
		}, refused},
		{"directory back", back(sub + ".old"), served},
		{"directory moved out of the root, a link to it in its place", func() {
			must(os.Rename(sub, away))
			must(os.Symlink(away, sub))
		}, refused},
		{"directory back from outside", back(away), served},
		{"directory renamed, an absolute link inside the root in its place", func() {
			must(os.Rename(sub, sub+"2"))
			must(os.Symlink(sub+"2", sub))
		}, refused},
		{"directory back from its new name", back(sub + "2"), served},
		{"directory renamed, a magic link to it in its place", func() {
			must(os.Rename(sub, sub+"2"))
			must(os.Symlink("/proc/self/root"+sub+"2", sub))
		}, refused},
		{"directory back again", back(sub + "2"), served},
		{"renamed over", func() { testfs.Replace(t, cf.root, "sub/f.txt", "second", fixedMtime) }, served},
		{"written in place, same size and time", func() {
			p := filepath.Join(sub, "f.txt")
			must(os.WriteFile(p, []byte("third!"), 0o644))
			must(os.Chtimes(p, fixedMtime, fixedMtime))
		}, served},
		{"grown", func() { must(os.WriteFile(filepath.Join(sub, "f.txt"), []byte("fourth, longer"), 0o644)) }, served},
		// As root the file stays readable, and is served both ways.
		{"made unreadable", func() { must(os.Chmod(filepath.Join(sub, "f.txt"), 0)) }, os.Geteuid() == 0},
		{"readable again", func() { must(os.Chmod(filepath.Join(sub, "f.txt"), 0o644)) }, served},
		{"hard-linked outside, directory switched to a link out of the root", func() {
			must(os.Mkdir(away+"2", 0o755))
			must(os.Link(filepath.Join(sub, "f.txt"), filepath.Join(away+"2", "f.txt")))
			must(os.Rename(sub, sub+".old"))
			must(os.Symlink(away+"2", sub))
		}, refused},
		{"directory back once more", back(sub + ".old"), served},
		{"removed", func() { must(os.Remove(filepath.Join(sub, "f.txt"))) }, refused},
	}
	testclient.Do(t, "GET", cf.srv.URL+"/sub/f.txt") // the descriptor to keep
	for _, step := range steps {
		step.change()
		// Twice: the first request may open the path again, the second
		// is then answered from what the first kept, if anything.
		for i := range 2 {
			opens := cf.counts.opens.Load()
			want, wantBody := testclient.Do(t, "GET", plainSrv.URL+"/sub/f.txt")
			got, gotBody := testclient.Do(t, "GET", cf.srv.URL+"/sub/f.txt")
			if got.StatusCode != want.StatusCode || gotBody != wantBody ||
				got.Header.Get("ETag") != want.Header.Get("ETag") ||
				got.Header.Get("Last-Modified") != want.Header.Get("Last-Modified") {
				t.Errorf("%s: cached %d %q %s, uncached %d %q %s", step.name,
					got.StatusCode, gotBody, got.Header.Get("ETag"),
					want.StatusCode, wantBody, want.Header.Get("ETag"))
			}
			fromKept := cf.counts.opens.Load() == opens
			if i == 1 && canIdentify(cf.fs) && fromKept != step.kept {
				t.Errorf("%s: answered from a kept descriptor: %v, want %v", step.name, fromKept, step.kept)
			}
		}
	}
}

// Only a path that resolves through directories alone is checked by name:
// one through a link, or deeper than maxTraced, is opened every time.
func TestCheckedCacheTracesPlainPathsOnly(t *testing.T) {
	cf := serveCached(t, 10, 0, func(o *Options) { o.OpenFileCacheValid = -1 })
	if !canIdentify(cf.fs) {
		t.Skip("the opener gives no fileID")
	}
	deep := filepath.Join(cf.root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(deep, "c.txt"), []byte("deep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("dir", filepath.Join(cf.root, "dirlink")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, body string
		opens      int32
	}{
		{"/a.txt", alphabet, 1},
		{"/dir/page.html", "<p>page</p>", 1},
		{"/in-link", alphabet, 3},                // a link to a.txt
		{"/dirlink/page.html", "<p>page</p>", 3}, // through a link to dir
		{"/a/b/c.txt", "deep", 3},                // depth 3
	} {
		opens, traces := cf.counts.opens.Load(), cf.counts.traces.Load()
		for range 3 {
			cf.get(c.path, 200, c.body)
		}
		if n := cf.counts.opens.Load() - opens; n != c.opens {
			t.Errorf("%s: %d opens for three requests, want %d", c.path, n, c.opens)
		}
		// A path found untraceable is remembered as such while it names
		// the same file, so as not to cost more than no cache at all.
		if n := cf.counts.traces.Load() - traces; n != 1 {
			t.Errorf("%s: traced %d times, want once", c.path, n)
		}
	}
}

// Checked on every use, the cache keeps nothing it could not use: no
// error, and nothing of a file that grew past what it keeps descriptors
// of, whose old descriptor goes at once.
func TestCheckedCacheDropsWhatItCannotUse(t *testing.T) {
	cf := serveCached(t, 10, 0, func(o *Options) {
		o.OpenFileCacheValid = -1
		o.OpenFileCacheErrors = true
	})
	if !canIdentify(cf.fs) {
		t.Skip("the opener cannot check paths by name here")
	}
	cf.get("/missing.txt", 404, "")
	if n := cf.cache.Len(); n != 0 {
		t.Errorf("%d entries after a 404, want 0", n)
	}
	cf.get("/a.txt", 200, alphabet)
	cf.get("/a.txt", 200, alphabet)
	cf.wantOpens(2) // missing.txt, a.txt
	big := strings.Repeat("x", copyBufSize+1)
	testfs.Replace(t, cf.root, "a.txt", big, fixedMtime)
	if runtime.GOOS == "linux" && !holdsDescriptor(t, filepath.Join(cf.root, "a.txt")+" (deleted)") {
		t.Fatal("the replaced file's descriptor is not kept")
	}
	cf.get("/a.txt", 200, big)
	if n := cf.cache.Len(); n != 0 {
		t.Errorf("%d entries after the file grew past 32 KB, want 0", n)
	}
	if runtime.GOOS == "linux" && holdsDescriptor(t, filepath.Join(cf.root, "a.txt")+" (deleted)") {
		t.Error("the replaced file's descriptor is still open")
	}
	identifies := cf.counts.identifies.Load()
	cf.get("/a.txt", 200, big)
	if n := cf.counts.identifies.Load(); n != identifies {
		t.Errorf("%d checks by name for a file the cache does not keep", n-identifies)
	}
}

// Checked on every use, a descriptor is kept only for a body read in one
// go: a larger file is opened for each request, to go out with sendfile.
func TestCheckedCacheKeepsSmallFiles(t *testing.T) {
	cf := serveCached(t, 10, 0, func(o *Options) { o.OpenFileCacheValid = -1 })
	if !canIdentify(cf.fs) {
		t.Skip("the opener gives no fileID")
	}
	big := strings.Repeat("x", copyBufSize+1)
	if err := os.WriteFile(filepath.Join(cf.root, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		cf.get("/big.txt", 200, big)
		cf.get("/4k.bin", 200, strings.Repeat("0123456789abcdef", 256))
	}
	cf.wantOpens(4) // big.txt three times, 4k.bin once
	if n := cf.counts.identifies.Load(); n != 2 {
		t.Errorf("%d identifies, want 2 (4k.bin's)", n)
	}
}

func TestCacheDeletedFile(t *testing.T) {
	cf := serveCached(t, 10, 0, nil)
	cf.get("/a.txt", 200, alphabet)
	if err := os.Remove(filepath.Join(cf.root, "a.txt")); err != nil {
		t.Fatal(err)
	}
	// The open descriptor still reads the removed file, as NGINX's does,
	// until the entry is revalidated.
	cf.get("/a.txt", 200, alphabet)
	cf.clock.advance(61 * time.Second)
	cf.get("/a.txt", 404, "")
	if n := cf.cache.Len(); n != 0 {
		t.Errorf("%d entries after the file went, want 0", n)
	}
	cf.get("/a.txt", 404, "")
	cf.wantOpens(3)
}

func TestCacheMax(t *testing.T) {
	cf := serveCached(t, 2, 0, nil)
	cf.get("/a.txt", 200, alphabet)
	cf.get("/dir/page.html", 200, "<p>page</p>")
	cf.get("/a.txt", 200, alphabet) // now the most recently used
	cf.get("/unknown.zzz", 200, "?")
	cf.wantOpens(3)
	if n := cf.cache.Len(); n != 2 {
		t.Fatalf("%d entries, want 2", n)
	}
	cf.get("/a.txt", 200, alphabet)
	cf.wantOpens(3)
	cf.get("/dir/page.html", 200, "<p>page</p>") // the one pushed out
	cf.wantOpens(4)
}

func TestCacheInactive(t *testing.T) {
	cf := serveCached(t, 10, 20*time.Second, nil)
	cf.get("/a.txt", 200, alphabet)
	cf.get("/dir/page.html", 200, "<p>page</p>")
	cf.clock.advance(15 * time.Second)
	cf.get("/a.txt", 200, alphabet) // used: its idle time starts again
	cf.wantOpens(2)
	cf.clock.advance(15 * time.Second)
	// page.html has been idle for 30 s: the next lookup drops it.
	cf.get("/a.txt", 200, alphabet)
	cf.wantOpens(2)
	if n := cf.cache.Len(); n != 1 {
		t.Fatalf("%d entries, want 1", n)
	}
	cf.get("/dir/page.html", 200, "<p>page</p>")
	cf.wantOpens(3)
	// An entry idle past inactive is not used, even before the old end of
	// the cache is swept.
	testfs.Replace(t, cf.root, "a.txt", "new", fixedMtime)
	cf.clock.advance(21 * time.Second)
	cf.get("/a.txt", 200, "new")
	cf.wantOpens(4)
}

// With no lookups coming, idle entries are still dropped, and the
// descriptor of a file removed since its last request is closed.
func TestCacheSweepsWhenIdle(t *testing.T) {
	cache := NewOpenFileCache(10, 50*time.Millisecond)
	t.Cleanup(func() { cache.Close() })
	fx := serve(t, func(o *Options) { o.OpenFileCache = cache })
	for range 2 {
		fx.do("GET", "/a.txt")
		fx.do("GET", "/4k.bin")
	}
	removed := filepath.Join(fx.root, "a.txt")
	if err := os.Remove(removed); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && !holdsDescriptor(t, removed+" (deleted)") {
		t.Fatal("the cache keeps no descriptor of the served file")
	}
	deadline := time.Now().Add(5 * time.Second)
	for cache.Len() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d entries still held", cache.Len())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if runtime.GOOS == "linux" && holdsDescriptor(t, removed+" (deleted)") {
		t.Error("the removed file's descriptor is still open")
	}
	// A cache that emptied arms its sweep again.
	fx.do("GET", "/4k.bin")
	for cache.Len() > 0 {
		if time.Now().After(deadline.Add(5 * time.Second)) {
			t.Fatal("the second sweep did not come")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// holdsDescriptor reports whether the process has a descriptor open on
// target, as /proc/self/fd names it.
func holdsDescriptor(t *testing.T, target string) bool {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	for _, fd := range fds {
		if link, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && link == target {
			return true
		}
	}
	return false
}

func TestCacheMinUses(t *testing.T) {
	cf := serveCached(t, 10, 0, func(o *Options) { o.OpenFileCacheMinUses = 3 })
	for i := range 3 {
		cf.get("/a.txt", 200, alphabet)
		cf.wantOpens(int32(i + 1))
	}
	// The third use kept the descriptor.
	for range 3 {
		cf.get("/a.txt", 200, alphabet)
	}
	cf.wantOpens(3)
	// Uses are counted while the entry lives; a new entry starts again.
	cf.clock.advance(61 * time.Second)
	cf.get("/a.txt", 200, alphabet)
	cf.get("/a.txt", 200, alphabet)
	cf.wantOpens(5)
}

func TestCacheErrors(t *testing.T) {
	for _, errorsOn := range []bool{false, true} {
		t.Run(fmt.Sprint("errors=", errorsOn), func(t *testing.T) {
			cf := serveCached(t, 10, 0, func(o *Options) { o.OpenFileCacheErrors = errorsOn })
			cf.get("/late.txt", 404, "")
			if err := os.WriteFile(filepath.Join(cf.root, "late.txt"), []byte("here"), 0o644); err != nil {
				t.Fatal(err)
			}
			if errorsOn {
				// The failure is cached as the file would be.
				cf.get("/late.txt", 404, "")
				cf.wantOpens(1)
				cf.clock.advance(61 * time.Second)
			}
			cf.get("/late.txt", 200, "here")
			// Links out of the root stay refused, cached or not.
			for range 2 {
				cf.get("/out-link", 403, "")
			}
			want := int32(2 + 2)
			if errorsOn {
				want = 2 + 1
			}
			cf.wantOpens(want)
		})
	}
}

// Directories are cached by their stat result, for try_files' tests and
// for the redirect.
func TestCacheDirectories(t *testing.T) {
	cf := serveCached(t, 10, 0, nil)
	for range 2 {
		if isDir, ok := cf.fs.Lookup("dir"); !isDir || !ok {
			t.Fatalf("Lookup(dir) = %v, %v", isDir, ok)
		}
		resp, _ := cf.do("GET", "/dir")
		expect(t, resp, 301, "Location", "/dir/")
	}
	if n := cf.counts.stats.Load() + cf.counts.opens.Load(); n != 1 {
		t.Errorf("%d opens and stats, want 1", n)
	}
}

// FileServers that share a cache share the entries of the same root, and
// only those.
func TestCacheSharedByServers(t *testing.T) {
	cf := serveCached(t, 10, 0, nil)
	second, err := New(Options{Root: cf.root, OpenFileCache: cf.cache})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	counts := counting(second)

	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "a.txt"), []byte("other root"), 0o644); err != nil {
		t.Fatal(err)
	}
	third, err := New(Options{Root: other, OpenFileCache: cf.cache})
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()

	cf.get("/a.txt", 200, alphabet)
	for _, c := range []struct {
		h    *FileServer
		want string
	}{{second, alphabet}, {third, "other root"}} {
		srv := newServer(t, c.h)
		resp, err := http.Get(srv + "/a.txt")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != c.want {
			t.Errorf("body %q, want %q", body, c.want)
		}
	}
	if n := counts.opens.Load(); n != 0 {
		t.Errorf("the second server of the root opened %d files, want 0", n)
	}
	if n := cf.cache.Len(); n != 2 {
		t.Errorf("%d entries, want 2", n)
	}
}

// Requests that read one cached descriptor at the same time each get
// their own bytes: whole bodies, ranges and multipart ranges, of a file
// read at offsets and of one long enough to be reopened for sendfile (or,
// through os.Root, read at offsets in several pieces).
func TestCacheConcurrentReads(t *testing.T) {
	openers := []fixtureVariant{{name: "default"}}
	if v, ok := osRootVariant(); ok {
		openers = append(openers, v)
	}
	for _, v := range openers {
		t.Run(v.name, func(t *testing.T) {
			variant = v
			defer func() { variant = fixtureVariant{} }()
			concurrentReads(t)
		})
	}
}

func concurrentReads(t *testing.T) {
	cf := serveCached(t, 10, 0, nil)
	data := make([]byte, 300<<10)
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(rnd.Uint32())
	}
	if err := os.WriteFile(filepath.Join(cf.root, "big.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cf.root, "small.bin"), data[:4096], 0o644); err != nil {
		t.Fatal(err)
	}
	// One request for each file first: concurrent misses of a cold entry
	// may each open the file (as NGINX's cache does), which would make
	// the count of opens depend on scheduling.
	for g := range 2 {
		if err := checkRead(cf.srv.URL, data, g, 0); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				if err := checkRead(cf.srv.URL, data, g, i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	cf.wantOpens(2)
}

// Readers of a file that is replaced again and again, each version by a
// rename, while the cache is checked on every use: every answer is one
// whole version, never a mix, and its length is that version's.
func TestCheckedCacheUnderReplacement(t *testing.T) {
	cf := serveCached(t, 10, 0, func(o *Options) { o.OpenFileCacheValid = -1 })
	version := func(n int) string { return strings.Repeat(fmt.Sprintf("v%d;", n), 100+n) }
	testfs.Replace(t, cf.root, "v.txt", version(0), fixedMtime)
	stop := make(chan struct{})
	errs := make(chan error, 9)
	var writer sync.WaitGroup
	writer.Add(1)
	go func() {
		defer writer.Done()
		for n := 1; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			// testfs.Replace's steps, without its t.Fatal, which belongs to the
			// test's own goroutine.
			p := filepath.Join(cf.root, "v.txt")
			if err := os.WriteFile(p+".new", []byte(version(n)), 0o644); err != nil {
				errs <- err
				return
			}
			if err := os.Rename(p+".new", p); err != nil {
				errs <- err
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	var readers sync.WaitGroup
	for range 8 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for range 50 {
				resp, err := http.Get(cf.srv.URL + "/v.txt")
				if err != nil {
					errs <- err
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				var n int
				if err == nil {
					_, err = fmt.Sscanf(string(body), "v%d;", &n)
				}
				if err != nil || string(body) != version(n) || resp.ContentLength != int64(len(body)) {
					errs <- fmt.Errorf("a body of %d bytes (Content-Length %d) that is no whole version: %.40q (%v)",
						len(body), resp.ContentLength, body, err)
					return
				}
			}
		}()
	}
	readers.Wait()
	close(stop)
	writer.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// 8 readers x 50 requests, with a replacement every millisecond or
	// so: some are answered from a kept descriptor.
	if n := cf.counts.opens.Load(); canIdentify(cf.fs) && n >= 400 {
		t.Errorf("%d opens for 400 requests: none answered from a checked descriptor", n)
	}
}

// checkRead asks for one of big.bin's or small.bin's bodies, chosen by g
// and i, and compares it with data.
func checkRead(base string, data []byte, g, i int) error {
	name, size := "/big.bin", len(data)
	if g%2 == 1 {
		name, size = "/small.bin", 4096
	}
	req, _ := http.NewRequest("GET", base+name, nil)
	var want []byte
	switch i % 3 {
	case 0:
		want = data[:size]
	case 1:
		from := (g * 997) % (size / 2)
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", from, from+size/3))
		want = data[from : from+size/3+1]
	case 2:
		req.Header.Set("Range", "bytes=0-99,-100")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if want == nil {
		// Multipart: both parts' bytes, in order.
		first := bytes.Index(body, data[:100])
		last := bytes.Index(body, data[size-100:size])
		if resp.StatusCode != 206 || first < 0 || last < first {
			return fmt.Errorf("%s multipart: status %d, parts at %d and %d", name, resp.StatusCode, first, last)
		}
		return nil
	}
	if !bytes.Equal(body, want) {
		return fmt.Errorf("%s %q: %d bytes differ from the file's", name, req.Header.Get("Range"), len(body))
	}
	return nil
}

// A request keeps reading its descriptor after the cache drops it; the
// descriptor closes when the last reader is done.
func TestCacheDropWhileReading(t *testing.T) {
	cf := serveCached(t, 10, 0, nil)
	f, err := cf.fs.open("4k.bin")
	if err != nil || f.shared == nil {
		t.Fatalf("open: %v, shared %v", err, f.shared != nil)
	}
	cf.cache.Close()
	buf := make([]byte, 16)
	if _, err := f.d.ReadAt(buf, 16); err != nil || string(buf) != "0123456789abcdef" {
		t.Fatalf("read after the cache closed: %q, %v", buf, err)
	}
	f.close()
	if _, err := f.d.ReadAt(buf, 0); err == nil {
		t.Error("descriptor still open after its last reader let go")
	}
	// A closed cache caches nothing; files are still served.
	cf.get("/4k.bin", 200, strings.Repeat("0123456789abcdef", 256))
	if n := cf.cache.Len(); n != 0 {
		t.Errorf("%d entries in a closed cache", n)
	}
}

// newServer serves h on loopback for the rest of the test.
func newServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// A file answered from a kept descriptor carries the validators and
// length an uncached server formats for it, in every answer that uses
// them (200, 304 by either condition, 206, HEAD, etag off on a server
// sharing the cache), though they are formatted once per kept file; and
// after a change, the new file's. Its 200 then allocates only the header
// values' slice.
func TestKeptFileValidators(t *testing.T) {
	cf := serveCached(t, 10, 0, nil)
	noETag, err := New(Options{Root: cf.root, OpenFileCache: cf.cache, DisableETag: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { noETag.Close() })
	plain, err := New(Options{Root: cf.root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plain.Close() })
	plainNoETag, err := New(Options{Root: cf.root, DisableETag: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plainNoETag.Close() })
	pairs := []struct {
		name          string
		cached, plain string
	}{
		{"etag on", cf.srv.URL, newServer(t, plain)},
		{"etag off", newServer(t, noETag), newServer(t, plainNoETag)},
	}
	check := func(when string) {
		t.Helper()
		first, _ := testclient.Do(t, "GET", pairs[0].plain+"/a.txt")
		etag, since := first.Header.Get("Etag"), first.Header.Get("Last-Modified")
		asks := [][]string{
			nil,
			{"If-None-Match", etag},
			{"If-Modified-Since", since},
			{"Range", "bytes=2-5"},
			{"Range", "bytes=0-1,4-5"},
		}
		for _, p := range pairs {
			for _, method := range []string{"GET", "HEAD"} {
				for _, ask := range asks {
					want, wantBody := testclient.Do(t, method, p.plain+"/a.txt", ask...)
					got, gotBody := testclient.Do(t, method, p.cached+"/a.txt", ask...)
					for _, name := range []string{"Etag", "Last-Modified", "Content-Length", "Content-Range", "Accept-Ranges"} {
						if got.Header.Get(name) != want.Header.Get(name) {
							t.Errorf("%s, %s, %s %v: %s %q, uncached %q", when, p.name, method, ask,
								name, got.Header.Get(name), want.Header.Get(name))
						}
					}
					if got.StatusCode != want.StatusCode || (method == "GET" && gotBody != wantBody && ask == nil) {
						t.Errorf("%s, %s, %s %v: %d %q, uncached %d %q", when, p.name, method, ask,
							got.StatusCode, gotBody, want.StatusCode, wantBody)
					}
				}
			}
		}
	}
	check("first")
	check("kept")
	if n := cf.counts.opens.Load(); n != 1 {
		t.Fatalf("%d opens, want 1: the file was not kept", n)
	}
	w := &discardWriter{header: make(http.Header)}
	req := httptest.NewRequest("GET", "/a.txt", nil)
	if n := testing.AllocsPerRun(100, func() { clear(w.header); cf.fs.ServeHTTP(w, req) }); n > 1 {
		t.Errorf("a kept file's 200 allocates %.0f objects, want 1", n)
	}
	// Changed: the entry is revalidated and the new file's descriptor kept.
	testfs.Replace(t, cf.root, "a.txt", "a longer alphabet, changed", fixedMtime.Add(time.Hour))
	cf.clock.advance(time.Hour)
	check("changed")
	check("changed, kept")
}
