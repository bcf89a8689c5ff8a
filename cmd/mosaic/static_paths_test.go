package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// Static files against Debian's NGINX on the same configuration: which
// file a try_files candidate or a regex location's alias names, and the
// listing of a directory (sameAnswer: internal_access_test.go).

// TestTryFilesEncodedQuestionMarkAsNGINX: a "?" that a client sent as
// %3F is part of $uri, and of the file name a try_files candidate makes
// of it: /secret.php%3F names no file, so the PHP source a location for
// \.php$ guards (which the decoded URI does not match) is not served.
func TestTryFilesEncodedQuestionMarkAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	for _, who := range []string{"nginx", "mosaic"} {
		writeFile(t, filepath.Join(dir, who, "www/secret.php"), "<?php SOURCE ?>")
		writeFile(t, filepath.Join(dir, who, "www/a.txt"), "text")
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		root := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], "www")
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%d; root %s;
			location ~ \.php$ { deny all; }
			location / { try_files $uri $uri/ =404; }
		}`, port, root)
	})
	for _, path := range []string{"/secret.php", "/secret.php%3F", "/secret.php%3Fx", "/a.txt%3F.css", "/a.txt"} {
		sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test", "")
	}
}

// TestRegexAliasDirectoryAsNGINX: an alias made of a regex location's
// capture that names a directory (a URI ending in a slash) serves its
// index file, or its listing, as NGINX does.
func TestRegexAliasDirectoryAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "img", "index.html"), "img index")
	writeFile(t, filepath.Join(dir, "img", "sub", "index.html"), "sub index")
	writeFile(t, filepath.Join(dir, "img", "sub", "f.txt"), "f")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; absolute_redirect off;
			location ~ ^/r/(.*)$ { alias %s/img/$1; } }`, port, dir)
	})
	for _, path := range []string{"/r/", "/r/sub/", "/r/sub/f.txt"} {
		sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test", "")
	}
}

// sameAutoindex compares the HTML listings of mosaic and NGINX, with
// "charset utf-8", of a directory holding files of one byte and of one
// time with these names.
func sameAutoindex(t *testing.T, names ...string) {
	t.Helper()
	nginxPath(t)
	dir := t.TempDir()
	when := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, name := range names {
		p := filepath.Join(dir, "u", name)
		writeFile(t, p, "x")
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s; charset utf-8; autoindex on; }`, port, dir)
	})
	sameAnswer(t, mport, nport, "GET /u/ HTTP/1.1\r\nHost: a.test", "")
}

// TestAutoindexUTF8NamesAsNGINX: with "charset utf-8" the HTML listing
// measures names in characters, pads them to the column by characters,
// and cuts a long one at a character, as NGINX does (cut at a byte, it
// ended inside one, which is not UTF-8).
func TestAutoindexUTF8NamesAsNGINX(t *testing.T) {
	sameAutoindex(t, strings.Repeat("ü", 30)+".txt", strings.Repeat("é", 60), "plain.txt")
}

// TestGzipStaticVaryAsNGINX: with gzip_static on and gzip_vary on, the
// plain answer for a client that does not accept gzip says Vary:
// Accept-Encoding whenever the .gz copy is there, as NGINX marks it once
// it has found the copy: a shared cache must not give that answer to
// the clients that would get the copy.
func TestGzipStaticVaryAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	text := strings.Repeat("static text to compress\n", 50)
	writeFile(t, filepath.Join(dir, "a.txt"), text)
	writeFile(t, filepath.Join(dir, "a.txt.gz"), string(encodeGzip(t, []byte(text))))
	writeFile(t, filepath.Join(dir, "only.txt.gz"), string(encodeGzip(t, []byte(text))))
	writeFile(t, filepath.Join(dir, "plain.txt"), text)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s; gzip_vary on; gzip_static on; }`, port, dir)
	})
	for _, path := range []string{"/a.txt", "/only.txt", "/plain.txt"} {
		for _, ae := range []string{"", "\r\nAccept-Encoding: gzip;q=0", "\r\nAccept-Encoding: br", "\r\nAccept-Encoding: gzip"} {
			req := "GET " + path + " HTTP/1.1\r\nHost: a.test" + ae + "\r\nConnection: close\r\n\r\n"
			m, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
			n, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
			if m.StatusCode != n.StatusCode || m.Header.Get("Vary") != n.Header.Get("Vary") ||
				m.Header.Get("Content-Encoding") != n.Header.Get("Content-Encoding") {
				t.Errorf("%s%q: mosaic %d Vary %q CE %q, nginx %d Vary %q CE %q", path, ae, m.StatusCode, m.Header.Get("Vary"),
					m.Header.Get("Content-Encoding"), n.StatusCode, n.Header.Get("Vary"), n.Header.Get("Content-Encoding"))
			}
		}
	}
}

// TestIndexOfEncodedQuestionMarkAsNGINX: the index file of a directory
// whose name has a "?" (a client's %3F) is that directory's: the
// redirect to it takes the decoded URI whole, as NGINX's index module
// does, and does not cut it into a path (which another location may
// match) and arguments.
func TestIndexOfEncodedQuestionMarkAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q?x", "index.html"), "q directory")
	writeFile(t, filepath.Join(dir, "s.php?", "index.html"), "php directory")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s;
			location ~ \.php$ { return 200 "PHP uri=$uri args=$args"; } }`, port, dir)
	})
	for _, path := range []string{"/q%3Fx/", "/s.php%3F/", "/q%3Fx/?a=1"} {
		sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test", "")
	}
}

// TestAutoindexInvalidUTF8NamesAsNGINX: with "charset utf-8", a name
// that is not UTF-8 (a Latin-1 name from an old archive) is measured,
// padded and cut in bytes, as NGINX's ngx_utf8_length measures a string
// it cannot decode; only a valid name is counted in characters.
func TestAutoindexInvalidUTF8NamesAsNGINX(t *testing.T) {
	sameAutoindex(t, "caf\xe9 \xc3\xa9t\xe9.txt", strings.Repeat("\xc3\xa9", 30)+"\xff"+strings.Repeat("\xc3\xa9", 30), "ok\xc3")
}

// TestAutoindexLenientUTF8NamesAsNGINX: NGINX's UTF-8 decoder is more
// lenient than Go's: it takes an encoded surrogate for one character, and
// checks only the high bit of the bytes after the first ("\xc3\xc3"). Such
// names are measured and cut in characters; mosaic, which asked Go
// whether the name was valid, measured them in bytes.
func TestAutoindexLenientUTF8NamesAsNGINX(t *testing.T) {
	sameAutoindex(t, "s\xed\xa0\x80.txt", "c\xc3\xc3.txt", strings.Repeat("\xed\xa0\x80", 60))
}

// TestAliasPathsAsNGINX: which file a prefix location's alias names, and
// what stays out of reach, against NGINX: an alias with and without its
// trailing slash, a location without one, a URI equal to the prefix, a
// regex location's captures (one naming a directory without its slash:
// the index name goes after it as it is), and ".." segments, plain and encoded
// (%2e, %2f), that would climb out of the alias to a file beside it.
func TestAliasPathsAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "secret.txt"), "secret")
	writeFile(t, filepath.Join(dir, "www", "index.html"), "index")
	writeFile(t, filepath.Join(dir, "www", "a.txt"), "a")
	writeFile(t, filepath.Join(dir, "www", "sub", "b.txt"), "b")
	writeFile(t, filepath.Join(dir, "www", "sub", "index.html"), "sub index")
	writeFile(t, filepath.Join(dir, "www", "prea.txt"), "pre a")
	writeFile(t, filepath.Join(dir, "wwwa.txt"), "beside")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; absolute_redirect off;
			location /s/ { alias %[2]s/www/; }
			location /n { alias %[2]s/www/; }
			location /p/ { alias %[2]s/www/pre; }
			location /w/ { alias %[2]s/www; }
			location ~ ^/x/(\w+)/$ { alias %[2]s/www/$1; }
			location ~ ^/r/(\w+)/(.*)$ { alias %[2]s/www/$1/$2; } }`, port, dir)
	})
	for _, path := range []string{
		"/s/", "/s", "/s/a.txt", "/s/sub/b.txt", "/s/sub", "/s//a.txt",
		"/n", "/n/", "/n/a.txt", "/na.txt", "/n/sub/b.txt",
		"/p/a.txt", "/p/", "/w/a.txt", "/w/", "/w",
		"/r/sub/b.txt", "/r/sub/", "/x/sub/", "/x/www/", "/r/sub/../a.txt", "/r/sub/%2e%2e/a.txt",
		"/s/../secret.txt", "/s/%2e%2e/secret.txt", "/s/..%2fsecret.txt", "/s/sub/..%2f..%2fsecret.txt",
		"/s/sub%2fb.txt", "/n/..%2fsecret.txt", "/w/..%2fsecret.txt",
	} {
		sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test", "")
	}
}

// TestAliasListingsAsNGINX: autoindex and random_index under an alias
// without its trailing slash ("location /w/ { alias DIR/www; }"), the
// URIs TestAliasPathsAsNGINX asks of index: the location itself, a
// subdirectory, and ".." segments, plain and encoded, that would climb
// out of the alias. NGINX's two modules read the mapped path less its
// last byte: DIR/ww and DIR/rn, which exist here, and the file
// random_index picks there is then looked up as /r/NAME (DIR/rndNAME).
// random_index has one file to pick, so that the answers compare.
func TestAliasListingsAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	when := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, f := range []string{"secret.txt", "wwwa.txt", "www/a.txt", "www/sub/b.txt", "rnd/one.html", "rnd/sub/two.html", "rndx.html", "ww/x.txt", "rn/x.html"} {
		p := filepath.Join(dir, f)
		writeFile(t, p, f)
		for _, q := range []string{p, filepath.Dir(p)} {
			if err := os.Chtimes(q, when, when); err != nil {
				t.Fatal(err)
			}
		}
	}
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; absolute_redirect off;
			location /w/ { alias %[2]s/www; autoindex on; }
			location /r/ { alias %[2]s/rnd; random_index on; } }`, port, dir)
	})
	for _, path := range []string{
		"/w/", "/w", "/w/sub/", "/w/sub", "/w/../", "/w/%2e%2e/", "/w/..%2f", "/w/sub/../", "/w/sub/..%2f..%2f",
		"/r/", "/r", "/r/sub/", "/r/../", "/r/%2e%2e/", "/r/..%2f", "/r/sub/..%2f..%2f",
	} {
		sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test", "")
	}
}

// TestAliasListingsClimbRefused: autoindex and random_index read the
// mapped path less its last byte (TestAliasListingsAsNGINX); under a
// regex location whose alias ends in a capture, "/d/.../" maps to
// DIR/pub/..., which less a byte is DIR/pub/..: NGINX lists DIR, the
// directory above the alias. mosaic answers 404, as for any path with a
// ".." segment (it answered 403 for autoindex and 500 for random_index),
// the difference static's README documents.
func TestAliasListingsClimbRefused(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	for _, f := range []string{"secret.txt", "pub/.../in.txt"} {
		writeFile(t, filepath.Join(dir, f), f)
	}
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; absolute_redirect off;
			location ~ ^/d/(.*)/$ { alias %[2]s/pub/$1; autoindex on; }
			location ~ ^/r/(.*)/$ { alias %[2]s/pub/$1; random_index on; } }`, port, dir)
	})
	req := "GET /d/.../ HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
	if n, nb, _ := rawResponse(t, nport, req); n.StatusCode != 200 || !strings.Contains(nb, "secret.txt") {
		t.Errorf("NGINX did not list the directory above the alias: %d %q", n.StatusCode, nb)
	}
	for _, path := range []string{"/d/.../", "/r/.../"} {
		m, mb, _ := rawResponse(t, mport, "GET "+path+" HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
		if m.StatusCode != 404 || strings.Contains(mb, "secret") {
			t.Errorf("%s: mosaic %d %q, want 404", path, m.StatusCode, mb)
		}
	}
}

// TestNestedAliasAsNGINX: a location inside an alias's location, without
// a root or alias of its own, inherits the alias with the part of the URI
// it replaces, the declaring location's prefix (NGINX's clcf->alias, the
// length of that location's name), not its own: /al/sub/f.txt is
// DIR/www/sub/f.txt. Each module that maps a URI to a file reads it so:
// the static files and their .gz copies, try_files, index, autoindex,
// $request_filename and $document_root, an "if" block, a nested regex and
// exact location; a regex location's alias stays the whole path, made of
// the captures of the regex that matched last (a nested one's), also in
// its limit_except block; a nested root is the nested location's own. No
// ".." segment, plain or encoded, climbs above the alias.
func TestNestedAliasAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	for _, f := range []string{
		"secret.txt", "www/f.txt", "www/b.txt", "www/sub/f.txt", "www/sub/deep/f.txt", "www/x.re", "www/sub/x.re",
		"www/exact.txt", "www/tf/f.txt", "www/ix/i.html", "www/auto/f.txt", "www/if/f.txt",
		"www/le/f.txt", "wwwsub/f.txt", "own/al/own/f.txt", "www/own/f.txt",
	} {
		writeFile(t, filepath.Join(dir, f), f)
	}
	text := strings.Repeat("gzip me\n", 40)
	writeFile(t, filepath.Join(dir, "www/gz/a.txt"), text)
	writeFile(t, filepath.Join(dir, "www/gz/a.txt.gz"), string(encodeGzip(t, []byte(text))))
	when := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, p := range []string{"www/auto", "www/auto/f.txt"} {
		if err := os.Chtimes(filepath.Join(dir, p), when, when); err != nil {
			t.Fatal(err)
		}
	}
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; absolute_redirect off;
			location /al/ { alias %[2]s/www/;
				location /al/sub/ { }
				location ~ \.re$ { }
				location = /al/exact.txt { }
				location /al/own/ { root %[2]s/own; }
				location /al/tf/ { try_files $uri $uri/ =418; }
				location /al/ix/ { index i.html; }
				location /al/auto/ { autoindex on; }
				location /al/gz/ { gzip_static on; }
				location /al/if/ { if ($arg_x) { set $y 1; } }
				location /al/var/ { return 200 "$request_filename|$document_root"; }
				location ~ \.var$ { return 200 "$request_filename|$document_root"; }
			}
			location /ns/ { alias %[2]s/www;
				location /ns/sub/ { }
			}
			location ~ ^/re/(.+)$ { alias %[2]s/www/$1;
				location ~ ^/re/sub/(.+)$ { }
			}
			location ~ ^/le/(.+)$ { alias %[2]s/www/le/$1; limit_except POST { allow all; } }
		}`, port, dir)
	})
	for _, path := range []string{
		"/al/f.txt", "/al/sub/f.txt", "/al/sub/deep/f.txt", "/al/x.re", "/al/sub/x.re", "/al/exact.txt",
		"/al/own/f.txt", "/al/tf/f.txt", "/al/tf/g.txt", "/al/tf/", "/al/ix/", "/al/auto/", "/al/auto",
		"/al/if/f.txt?x=1", "/al/if/f.txt", "/al/var/a/b", "/al/sub/x.var", "/ns/sub/f.txt", "/ns/f.txt",
		"/re/sub/b.txt", "/re/b.txt", "/le/f.txt",
		"/al/sub/../../secret.txt", "/al/sub/%2e%2e/%2e%2e/secret.txt", "/al/sub/..%2f..%2fsecret.txt",
		"/al/sub/%2E%2E%2F%2E%2E%2Fsecret.txt", "/al/tf/..%2f..%2fsecret.txt", "/ns/sub/..%2f..%2fsecret.txt",
		"/re/sub/..%2f..%2fsecret.txt", "/al/auto/..%2f..%2f",
	} {
		sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test", "")
	}
	sameAnswer(t, mport, nport, "GET /al/gz/a.txt HTTP/1.1\r\nHost: a.test\r\nAccept-Encoding: gzip", "")
}
