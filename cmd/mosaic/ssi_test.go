package main

import (
	"cmp"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ssiHTTP is the configuration both servers run in the SSI tests.
func ssiHTTP(dir, listen string) string {
	return fmt.Sprintf(`
		access_log off;
		types { text/html html shtml; text/plain txt; }
		default_type application/octet-stream;
		server {
			%[2]s
			root %[1]s/www;
			ssi on;
			location /quiet/ { ssi_silent_errors on; }
			location /plain/ { ssi_types text/plain; }
			location /short/ { ssi_value_length 8; }
			location /keep/ { ssi_last_modified on; }
			location /off/ { ssi off; }
			location = /args { return 200 "args=$args x=$arg_x"; }
		}`, dir, listen)
}

// ssiPages are the documents of the SSI tests, by path under www.
var ssiPages = map[string]string{
	"main.html": `<html>A<!--# include virtual="/missing.html" -->B<!--# include virtual="inc/x.html" -->C
<!--# echo var="foo" -->D<!--# set var="foo" value="v<&>$uri" --><!--# echo var="foo" -->|<!--# echo var="foo" encoding="url" -->|<!--# echo var="FOO" encoding="none" -->|<!--# echo var="nope" default="dd" -->|<!--# echo var="nope" default="" -->|<!--# echo var="nope" -->
<!--# bogus -->|<!--# if expr="$foo = /^v(.)(?<nm>.)/" -->yes $1=<!--# echo var="1" --> nm=<!--# echo var="nm" --><!--# elif expr="1" -->no<!--# else -->else<!--# endif -->
<!--# if expr="$foo != /^v/" -->A1<!--# elif expr="$nope" -->A2<!--# elif expr="$foo" -->A3<!--# else -->A4<!--# endif -->|<!--# if expr="$foo = v" -->B1<!--# else -->B2<!--# endif -->|<!--# if expr="\/x = \/x" -->C1<!--# endif -->
<!--# include virtual="inc/x.html" set="got" -->[<!--# echo var="got" -->]<!--# include virtual="/missing.html" set="gone" -->[<!--# echo var="gone" -->]
<!--# block name="one" -->STUB<!--# echo var="foo" --> s<!--# endblock --><!--# include virtual="/missing" stub="one" -->|<!--# include virtual="/inc/empty.html" stub="one" -->|<!--# include virtual="/inc/x.html" stub="one" -->|<!--# include virtual="/x" stub="two" -->
<!--#include file="inc/x.html"-->|<!--# include virtual="/inc/x.html" wait="yes" -->|<!--# include virtual="/inc/x.html" wait="maybe" -->|<!--# include virtual="/args?x=1&y" -->|<!--# include virtual="/args?x=$foo" -->
<!--# echo var='a\'b' -->|<!--#  echo   var = "foo"-->|<!--#echo var="foo" x="1" -->|<!--# echo -->|<!--# echo var="a" var="b" -->|<!--# echo var=foo -->|<!--# echo var="foo"x -->|<!--# echo var="foo" - -->
<!--# config errmsg="[E]" -->[<!--# endif -->]<!--# else --><!--# if expr="1" --><!--# if expr="1" --><!--# endif --><!--# include file="a" virtual="b" --><!--# include --><!--# set var="s" value="x" set="y" --><!--# include virtual="/a" set="x" stub="one" --><!--# include file="/inc/x.html" wait="yes" --><!--# include virtual="/../etc/passwd" -->
<!--# set var="deep" value="from main" --><!--# include virtual="/inc/nest.shtml" -->|<!--# echo var="child" -->|<!--# include virtual="/inc/sets.html" wait="yes" --><!--# echo var="child" -->
<!--# set var="esc" value="a\$b\\c\"d\qe" --><!--# echo var="esc" -->|<!--# set var="br" value="${foo}x$foo" --><!--# echo var="br" -->|<!--# set var="bad" value="${foo" -->|<!--# set var="bad" value="$" -->
<!--# if expr="$Foo = nope" -->x<!--# echo var="foo" --><!--# endif -->|<!--# include virtual="/off/raw.html" -->|<!--# include virtual="/plain/t.txt" -->
<<!--#echo var="uri"-->>|<!-- plain comment -->|<!--#--><!--#echo var="document_uri" --><!--#echo var="x" --
> <!--# echo var="query_string" default="noargs" --><!--# config timefmt="%Y|%%|%Q" --><!--# echo var="DATE_GMT" -->
tail<!-`,
	"inc/x.html":      `X<!--# echo var="foo" default="none" -->/<!--# echo var="uri" -->X`,
	"inc/empty.html":  ``,
	"inc/nest.shtml":  `N[<!--# echo var="deep" -->]<!--# include virtual="deeper.html" -->N`,
	"inc/deeper.html": `D<!--# echo var="deep" -->D`,
	"inc/sets.html":   `<!--# set var="child" value="set by child" -->S`,
	"off/raw.html":    `R<!--# echo var="foo" -->R`,
	"plain/t.txt":     `T<!--# echo var="uri" -->T`,
	"plain/p.txt":     `P<!--# echo var="uri" -->P`,
	"quiet/q.html":    `Q<!--# bogus -->Q<!--# include virtual="/missing.html" -->Q<!--# echo var="x" y="z" -->Q`,
	"short/s.html":    `<!--# set var="v" value="12345678" --><!--# echo var="v" -->|<!--# set var="v" value="123456789" --><!--# echo var="v" -->`,
	"keep/k.html":     `K<!--# echo var="uri" -->K`,
	"plain.txt":       `not processed <!--# echo var="uri" -->`,
	"long.html":       strings.Repeat("<!--# echo var=\"uri\" -->..<!-", 3000),
	"cmdlong.html":    `<!--# ` + strings.Repeat("c", 40) + ` -->|<!--# echo ` + strings.Repeat("p", 40) + `="x" -->|`,
}

func ssiSite(t *testing.T, dir string) {
	for p, body := range ssiPages {
		writeFile(t, filepath.Join(dir, "www", p), body)
	}
}

var ssiPaths = []string{"/main.html", "/main.html?a=b", "/quiet/q.html", "/short/s.html", "/plain/p.txt",
	"/plain.txt", "/keep/k.html", "/long.html", "/cmdlong.html", "/inc/nest.shtml", "/missing.html"}

// TestSSIMatchNGINX serves the same pages with the same configuration from
// mosaic and from Debian's NGINX and compares the bodies byte for byte,
// the status, and which validators the responses carry. (Lengths are not
// compared: mosaic's server gives a response that ends within its first
// buffer a Content-Length, where NGINX sends chunks.)
func TestSSIMatchNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	ssiSite(t, dir)
	mport, nport := freePort(t), freePort(t)
	mdir, ndir := filepath.Join(dir, "mosaic"), filepath.Join(dir, "nginx")
	for _, d := range []string{mdir, ndir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	startMosaic(t, mdir, "error_log stderr notice; http {"+ssiHTTP(dir, fmt.Sprintf("listen 127.0.0.1:%d;", mport))+"}", mport)
	startNGINX(t, ndir, ssiHTTP(dir, fmt.Sprintf("listen 127.0.0.1:%d;", nport)), nport)
	type req struct {
		path   string
		hdr    map[string]string
		method string
	}
	var reqs []req
	for _, p := range ssiPaths {
		reqs = append(reqs, req{path: p})
	}
	// A range of a processed page is not served: the page comes whole.
	reqs = append(reqs, req{"/keep/k.html", map[string]string{"Range": "bytes=0-3"}, ""},
		req{"/plain.txt", map[string]string{"Range": "bytes=0-3"}, ""},
		// A HEAD loses the same fields as its GET.
		req{"/main.html", nil, "HEAD"}, req{"/keep/k.html", nil, "HEAD"})
	for _, rq := range reqs {
		path := rq.path
		method := cmp.Or(rq.method, "GET")
		mr, mb := do(t, method, fmt.Sprintf("http://127.0.0.1:%d%s", mport, path), rq.hdr)
		nr, nb := do(t, method, fmt.Sprintf("http://127.0.0.1:%d%s", nport, path), rq.hdr)
		mb = strings.ReplaceAll(mb, "mosaic", "nginx/1.22.1")
		if mr.StatusCode != nr.StatusCode {
			t.Errorf("%s: status: mosaic %d, nginx %d", path, mr.StatusCode, nr.StatusCode)
		}
		if mb != nb {
			t.Errorf("%s: body:\nmosaic %q\nnginx  %q", path, mb, nb)
		}
		if path == "/keep/k.html" && (mr.Header.Get("Last-Modified") != nr.Header.Get("Last-Modified") ||
			!strings.HasPrefix(mr.Header.Get("Etag"), "W/") || !strings.HasPrefix(nr.Header.Get("Etag"), "W/")) {
			t.Errorf("%s: ssi_last_modified: mosaic %q %q, nginx %q %q", path, mr.Header.Get("Last-Modified"),
				mr.Header.Get("Etag"), nr.Header.Get("Last-Modified"), nr.Header.Get("Etag"))
		}
		for _, h := range []string{"Last-Modified", "Etag", "Accept-Ranges", "Content-Type"} {
			if (mr.Header.Get(h) == "") != (nr.Header.Get(h) == "") {
				t.Errorf("%s: %s: mosaic %q, nginx %q", path, h, mr.Header.Get(h), nr.Header.Get(h))
			}
		}
	}
}

// TestSSIConfigErrors checks the refusals and notices of the ssi_*
// directives, with file:line.
func TestSSIConfigErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ conf, want string }{
		{`http { ssi maybe; }`, `invalid value "maybe" in "ssi" directive`},
		{`http { server { location / { ssi_value_length 0; } } }`, `invalid value "0" in "ssi_value_length" directive`},
		{`http { ssi on; ssi on; }`, `"ssi" directive is duplicate`},
		{`http { server { location / { ssi_min_file_chunk 2k; } } }`, `ignoring "ssi_min_file_chunk"`},
		{`http { ssi_ignore_recycled_buffers on; }`, `ignoring "ssi_ignore_recycled_buffers"`},
	} {
		path := filepath.Join(dir, "bad.conf")
		writeFile(t, path, c.conf)
		b, _ := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
		out := string(b)
		if !strings.Contains(out, c.want) || !strings.Contains(out, "bad.conf:1") {
			t.Errorf("%s: %q, want %q at bad.conf:1", c.conf, out, c.want)
		}
	}
}

// TestSSIInsideGzip: SSI runs inside compression, on the text, as in
// NGINX; the gzipped page is the processed one.
func TestSSIInsideGzip(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/g.html"), strings.Repeat(`<!--# echo var="uri" --> `, 200))
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`error_log stderr notice; http { types { text/html html; }
		server { listen 127.0.0.1:%d; root %s/www; ssi on; gzip on; gzip_min_length 1; } }`, port, dir), port)
	req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d/g.html", port), nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q", resp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat("/g.html ", 200); string(body) != want {
		t.Errorf("got %q", body)
	}
}
