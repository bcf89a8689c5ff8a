package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDisableSymlinksMatchesNGINX: with disable_symlinks on, a file
// reached through a symbolic link (the file itself, a directory on the
// way, or the root's own path) answers 403, and try_files passes over
// such a candidate; from=$document_root checks only below the root. Each
// answer is compared with Debian's NGINX on the same tree.
func TestDisableSymlinksMatchesNGINX(t *testing.T) {
	nginxPath(t)
	base := t.TempDir()
	mk := func(rel, body string) {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		if err := os.Symlink(target, filepath.Join(base, rel)); err != nil {
			t.Fatal(err)
		}
	}
	mk("R/a.html", "A")
	mk("R/other.html", "other")
	mk("R/real/b.html", "B")
	link("other.html", "R/link.html")
	link("real", "R/sub")
	link("R", "RL") // a root whose own path is a link
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return strings.NewReplacer("{port}", fmt.Sprint(port), "{base}", base).Replace(`server {
			listen 127.0.0.1:{port};
			location /off/ { alias {base}/R/; }
			location /on/ { disable_symlinks on; alias {base}/R/; }
			location /from/ { disable_symlinks on from=$document_root; alias {base}/R/; }
			location /linkedroot/ { disable_symlinks on; alias {base}/RL/; }
			location /linkedfrom/ { disable_symlinks on from=$document_root; alias {base}/RL/; }
			location /linkedbase/ { disable_symlinks on from={base}; alias {base}/RL/; }
			location /try/ { disable_symlinks on; alias {base}/R/; try_files $uri /try/a.html; }
			location /tryoff/ { alias {base}/R/; try_files $uri /tryoff/a.html; }
			location = /if/file { disable_symlinks on; if (-f {base}/R/link.html) { return 200 yes; } return 200 no; }
			location = /if/fileoff { if (-f {base}/R/link.html) { return 200 yes; } return 200 no; }
			location = /if/dir { disable_symlinks on; if (-d {base}/R/sub) { return 200 yes; } return 200 no; }
			location = /if/root { disable_symlinks on; if (-e {base}/RL/a.html) { return 200 yes; } return 200 no; }
			location = /if/rootfrom { disable_symlinks on from={base}/RL; if (-e {base}/RL/a.html) { return 200 yes; } return 200 no; }
		}`)
	})
	get := func(port int, path string) string { return statusAndBody(t, port, path) }
	// What the cases hold of NGINX: a link for the file itself is 403, a
	// link for a directory on the way (below the root, or in the root's
	// own path after from=) is 404, and try_files passes over the file.
	want := map[string]string{
		"/off/link.html": "200 other", "/on/link.html": "403", "/on/sub/b.html": "404",
		"/on/real/b.html": "200 B", "/from/link.html": "403", "/linkedroot/a.html": "404",
		"/linkedfrom/a.html": "200 A", "/linkedbase/a.html": "404", "/try/link.html": "200 A",
		"/tryoff/link.html": "200 other", "/if/file": "200 no", "/if/fileoff": "200 yes", "/if/dir": "200 no",
		"/if/root": "200 no", "/if/rootfrom": "200 yes",
	}
	for _, path := range []string{"/if/file", "/if/fileoff", "/if/dir", "/if/root", "/if/rootfrom"} {
		m, n := get(mport, path), get(nport, path)
		if m != n {
			t.Errorf("%s: mosaic %q, NGINX %q", path, m, n)
		}
		if n != want[path] {
			t.Errorf("%s: NGINX %q, the test expects %q", path, n, want[path])
		}
	}
	for _, loc := range []string{"/off/", "/on/", "/from/", "/linkedroot/", "/linkedfrom/", "/linkedbase/", "/try/", "/tryoff/"} {
		for _, file := range []string{"a.html", "link.html", "sub/b.html", "real/b.html"} {
			m, n := get(mport, loc+file), get(nport, loc+file)
			if m != n {
				t.Errorf("%s: mosaic %q, NGINX %q", loc+file, m, n)
			}
			if w, ok := want[loc+file]; ok && n != w {
				t.Errorf("%s: NGINX %q, the test expects %q", loc+file, n, w)
			}
		}
	}
}

// The errors of disable_symlinks are NGINX's, checked with both on the
// same lines.
func TestDisableSymlinksConfigErrors(t *testing.T) {
	t.Parallel()
	nginx := nginxPath(t)
	for _, c := range []struct{ conf, want string }{
		{"disable_symlinks;", `invalid number of arguments in "disable_symlinks" directive`},
		{"disable_symlinks maybe;", `invalid parameter "maybe"`},
		{"disable_symlinks from=/x;", `"disable_symlinks" must have "off", "on" or "if_not_owner" parameter`},
		{"disable_symlinks on off;", `duplicate parameters "on off"`},
		{"disable_symlinks off from=/x;", `"from=" cannot be used with "off" parameter`},
		{"disable_symlinks on; disable_symlinks off;", `"disable_symlinks" directive is duplicate`},
		{"disable_symlinks if_not_owner from=$document_root;", ""},
	} {
		checkBothT(t, nginx, "events {}\nhttp {\n"+c.conf+"\n}", c.want)
	}
}

// TestDisableSymlinksIfNotOwnerMatchesNGINX: with if_not_owner a link is
// followed when its owner owns what it leads to, and the path answers
// 403 otherwise, whether the link stands for the file or a directory on
// the way, as Debian's NGINX answers. Giving a link another owner needs
// root.
func TestDisableSymlinksIfNotOwnerMatchesNGINX(t *testing.T) {
	nginxPath(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a link another owner")
	}
	base := t.TempDir()
	for name, body := range map[string]string{"R/a.html": "A", "R/other.html": "other", "R/real/b.html": "B"} {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []struct {
		target, name string
		uid          int
	}{{"other.html", "R/link.html", 0}, {"real", "R/sub", 0}, {"other.html", "R/nobody.html", 65534}, {"real", "R/subnobody", 65534}} {
		p := filepath.Join(base, l.name)
		if err := os.Symlink(l.target, p); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(p, l.uid, l.uid); err != nil {
			t.Fatal(err)
		}
	}
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return strings.NewReplacer("{port}", fmt.Sprint(port), "{base}", base).Replace(`server {
			listen 127.0.0.1:{port};
			location /owner/ { disable_symlinks if_not_owner; alias {base}/R/; }
			location /ownerfrom/ { disable_symlinks if_not_owner from=$document_root; alias {base}/R/; }
			location = /if/owner { disable_symlinks if_not_owner; if (-f {base}/R/nobody.html) { return 200 yes; } return 200 no; }
		}`)
	})
	get := func(port int, path string) string { return statusAndBody(t, port, path) }
	want := map[string]string{
		"/owner/link.html": "200 other", "/owner/sub/b.html": "200 B", "/owner/nobody.html": "403",
		"/owner/subnobody/b.html": "403", "/ownerfrom/nobody.html": "403", "/if/owner": "200 no",
	}
	for _, path := range []string{"/owner/link.html", "/owner/sub/b.html", "/owner/nobody.html", "/owner/subnobody/b.html",
		"/ownerfrom/link.html", "/ownerfrom/nobody.html", "/ownerfrom/subnobody/b.html", "/if/owner"} {
		m, n := get(mport, path), get(nport, path)
		if m != n {
			t.Errorf("%s: mosaic %q, NGINX %q", path, m, n)
		}
		if w, ok := want[path]; ok && n != w {
			t.Errorf("%s: NGINX %q, the test expects %q", path, n, w)
		}
	}
}

// statusAndBody is a GET's status, and its body after "200".
func statusAndBody(t *testing.T, port int, path string) string {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Sprint(resp.StatusCode)
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, body)
}
