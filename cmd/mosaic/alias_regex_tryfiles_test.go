package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestRegexAliasTryFilesAsNGINX: in a regex location with alias, NGINX's
// try_files tries each candidate as the alias and the candidate joined
// (the alias is usually the whole file, so "$uri" names nothing and the
// fallback answers), serves a file found so as that join with the
// candidate as $uri, and leaves the URI where a directory was found.
// Compared beside Debian's NGINX, GET and HEAD, with $request_filename.
func TestRegexAliasTryFilesAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	for _, f := range []string{"www/x.txt", "www/d/index.html", "www/d/a/d", "www/d/b/d", "www/d/in.txt", "www/index.html", "secret.txt"} {
		writeFile(t, filepath.Join(dir, f), f)
	}
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; absolute_redirect off; root %[2]s/www;
			add_header X-F "$request_filename|$document_root";
			location ~ ^/a/(.*)$ { alias %[2]s/www/$1; try_files $uri $uri/ /fallback; }
			location ~ ^/b/(.*)$ { alias %[2]s/www/$1; try_files $uri =404; }
			location ~ ^/c/(.*)$ { alias %[2]s/www/$1; try_files "" /in.txt /index.html =404; }
			location ~ ^/e/(.*)$ { alias %[2]s/www/$1; try_files $uri/ / =404; }
			location = /fallback { return 200 "fallback $uri"; }
		}`, port, dir)
	})
	for _, path := range []string{
		"/a/x.txt", "/a/d", "/a/d/", "/a/nope", "/b/x.txt", "/b/d", "/b/d/",
		"/c/x.txt", "/c/d", "/c/d/", "/c/nope", "/e/d", "/e/d/", "/e/x.txt",
		"/b/d/..%2f..%2fsecret.txt", "/c/..%2fsecret.txt",
	} {
		for _, method := range []string{"GET", "HEAD"} {
			req := method + " " + path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
			m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
			n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
			if m.StatusCode != n.StatusCode || m.StatusCode == http.StatusOK && mb != nb ||
				m.Header.Get("X-F") != n.Header.Get("X-F") || m.Header.Get("Location") != n.Header.Get("Location") {
				t.Errorf("%s %s: mosaic %d %q %q %q, nginx %d %q %q %q", method, path,
					m.StatusCode, mb, m.Header.Get("X-F"), m.Header.Get("Location"),
					n.StatusCode, nb, n.Header.Get("X-F"), n.Header.Get("Location"))
			}
		}
	}
}

// TestRegexAliasTryFilesClimbRefused: a candidate whose variable brings
// ".." stays below the regex location's alias, which bounds the lookup
// as a root does (NGINX follows it out: alias /srv/www/$1 and
// "?f=/../../secret.txt" serve /srv/secret.txt there).
func TestRegexAliasTryFilesClimbRefused(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/d/in.txt"), "in")
	writeFile(t, filepath.Join(dir, "secret.txt"), "secret")
	port := freePort(t)
	startMosaic(t, t.TempDir(), fmt.Sprintf(`http { server { listen 127.0.0.1:%d;
		location ~ ^/q/(.*)$ { alias %s/www/$1; try_files $arg_f =404; } } }`, port, dir), port)
	for arg, want := range map[string]int{"/in.txt": 200, "/../../secret.txt": 404, "/../d/in.txt": 404} {
		res, body := testclient.Do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d/q/d?f=%s", port, arg))
		if res.StatusCode != want || strings.Contains(body, "secret") {
			t.Errorf("f=%s: %d %q, want %d", arg, res.StatusCode, body, want)
		}
	}
}

// TestRegexAliasTryFilesFIFOAsNGINX: a regex alias whose capture names a
// FIFO makes that FIFO try_files' root. NGINX finds no file there and
// answers 404 (here its error_page); mosaic opened the FIFO as a
// directory and waited for a writer, holding the request with no answer.
func TestRegexAliasTryFilesFIFOAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/404.html"), "not here")
	if err := syscall.Mkfifo(filepath.Join(dir, "www/fifo"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %[2]s/www; error_page 404 /404.html;
			location = /404.html { }
			location ~ ^/p/(.*)$ { alias %[2]s/www/$1; try_files $uri $uri/ =404; }
		}`, port, dir)
	})
	for _, path := range []string{"/p/fifo", "/p/fifo/", "/p/fifo/x"} {
		req := "GET " + path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
		m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
		if m.StatusCode != n.StatusCode || mb != nb {
			t.Errorf("%s: mosaic %d %q, nginx %d %q", path, m.StatusCode, mb, n.StatusCode, nb)
		}
	}
}

// TestRegexAliasLinksAsNGINX: a regex location's alias is bounded by the
// directory it names before its capture, as a prefix alias is, so a
// symbolic link in the captured path that leads to a sibling below it is
// followed, as NGINX follows it (mosaic bounded the lookup by the file's
// own directory and answered 403), and a link loop on the way is 403 in
// both (mosaic failed to open the looping "directory" as a root: 404).
// So for a value naming a directory (its index file a link to a sibling,
// its listing with such a link: mosaic bounded them by the directory
// itself, 403 and the link's own size) and for a try_files candidate
// after the alias (bounded by the alias's value: 404).
func TestRegexAliasLinksAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/a.txt"), "a")
	writeFile(t, filepath.Join(dir, "www/d/b.txt"), "b")
	writeFile(t, filepath.Join(dir, "outside/secret.txt"), "secret")
	for link, target := range map[string]string{"www/d/up.txt": "../a.txt", "www/d/e/up2.txt": "../../a.txt",
		"www/loop1": "loop2", "www/loop2": "loop1", "www/outd": "../outside", "www/i/index.html": "../a.txt"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %[2]s/www; autoindex on;
			location ~ ^/p/(.*)$ { alias %[2]s/www/$1; }
			location ~ ^/t/([^/]+)/(.*)$ { alias %[2]s/www/$1; try_files /$2 =404; }
		}`, port, dir)
	})
	for _, path := range []string{"/p/d/up.txt", "/p/d/e/up2.txt", "/p/d/b.txt", "/p/loop1/x", "/p/loop1", "/p/d/../a.txt",
		"/p/d/", "/p/d/e/", "/p/i/", "/p/loop1/", "/t/d/up.txt", "/t/d/e/up2.txt", "/t/d/b.txt", "/t/loop1/x"} {
		req := "GET " + path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
		m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
		if m.StatusCode != n.StatusCode || m.StatusCode == http.StatusOK && mb != nb {
			t.Errorf("%s: mosaic %d %q, nginx %d %q", path, m.StatusCode, mb, n.StatusCode, nb)
		}
	}
	// A link to a directory out of the root is refused as under a
	// prefix location (NGINX follows it), where it was the bound itself
	// and served.
	res, body := testclient.Do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d/p/outd/secret.txt", mport))
	if res.StatusCode != http.StatusForbidden || strings.Contains(body, "secret") {
		t.Errorf("/p/outd/secret.txt: %d %q, want 403", res.StatusCode, body)
	}
}

// TestRegexAliasBoundCostsAsNGINX pins what the literal directory as a
// regex alias's bound costs, beside NGINX, which follows every link
// (server/README.md, *root, alias*): NGINX's userdir recipe with
// public_html a link out of /home is refused, and "disable_symlinks on
// from=$document_root", which NGINX reads under a regex alias as the
// file's whole path (nothing checked), reaches below the bound and is
// taken as the bound, so a link in the captured part is refused. The
// alias naming a directory through a link out ("/p/outd/", its listing
// and index) is refused as a file there is (mosaic followed it, bounded
// by the directory itself), and a try_files candidate written after an
// alias through it is missing (=404; it was bounded by the value, the
// link itself, and served).
func TestRegexAliasBoundCostsAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "home/d/b.txt"), "b")
	writeFile(t, filepath.Join(dir, "site/x.txt"), "x")
	writeFile(t, filepath.Join(dir, "site/i/index.html"), "i")
	for link, target := range map[string]string{"home/al/public_html": "../../site", "home/ld": "d", "home/outd": "../site"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %[2]s/home; autoindex on;
			location ~ ^/~(.+?)(/.*)?$ { alias %[2]s/home/$1/public_html$2; }
			location ~ ^/f/(.*)$ { alias %[2]s/home/$1; disable_symlinks on from=$document_root; }
			location ~ ^/p/(.*)$ { alias %[2]s/home/$1; }
			location ~ ^/t/([^/]+)/(.*)$ { alias %[2]s/home/$1; try_files /$2 =404; }
		}`, port, dir)
	})
	for path, want := range map[string][2]int{
		"/~al/x.txt":           {200, 403},
		"/f/ld/b.txt":          {200, 404},
		"/p/outd/":             {200, 403},
		"/p/outd/i/":           {200, 403},
		"/t/outd/x.txt":        {200, 404},
		"/t/outd/i/index.html": {200, 404},
	} {
		req := "GET " + path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		n, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
		m, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
		if n.StatusCode != want[0] || m.StatusCode != want[1] {
			t.Errorf("%s: nginx %d, mosaic %d; want %d, %d", path, n.StatusCode, m.StatusCode, want[0], want[1])
		}
	}
}
