package server

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/vars"
)

// try_files counts a candidate as existing only inside its root, links
// included, as the static handler serves: a link out of the root falls
// through to the next candidate rather than being chosen and refused.
func TestTryFilesStaysInRoot(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "www")
	for _, d := range []string{root, filepath.Join(root, "sub"), filepath.Join(base, "outside")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(root, "in.txt"), filepath.Join(base, "outside", "secret.txt")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"inlink":  "in.txt",                // stays inside
		"outlink": "../outside/secret.txt", // leaves the root
		"outdir":  "../outside",            // a directory outside
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	// Without a content module, a chosen candidate answers 404 (the
	// core's default content); falling through answers 418.
	_, url := startRuntime(t, fmt.Sprintf(`http { server { listen 127.0.0.1:0;
		location /t/ { alias %s/; try_files $uri $uri/ =418; }
	} }`, root))
	cases := map[string]int{
		"/t/in.txt":            404, // exists
		"/t/inlink":            404,
		"/t/sub/":              404, // a directory, asked as one
		"/t/sub":               404, // $uri/ matches the directory
		"/t/missing":           418,
		"/t/outlink":           418,
		"/t/outdir/":           418,
		"/t/outdir/secret.txt": 418,
	}
	for path, want := range cases {
		resp, _ := get(t, url+path)
		if resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, resp.StatusCode, want)
		}
	}
}

// The set keeps at most maxRoots directories open, and none once closed;
// lookups past either still answer.
func TestRootSetBounds(t *testing.T) {
	base := t.TempDir()
	var rs rootSet
	for i := 0; i < maxRoots+5; i++ {
		dir := filepath.Join(base, fmt.Sprint(i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := rs.stat(dir, "/f", 0, time.Now()); err != nil {
			t.Fatalf("dir %d: %v", i, err)
		}
	}
	if n := len(rs.roots); n != maxRoots {
		t.Errorf("%d roots kept, want %d", n, maxRoots)
	}
	// A root closed under a lookup (the configuration retired meanwhile):
	// the lookup opens the directory for itself.
	first := filepath.Join(base, "0")
	if err := rs.roots[first].close(); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.stat(first, "f", 0, time.Now()); err != nil {
		t.Errorf("lookup with its root closed: %v", err)
	}
	if err := rs.close(); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.stat(filepath.Join(base, "0"), "f", 0, time.Now()); err != nil {
		t.Errorf("lookup after close: %v", err)
	}
	if len(rs.roots) != 0 {
		t.Errorf("%d roots kept after close", len(rs.roots))
	}
	if _, err := rs.stat(filepath.Join(base, "nope"), "f", 0, time.Now()); err == nil {
		t.Error("a missing directory answered")
	}
}

// A directory's second lookup on, a candidate is looked up with a raw
// fstatat (rawDir), falling back to os.Root for a link at its end or one
// found below a directory: the answers are os.Root's, for every kind of
// entry, at the top and deeper.
func TestRootSetRawAsRoot(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "www")
	for _, d := range []string{filepath.Join(dir, "sub"), filepath.Join(base, "outside")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(dir, "file"), filepath.Join(base, "outside", "secret")} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		"inlink": "file", "indir": "sub", "outlink": "../outside/secret",
		"outdir": "../outside", "dangling": "nothing", "loop": "loop",
		// Absolute targets: os.Root refuses them even where they point
		// back inside, while the kernel follows them.
		"absin": filepath.Join(dir, "file"), "absindir": filepath.Join(dir, "sub"),
		"absout": filepath.Join(base, "outside"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var rs rootSet
	defer rs.close()
	if err := os.WriteFile(filepath.Join(dir, "sub", "deep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a..b"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	compare := func(rels ...string) {
		t.Helper()
		for _, rel := range rels {
			fi, werr := root.Stat(strings.TrimPrefix(rel, "/"))
			if rel == "" {
				fi, werr = root.Stat(".")
			}
			for i := range 2 { // the first opens the directory, the second looks up raw
				isDir, err := rs.stat(dir, rel, 0, time.Now())
				if (err != nil) != (werr != nil) || (err == nil && isDir != fi.IsDir()) {
					t.Errorf("%q (lookup %d): dir %v, error %v; os.Root: %v, %v", rel, i+1, isDir, err, fi, werr)
				}
			}
		}
	}
	compare("file", "sub", "missing", ".", "", "inlink", "indir", "outlink",
		"outdir", "dangling", "loop", "file/x", "sub/../file", "..", "../outside",
		"sub/deep", "sub/missing", "indir/deep", "indir/missing", "outdir/secret", "outdir/missing",
		"dangling/x", "loop/x", "missing/x", "sub/deep/x", "a/b/c/d/e",
		// A $uri ending in a slash: ENOTDIR for a file, as NGINX's stat.
		"file/", "sub/", "sub/deep/", "inlink/", "indir/", "outlink/", "outdir/", "dangling/", "missing/",
		"./file", "sub/./deep", "sub//deep", "/file", "FILE", "a..b",
		"absin", "absindir", "absout", "absindir/deep", "absindir/missing", "absout/secret", "absout/missing",
		"nul\x00", "sub/nul\x00", strings.Repeat("n", 300), "sub/"+strings.Repeat("n", 300))
	// A directory replaced by a link out of the root after the set opened
	// its root: the raw walk follows it, os.Root refuses it.
	if err := os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "sub.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../outside", filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	compare("sub", "sub/", "sub/secret", "sub/missing", "sub/deep", "sub.old/deep")
}

// An alias ending in a slash maps a URI without building a string per
// request: the file's path below the alias is the URI's tail itself. One
// without the slash joins its last element with the tail, as before.
func TestAliasFilePathAllocs(t *testing.T) {
	cfg := mustLoad(t, `http { server { listen 127.0.0.1:0;
		location /id/ { alias /srv/www/; }
		location /f/ { alias /srv/www/pre; }
	} }`)
	r := httptest.NewRequest("GET", "/id/body.json", nil)
	for _, c := range []struct{ uri, dir, rel string }{
		{"/id/body.json", "/srv/www/", "body.json"},
		{"/id/a/b.txt", "/srv/www/", "a/b.txt"},
		{"/f/x.txt", "/srv/www/", "prex.txt"},
	} {
		loc, _, err := cfg.servers[0].locs.match(c.uri, &vars.State{})
		if err != nil {
			t.Fatal(err)
		}
		dir, rel := loc.FilePath(r, c.uri)
		if dir != c.dir || rel != c.rel {
			t.Errorf("%s: %q %q, want %q %q", c.uri, dir, rel, c.dir, c.rel)
		}
	}
	loc, _, err := cfg.servers[0].locs.match("/id/body.json", &vars.State{})
	if err != nil {
		t.Fatal(err)
	}
	uri := "/id/body.json"
	if n := testing.AllocsPerRun(100, func() { loc.FilePath(r, uri) }); n != 0 {
		t.Errorf("FilePath under an alias with a slash: %v allocations, want 0", n)
	}
}

// A regex location's alias is bounded by the directory its text names
// before the first variable, as a prefix alias by its own: the path a
// value brings below it stays in rel, where the lookup resolves it
// beneath that directory (links in it included), for a file, a
// directory (a value ending in "/") and a try_files candidate alike. A
// value climbing with ".." is bounded before the segment, which stays
// in rel for the callers to refuse, as does a candidate's ".."
// (rawClimbs); a candidate continuing the value's last segment is
// rawMerged; an alias that starts with a variable has no such directory
// and keeps the file's own, and the value for a candidate.
func TestRegexAliasFilePathBound(t *testing.T) {
	cfg := mustLoad(t, `http { server { listen 127.0.0.1:0;
		location ~ ^/a/ { alias /srv/www/$arg_f; }
		location ~ ^/b/ { alias /srv/www/pre$arg_f; }
		location ~ ^/c/ { alias /srv/$arg_u/pub/$arg_f; }
		location ~ ^/d/ { alias $arg_f; }
	} }`)
	for _, c := range []struct {
		target, cand, dir, rel string
		j                      rawJoin
	}{
		{"/a/?f=x.txt", "", "/srv/www/", "x.txt", rawNone},
		{"/a/?f=d/e/x.txt", "", "/srv/www/", "d/e/x.txt", rawNone},
		{"/a/?f=d/e/", "", "/srv/www/", "d/e/", rawNone},
		{"/a/?f=", "", "/srv/www/", "", rawNone},
		{"/a/?f=../x", "", "/srv/www/", "../x", rawNone},
		{"/a/?f=d/../../x", "", "/srv/www/d/", "../../x", rawNone},
		{"/b/?f=x/y.txt", "", "/srv/www/", "prex/y.txt", rawNone},
		{"/c/?u=al&f=d/x.txt", "", "/srv/", "al/pub/d/x.txt", rawNone},
		{"/d/?f=/srv/www/d/x.txt", "", "/srv/www/d", "x.txt", rawNone},
		{"/d/?f=/srv/www/d/", "", "/srv/www/d/", "", rawNone},
		{"/a/?f=d/e", "/x.txt", "/srv/www/", "d/e/x.txt", rawNone},
		{"/a/?f=d/e/", "x.txt", "/srv/www/", "d/e/x.txt", rawNone},
		{"/a/?f=d/e", "x.txt", "/srv/www/", "d/ex.txt", rawMerged},
		{"/a/?f=d/e", "/../x.txt", "/srv/www/", "d/e/../x.txt", rawClimbs},
		{"/a/?f=d/.", "./x", "/srv/www/", "d/../x", rawClimbs},
		{"/d/?f=/srv/www/d", "/x.txt", "/srv/www/d", "/x.txt", rawNone},
	} {
		r := httptest.NewRequest("GET", c.target, nil)
		loc, _, err := cfg.servers[0].locs.match(r.URL.Path, &vars.State{})
		if err != nil {
			t.Fatal(err)
		}
		uri := r.URL.Path
		if c.cand != "" {
			uri = c.cand
		}
		dir, rel, j := loc.filePath(r, uri, c.cand != "")
		if dir != c.dir || rel != c.rel || j != c.j {
			t.Errorf("%s %q: %q %q %d, want %q %q %d", c.target, c.cand, dir, rel, j, c.dir, c.rel, c.j)
		}
	}
}
