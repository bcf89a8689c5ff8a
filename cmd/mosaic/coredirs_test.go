package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// coreDirsHTTP is an http block of the redirect and charset directives,
// run by mosaic and by NGINX alike.
func coreDirsHTTP(dir, listen, origin string) string {
	return fmt.Sprintf(`
		charset utf-8;
		types { text/css css; text/plain txt; text/html html; }
		server {
			%[2]s
			server_name main.test;
			root %[1]s/www;
			merge_slashes off;
			location /abs     { return 301 /to; }
			location /noport  { port_in_redirect off; return 302 /to; }
			location /name    { server_name_in_redirect on; return 307 /to; }
			location /rel     { absolute_redirect off; return 301 /to?x=1; }
			location /dirrel/ { absolute_redirect off; }
			location /plain   { return 200 x; }
			location /json    { default_type application/json; return 200 x; }
			location /typed   { default_type application/json; charset_types application/json; return 200 x; }
			location /nocs    { charset off; return 200 x; }
			location /koi     { charset koi8-r; source_charset KOI8-R; return 200 x; }
			location /missing { return 404; }
			location /moved   { return 302 /x; }
			location /see     { return 303 /x; }
			location /ms/     { return 200 "merged $uri"; }
			location /ms//x/  { return 200 "kept $uri"; }
			location /le      { limit_except GET { } return 200 "read"; }
			location /up/     { proxy_pass http://%[3]s/o/; }
			location /uprel/  { absolute_redirect off; proxy_pass http://%[3]s/o/; }
		}`, dir, listen, origin)
}

func coreDirsFiles(t *testing.T, dir string) {
	writeFile(t, filepath.Join(dir, "www/dir/index.html"), "dir")
	writeFile(t, filepath.Join(dir, "www/dirrel/sub/index.html"), "sub")
	writeFile(t, filepath.Join(dir, "www/file.txt"), "file")
	writeFile(t, filepath.Join(dir, "www/page.css"), "css")
}

var coreDirsCases = []struct {
	request string // the request line and headers
	// What NGINX 1.22 answers (Location with its port as PORT), which
	// TestCoreDirectivesThroughBinary checks without NGINX.
	status                int
	location, ctype, body string
}{
	{"GET /abs HTTP/1.1\r\nHost: a.test:9999", 301, "http://a.test:PORT/to", "text/html", ""},
	{"GET /abs HTTP/1.0", 301, "http://127.0.0.1:PORT/to", "text/html", ""},
	{"GET /noport HTTP/1.1\r\nHost: a.test", 302, "http://a.test/to", "text/html", ""},
	{"GET /name HTTP/1.1\r\nHost: a.test", 307, "http://main.test:PORT/to", "text/html; charset=utf-8", ""},
	{"GET /rel HTTP/1.1\r\nHost: a.test", 301, "/to?x=1", "text/html", ""},
	{"GET /dir?q=1 HTTP/1.1\r\nHost: a.test", 301, "http://a.test:PORT/dir/?q=1", "text/html", ""},
	{"GET /dirrel/sub HTTP/1.1\r\nHost: a.test", 301, "/dirrel/sub/", "text/html", ""},
	{"GET /plain HTTP/1.1\r\nHost: a.test", 200, "", "text/plain; charset=utf-8", "x"},
	{"GET /json HTTP/1.1\r\nHost: a.test", 200, "", "application/json", "x"},
	{"GET /typed HTTP/1.1\r\nHost: a.test", 200, "", "application/json; charset=utf-8", "x"},
	{"GET /nocs HTTP/1.1\r\nHost: a.test", 200, "", "text/plain", "x"},
	{"GET /koi HTTP/1.1\r\nHost: a.test", 200, "", "text/plain; charset=koi8-r", "x"},
	{"GET /missing HTTP/1.1\r\nHost: a.test", 404, "", "text/html; charset=utf-8", ""},
	{"GET /moved HTTP/1.1\r\nHost: a.test", 302, "http://a.test:PORT/x", "text/html", ""},
	{"GET /see HTTP/1.1\r\nHost: a.test", 303, "http://a.test:PORT/x", "text/html; charset=utf-8", ""},
	{"GET /file.txt HTTP/1.1\r\nHost: a.test", 200, "", "text/plain; charset=utf-8", "file"},
	{"GET /page.css HTTP/1.1\r\nHost: a.test", 200, "", "text/css", "css"},
	{"GET /ms//x/y HTTP/1.1\r\nHost: a.test", 200, "", "text/plain; charset=utf-8", "kept /ms//x/y"},
	{"GET /ms/./x//y HTTP/1.1\r\nHost: a.test", 200, "", "text/plain; charset=utf-8", "merged /ms/x//y"},
	// Methods limit_except does not list skip the location's "return":
	// the block does not inherit rewrite directives.
	{"GET /le HTTP/1.1\r\nHost: a.test", 200, "", "text/plain; charset=utf-8", "read"},
	{"HEAD /le HTTP/1.1\r\nHost: a.test", 200, "", "text/plain; charset=utf-8", ""},
	{"DELETE /le HTTP/1.1\r\nHost: a.test", 405, "", "text/html; charset=utf-8", ""},
	// An upstream's Location that proxy_redirect rewrites into a path is
	// made absolute; a path the upstream sent stays as it is.
	{"GET /up/own HTTP/1.1\r\nHost: a.test", 302, "http://a.test:PORT/up/x", "text/plain", ""},
	{"GET /up/path HTTP/1.1\r\nHost: a.test", 302, "/y", "text/plain", ""},
	{"GET /uprel/own HTTP/1.1\r\nHost: a.test", 302, "/uprel/x", "text/plain", ""},
}

// coreDirsOrigin redirects to its own URL (/o/own) or to a path (/o/path).
func coreDirsOrigin(t *testing.T) string {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		if strings.HasSuffix(r.URL.Path, "/own") {
			w.Header().Set("Location", "http://"+addr+"/o/x")
		} else {
			w.Header().Set("Location", "/y")
		}
		w.WriteHeader(302)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return addr
}

func checkCoreDirs(t *testing.T, who string, port int) {
	t.Helper()
	for _, c := range coreDirsCases {
		resp, body := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), c.request+"\r\nConnection: close\r\n\r\n")
		loc := strings.ReplaceAll(resp.Header.Get("Location"), fmt.Sprint(port), "PORT")
		line, _, _ := strings.Cut(c.request, "\r\n")
		if resp.StatusCode != c.status || loc != c.location || resp.Header.Get("Content-Type") != c.ctype {
			t.Errorf("%s: %s: %d %q %q, want %d %q %q", who, line, resp.StatusCode, loc, resp.Header.Get("Content-Type"), c.status, c.location, c.ctype)
		}
		if c.body != "" && body != c.body {
			t.Errorf("%s: %s: body %q, want %q", who, line, body, c.body)
		}
	}
}

// TestCoreDirectivesMatchNGINX runs the redirect and charset directives
// in Debian's NGINX and checks that it answers what mosaic is tested for.
func TestCoreDirectivesMatchNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	coreDirsFiles(t, dir)
	port := freePort(t)
	ndir := filepath.Join(dir, "nginx")
	if err := os.MkdirAll(ndir, 0o755); err != nil {
		t.Fatal(err)
	}
	startNGINX(t, ndir, coreDirsHTTP(dir, fmt.Sprintf("listen 127.0.0.1:%d;", port), coreDirsOrigin(t)), port)
	checkCoreDirs(t, "nginx", port)
}

func TestCoreDirectivesThroughBinary(t *testing.T) {
	dir := t.TempDir()
	coreDirsFiles(t, dir)
	port := freePort(t)
	startMosaic(t, dir, "http {"+coreDirsHTTP(dir, "listen 127.0.0.1:{port};", coreDirsOrigin(t))+"}", port)
	checkCoreDirs(t, "mosaic", port)
}
