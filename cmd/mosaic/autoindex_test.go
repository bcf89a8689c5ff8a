package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// autoindexTree makes a directory with the names a listing must escape,
// cut and sort, and fixed times.
func autoindexTree(t *testing.T, dir string) {
	t.Helper()
	files := map[string]int{
		"a.txt": 123, "big.bin": 20000, "huge.bin": 3 << 20, "<b>&\"q\".html": 5,
		"with space.txt": 1, "ü.txt": 2, ".hidden": 3, "zz": 0,
		strings.Repeat("n", 60) + ".txt": 7, strings.Repeat("e", 50): 9,
		"dir1/x": 1, strings.Repeat("d", 50) + "/x": 1, strings.Repeat("f", 49) + "/x": 1, "B/x": 1,
	}
	when := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	for name, size := range files {
		p := filepath.Join(dir, name)
		writeFile(t, p, strings.Repeat("x", size))
		os.Chtimes(p, when, when)
		os.Chtimes(filepath.Dir(p), when, when)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
}

func autoindexHTTP(listen, dir string) string {
	return fmt.Sprintf(`server {
		%[1]s
		location /h/ { alias %[2]s/; autoindex on; }
		location /a/ { alias %[2]s/; autoindex on; autoindex_exact_size off; }
		location /x/ { alias %[2]s/; autoindex on; autoindex_format xml; }
		location /j/ { alias %[2]s/; autoindex on; autoindex_format json; }
		location /p/ { alias %[2]s/; autoindex on; autoindex_format jsonp; }
		location /off/ { alias %[2]s/; }
	}`, listen, dir)
}

// TestAutoindexMatchesNGINX compares the listings of every format, byte
// for byte, and the refusals, with Debian's NGINX serving the same tree.
func TestAutoindexMatchesNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	autoindexTree(t, tree)
	nport, mport := freePort(t), freePort(t)
	ndir := filepath.Join(dir, "nginx")
	if err := os.MkdirAll(ndir, 0o755); err != nil {
		t.Fatal(err)
	}
	startNGINX(t, ndir, autoindexHTTP(fmt.Sprintf("listen 127.0.0.1:%d;", nport), tree), nport)
	startMosaic(t, dir, "http {"+autoindexHTTP("listen 127.0.0.1:{port};", tree)+"}", mport)
	get := func(port int, path string) (int, string, string) {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}
	for _, path := range []string{
		"/h/", "/h/dir1/", "/a/", "/x/", "/j/", "/p/", "/p/?callback=cb.x_1", "/p/?a=1&callback=",
		"/p/?callback=bad(", "/off/", "/h/missing/", "/h/a.txt",
	} {
		ns, nt, nb := get(nport, path)
		ms, mt, mb := get(mport, path)
		if ns != ms || nt != mt {
			t.Errorf("%s: mosaic %d %q, NGINX %d %q", path, ms, mt, ns, nt)
		}
		if ns == 200 && nb != mb {
			t.Errorf("%s: mosaic's body differs from NGINX's:\n%s\nNGINX:\n%s", path, mb, nb)
		}
		if path == "/h/" && !strings.Contains(mb, `<a href="%3Cb%3E%26%22q%22.html">&lt;b&gt;&amp;&quot;q&quot;.html</a>`) {
			t.Errorf("the escaped name is missing:\n%s", mb)
		}
	}
}
