package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestSSIIncludeEncodedClimbAsNGINX: NGINX checks an include's URI for
// ".." segments as written and again once percent-decoded, and includes
// nothing for "%2e%2e" or "..%2f": a page that includes a fragment a
// client names ("/pub/$arg_p") does not let it reach another location,
// which a subrequest reaches without the location's access rules.
func TestSSIIncludeEncodedClimbAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/page.html"), `[<!--# include virtual="/pub/$arg_p" -->]`)
	writeFile(t, filepath.Join(dir, "www/pub/a.html"), "PUB")
	writeFile(t, filepath.Join(dir, "www/priv/p.html"), "PRIV")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`types { text/html html; } server { listen 127.0.0.1:%d; root %s/www; ssi on;
			location /priv/ { deny all; } }`, port, dir)
	})
	for _, p := range []string{"a.html", "../priv/p.html", "%2e%2e/priv/p.html", "..%2fpriv/p.html",
		"%2E%2E%2Fpriv%2Fp.html", ".%2e/priv/p.html", "a.html%00"} {
		sameAnswer(t, mport, nport, "GET /page.html?p="+p+" HTTP/1.1\r\nHost: a.test", "")
	}
}

// TestSSIIncludeEmptyURIAsNGINX: an include whose URI is made of
// variables that are all empty is refused as an unsafe URI by NGINX; an
// include of "" is one of the page's directory, as a relative URI. Neither
// includes the page itself, again and again until the subrequests nest too
// deep.
func TestSSIIncludeEmptyURIAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/e/var.html"), `[<!--# include virtual="$arg_f" -->]`)
	writeFile(t, filepath.Join(dir, "www/e/empty.html"), `[<!--# include virtual="" -->]`)
	writeFile(t, filepath.Join(dir, "www/e/index.html"), "INDEX")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`types { text/html html; } server { listen 127.0.0.1:%d; root %s/www; ssi on; }`, port, dir)
	})
	for _, path := range []string{"/e/var.html", "/e/var.html?f=index.html", "/e/empty.html"} {
		sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test", "")
	}
}

// TestSSIIncludePathAsNGINX: an include's URI is a path and arguments, as
// NGINX reads it: "//header.html" (a variable that was empty) is a path,
// not a host "header.html" with an empty path that names the site's
// index; "#" and an escape that is none are bytes of the path.
func TestSSIIncludePathAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/page.html"), `[<!--# include virtual="/$arg_lang/header.html" -->]`+
		`[<!--# include virtual="/p/$http_x?y=1" -->]`)
	writeFile(t, filepath.Join(dir, "www/header.html"), "HEADER")
	writeFile(t, filepath.Join(dir, "www/en/header.html"), "EN")
	writeFile(t, filepath.Join(dir, "www/index.html"), "INDEX")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`types { text/html html; } server { listen 127.0.0.1:%d; root %s/www; ssi on;
			location /p/ { return 200 "uri=$uri args=$args"; } }`, port, dir)
	})
	for _, c := range []struct{ query, x string }{{"", "a"}, {"?lang=en", "a b#c"}, {"?lang=", "a%zzb%4"}} {
		sameAnswer(t, mport, nport, "GET /page.html"+c.query+" HTTP/1.1\r\nHost: a.test\r\nX: "+c.x, "")
	}
}

// TestSSIIncludeArgsControlByteAsNGINX: an include's arguments go to the
// subrequest as they are, a control byte too (a tab a header put there):
// the include is made, not failed.
func TestSSIIncludeArgsControlByteAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/page.html"), `[<!--# include virtual="/p/?y=1&x=$http_x" -->]`)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`types { text/html html; } server { listen 127.0.0.1:%d; root %s/www; ssi on;
			location /p/ { return 200 "uri=$uri y=$arg_y"; } }`, port, dir)
	})
	sameAnswer(t, mport, nport, "GET /page.html HTTP/1.1\r\nHost: a.test\r\nX: a\tb", "")
}
