package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// rewriteHTTP is an http block that exercises the rewrite module: the
// server and location phases, every flag, captures, arguments, "if" with
// each kind of condition, "set", "break", "return" in "if", the cycle
// limit and "if" blocks as implicit locations. Its return texts show
// $uri, $args and captures, so that NGINX and mosaic can be compared.
func rewriteHTTP(dir, listen string) string {
	return fmt.Sprintf(`
	access_log off;
	map $arg_m $mapped { default dflt; one 1; }
	server {
		%[2]s
		root %[1]s/www;
		rewrite_log on;
		rewrite ^/srv/(.*)$ /s/$1 last;
		rewrite ^/srvbrk/(.*)$ /s/$1 break;
		rewrite ^/old(/.*)?$ /new$1;
		if ($arg_srvret) { return 418; }
		if ($http_x_block = "yes") { return 403 "blocked $uri"; }
		set $sv "server";

		location / { return 200 "root|$uri|$args|$1|$sv"; }
		location /s/ { return 200 "s|$uri|$args|$1|$sv"; }
		location /new { return 200 "new|$uri|$args"; }
		location /a/ {
			rewrite ^/a/(\w+)/(\d+)$ /b/$2?x=$1 last;
			rewrite ^/a/red/(.*)$ http://example.com/$1 permanent;
			rewrite ^/a/red2/(.*)$ /target/$1 redirect;
			rewrite ^/a/red3/(.*)$ http://example.com/?n=$1;
			rewrite ^/a/noargs/(.*)$ /b/$1? last;
			rewrite ^/a/br/(.*)$ /zz/$1 break;
			rewrite ^/a/cont/(.*)$ /a/two/$1;
			rewrite ^/a/two/(.*)$ /b/two-$1;
			return 200 "a|$uri|$args";
		}
		location /b/ { set $foo "bar$arg_x"; return 200 "b|$uri|$args|$foo|$1"; }
		location /zz/ { return 200 "zz|$uri"; }
		location /if/ {
			if ($arg_q ~ ^(\d+)$) { add_header X-If $1; return 200 "num|$1"; }
			if ($arg_q = "x") { set $v yes; }
			if ($arg_q ~* ^(?<word>[a-z]+)-(\d)$) { return 200 "word|$word|$2"; }
			if ($arg_q !~ ^[a-z]*$) { return 200 "notword|$arg_q"; }
			if (-f %[1]s/www/present.txt) { set $f file; }
			if (!-d %[1]s/www/present.txt) { set $d notdir; }
			if (-e %[1]s/www/nosuch) { set $f impossible; }
			return 200 "end|$v|$f|$d";
		}
		location /loop/ { rewrite ^ /loop/x last; }
		location /brk/ { rewrite ^/brk/(.*)$ /zz/$1; break; return 200 "never"; }
		location /ifbrk/ { if ($arg_a) { break; } return 200 "after|$uri"; }
		location /evil/ {
			set $t 1;
			if ($t) { add_header X-First 1; }
			if ($t) { add_header X-Second 2; }
			return 200 "evil";
		}
		location /ifroot/ { if ($arg_alt) { root %[1]s/alt; } }
		location /uninit/ { return 200 "u|$never_set|"; }
		location /nothing/ { set $never_set x; }
		location = /setargs { set $args "a=1&b=2"; return 200 "$args|$arg_b"; }
		location /esc/ { rewrite ^/esc/(.*)$ /b/q?v=$1 last; }
		location /redesc/ { rewrite ^/redesc/(.*)$ http://h.example/$1 redirect; }
		location /ret/ { return 301 /elsewhere; }
		location /named/ { try_files /nonexistent @named; }
		location @named { rewrite ^ /s/fromnamed last; }
		location /errp/ { error_page 404 = /s/err; return 404; }
		location /order/ { return 200 "first"; rewrite ^ /s/ last; }
		location /setorder/ { return 200 "[$late]"; set $late x; }
		location ~ ^/re/(\d+)$ { rewrite ^ /b/re last; }
		location /forms/ {
			if ($request_method = 'GET') { set $m get; }
			if ( $http_x ~* "^(y)$" ){ set $xx $1; }
			if ($uri ~ "^/forms/(b)$") { return 200 "b|$m|$xx|$1"; }
			return 200 "$m|$xx|$1";
		}
		location ~ ^/al/(.*)$ { alias %[1]s/www/zz/$1; if ($arg_x) { add_header X-Al 1; } }
		location /pal/ { alias %[1]s/www/zz/; if ($arg_x) { add_header X-Al 1; } }
		location /map/ { if ($arg_o) { set $mapped "over-$mapped"; } return 200 "$mapped"; }
		location ~ "^/n/(x{0,9})$" { rewrite ^/n/(x*)$ /n/$1x last; }
		location ~ "^/n/x{10}$" { return 200 "ten|$uri"; }
		location ~ "^/m/(x{0,10})$" { rewrite ^/m/(x*)$ /m/$1x last; }
		location ~ "^/m/x{11}$" { return 200 "eleven|$uri"; }
		location /twice/ { rewrite ^/twice/(.*)$ /twice2/$1; rewrite ^/twice2/(.*)$ /s/$1 last; }
		location /neg/ {
			if ($arg_a != "x") { set $ne ne; }
			if ($arg_b !~* ^ab(c)?) { set $nm nm; }
			if (-x %[1]s/www/$arg_f) { set $x exec; }
			if (!-e %[1]s/www/$arg_f) { set $nx absent; }
			if (!-x %[1]s/www/$arg_f) { set $nox notexec; }
			return 200 "neg|$ne|$nm|$x|$nx|$nox";
		}
		location /ssiif/ { ssi_types text/plain; if ($arg_s) { ssi on; } }
	}`, dir, listen)
}

// rewriteCase is a request and what to compare of its answer.
type rewriteCase struct {
	path   string
	header map[string]string
	// headers whose values must agree too
	compare []string
}

var rewriteCases = []rewriteCase{
	{path: "/srv/abc?z=1"},
	{path: "/srvbrk/abc"},
	{path: "/old/x?k=1"},
	{path: "/old"},
	{path: "/?srvret=1"},
	{path: "/a/x", header: map[string]string{"X-Block": "yes"}},
	{path: "/plain?p=1"},
	{path: "/a/foo/42?k=v"},
	{path: "/a/foo/42"},
	{path: "/a/red/x?y=1"},
	{path: "/a/red2/x?y=1"},
	{path: "/a/red3/x?y=1"},
	{path: "/a/noargs/x?y=1"},
	{path: "/a/br/q"},
	{path: "/a/cont/c?m=1"},
	{path: "/a/zzz"},
	{path: "/if/?q=12", compare: []string{"X-If"}},
	{path: "/if/?q=x"},
	{path: "/if/?q=abc-7"},
	{path: "/if/?q=ABC-7"},
	{path: "/if/?q=a1"},
	{path: "/if/"},
	{path: "/loop/"},
	{path: "/brk/q"},
	{path: "/ifbrk/q?a=1"},
	{path: "/ifbrk/q"},
	{path: "/evil/", compare: []string{"X-First", "X-Second"}},
	{path: "/ifroot/f.txt"},
	{path: "/ifroot/f.txt?alt=1"},
	{path: "/uninit/"},
	{path: "/setargs?z=9"},
	{path: "/esc/a%20b+c"},
	{path: "/esc/a&b"},
	{path: "/redesc/a%20b"},
	{path: "/redesc/a%41b"},
	{path: "/ret/"},
	{path: "/named/"},
	{path: "/errp/"},
	{path: "/order/"},
	{path: "/setorder/"},
	{path: "/re/12"},
	{path: "/twice/t"},
	{path: "/forms/b", header: map[string]string{"X": "Y"}},
	{path: "/forms/c", header: map[string]string{"X": "Y"}},
	{path: "/forms/c"},
	{path: "/al/q?x=1", compare: []string{"X-Al"}},
	{path: "/pal/q?x=1", compare: []string{"X-Al"}},
	{path: "/pal/q"},
	{path: "/map/?m=one"},
	{path: "/map/?m=one&o=1"},
	{path: "/map/?o=1"},
	{path: "/n/"},
	{path: "/m/"},
	{path: "/neg/?a=x&b=ABC&f=exec.sh"},
	{path: "/neg/?a=y&b=xab&f=present.txt"},
	{path: "/neg/?b=aB&f=nosuch"},
	{path: "/neg/?f=zz"},
	{path: "/ssiif/p.txt?s=1"},
	{path: "/ssiif/p.txt"},
}

func rewriteSiteFiles(t *testing.T, dir string) {
	writeFile(t, filepath.Join(dir, "www/present.txt"), "here")
	writeFile(t, filepath.Join(dir, "www/zz/q"), "static zz q")
	writeFile(t, filepath.Join(dir, "www/ifroot/f.txt"), "www root")
	writeFile(t, filepath.Join(dir, "alt/ifroot/f.txt"), "alt root")
	writeFile(t, filepath.Join(dir, "www/exec.sh"), "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(dir, "www/exec.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "www/ssiif/p.txt"), `ssi:<!--# echo var="arg_s" default="none" -->|<!--# set var="v" value="$uri" --><!--# echo var="v" -->`)
}

// TestRewriteMatchNGINX runs the same rewrite configuration in mosaic and
// in Debian's NGINX and compares status, Location (its port aside), the
// headers named and, for text answers, the body.
func TestRewriteMatchNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	rewriteSiteFiles(t, dir)
	mport, nport := freePort(t), freePort(t)
	mdir, ndir := filepath.Join(dir, "mosaic"), filepath.Join(dir, "nginx")
	for _, d := range []string{mdir, ndir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	startMosaic(t, mdir, "error_log stderr notice; http {"+rewriteHTTP(dir, fmt.Sprintf("listen 127.0.0.1:%d;", mport))+"}", mport)
	startNGINX(t, ndir, rewriteHTTP(dir, fmt.Sprintf("listen 127.0.0.1:%d;", nport)), nport)
	for _, c := range rewriteCases {
		mr, mb := do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d%s", mport, c.path), c.header)
		nr, nb := do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d%s", nport, c.path), c.header)
		mloc := strings.ReplaceAll(mr.Header.Get("Location"), fmt.Sprint(mport), "PORT")
		nloc := strings.ReplaceAll(nr.Header.Get("Location"), fmt.Sprint(nport), "PORT")
		if mr.StatusCode != nr.StatusCode || mloc != nloc {
			t.Errorf("%s: mosaic %d %q, nginx %d %q", c.path, mr.StatusCode, mloc, nr.StatusCode, nloc)
		}
		if strings.HasPrefix(nr.Header.Get("Content-Type"), "text/plain") && mb != nb {
			t.Errorf("%s: mosaic body %q, nginx %q", c.path, mb, nb)
		}
		for _, h := range c.compare {
			if mr.Header.Get(h) != nr.Header.Get(h) {
				t.Errorf("%s: %s: mosaic %q, nginx %q", c.path, h, mr.Header.Get(h), nr.Header.Get(h))
			}
		}
	}
}

// TestRewriteThroughBinary checks mosaic alone on the same configuration,
// where NGINX may be absent, against the answers NGINX gives.
func TestRewriteThroughBinary(t *testing.T) {
	dir := t.TempDir()
	rewriteSiteFiles(t, dir)
	port := freePort(t)
	p := startMosaic(t, dir, "error_log stderr notice; http {"+rewriteHTTP(dir, "listen 127.0.0.1:{port};")+"}", port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for _, c := range []struct {
		path, status, location, body string
	}{
		// "last" ends the server's directives: the "set" after it does not run.
		{"/srv/abc?z=1", "200", "", "s|/s/abc|z=1|abc|"},
		{"/plain", "200", "", "root|/plain|||server"},
		{"/a/foo/42?k=v", "200", "", "b|/b/42|x=foo&k=v|barfoo|foo"},
		{"/a/red/x?y=1", "301", "http://example.com/x?y=1", ""},
		{"/a/red3/x?y=1", "302", "http://example.com/?n=x&y=1", ""},
		{"/a/noargs/x?y=1", "200", "", "b|/b/x||bar|x"},
		{"/a/br/q", "200", "", "static zz q"},
		// Without a flag the directives go on: the return answers.
		{"/a/cont/c?m=1", "200", "", "a|/b/two-c|m=1"},
		// A regex without groups leaves no $1.
		{"/re/12", "200", "", "b|/b/re||bar|"},
		{"/if/?q=12", "200", "", "num|12"},
		{"/if/?q=ABC-7", "200", "", "word|ABC|7"},
		{"/if/", "200", "", "end||file|notdir"},
		{"/loop/", "500", "", ""},
		{"/ifroot/f.txt?alt=1", "200", "", "alt root"},
		{"/al/q?x=1", "200", "", "static zz q"},
		{"/pal/q?x=1", "200", "", "static zz q"},
		{"/esc/a%20b+c", "200", "", "b|/b/q|v=a%20b%2Bc|bar|a b+c"},
		{"/named/", "200", "", "s|/s/fromnamed|||server"},
		{"/errp/", "200", "", "s|/s/err|||server"},
		{"/order/", "200", "", "first"},
		{"/setorder/", "200", "", "[]"},
		{"/map/?m=one&o=1", "200", "", "over-1"},
		// Ten searches again are allowed, the eleventh is a cycle.
		{"/n/", "200", "", "ten|/n/xxxxxxxxxx"},
		{"/m/", "500", "", ""},
		{"/neg/?a=y&b=xab&f=present.txt", "200", "", "neg|ne|nm|||notexec"},
		{"/neg/?a=x&b=ABC&f=exec.sh", "200", "", "neg|||exec||"},
		{"/neg/?b=aB&f=nosuch", "200", "", "neg|ne|||absent|notexec"},
		// "ssi on" inside "if": the block's location filters the file.
		{"/ssiif/p.txt?s=1", "200", "", "ssi:1|/ssiif/p.txt"},
	} {
		resp, body := do(t, "GET", base+c.path, nil)
		if fmt.Sprint(resp.StatusCode) != c.status || resp.Header.Get("Location") != c.location || (c.body != "" && body != c.body) {
			t.Errorf("%s: %d %q %q; want %s %q %q", c.path, resp.StatusCode, resp.Header.Get("Location"), body, c.status, c.location, c.body)
		}
	}
	resp, _ := do(t, "GET", base+"/evil/", nil)
	if resp.Header.Get("X-First") != "" || resp.Header.Get("X-Second") != "2" {
		t.Errorf("/evil/: the last if block that held must be the location: %v", resp.Header)
	}
	waitOutput(t, p, `rewrite or internal redirection cycle while processing \"/loop/x\"`)
	waitOutput(t, p, `using uninitialized \"late\" variable`)
	waitOutput(t, p, `rewritten data: \"/s/abc\", args: \"z=1\"`)
}

// TestRewriteConfigErrors checks NGINX's refusals, with file:line.
func TestRewriteConfigErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ conf, want string }{
		{`http { server { if ($a) { } } }`, `unknown "a" variable`},
		{`http { server { location ~ (.) { if ($1 = x) { } } } }`, `unknown "1" variable`},
		// Only an unbracketed $1..$9 is a capture (ngx_http_script_compile):
		// "${1}", "${10}" and "$0" name variables, unknown to NGINX too.
		{`http { server { location ~ (.) { return 200 "x${1}"; } } }`, `unknown "1" variable`},
		{`http { server { location ~ (.) { set $v "${10}"; } } }`, `unknown "10" variable`},
		{`http { server { location ~ (.) { rewrite (.*) /$0; } } }`, `unknown "0" variable`},
		{`http { server { location ~ (.) { add_header X $0; } } }`, `unknown "0" variable`},
		{`http { server { location / { if ($uri == x) { } } } }`, `unexpected "==" in condition`},
		{`http { server { location / { if ($uri) { location /x { } } } } }`, `"location" directive is not allowed here`},
		{`http { server { location / { if ($uri) { try_files $uri =404; } } } }`, `"try_files" directive is not allowed here`},
		{`http { server { if ($uri) { add_header X 1; } } }`, `"add_header" directive is not allowed here`},
		{`http { server { location / { if ($uri) { proxy_pass http://127.0.0.1:1/x; } } } }`, `inside "if" statement`},
		{`http { server { location / { rewrite ^ /x forever; } } }`, `invalid parameter "forever"`},
		{`http { server { location / { set $uri x; } } }`, `the duplicate "uri" variable`},
		{`http { server { location / { set foo x; } } }`, `invalid variable name "foo"`},
		{`http { server { location / { rewrite ( /x; } } }`, `pcre2_compile() failed`},
		{`http { rewrite ^ /x; }`, `"rewrite" directive is not allowed here`},
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

// TestRewriteProxiesRewrittenURI checks what an origin receives after a
// rewrite: the rewritten URI and arguments, a proxy_pass inherited by an
// "if" block, and with "break" the whole rewritten URI despite a URI
// part in proxy_pass, as NGINX sends them (NGINX itself gets the same
// requests when it is installed).
func TestRewriteProxiesRewrittenURI(t *testing.T) {
	got := make(chan string, 8)
	origin := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.RequestURI
		fmt.Fprint(w, "origin")
	})}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go origin.Serve(ln)
	t.Cleanup(func() { origin.Close() })
	block := func(listen string) string {
		return fmt.Sprintf(`server { %[2]s
		location /p/ { rewrite ^/p/(.*)$ /up/$1?r=1 break; proxy_pass http://%[1]s; }
		location /u/ { rewrite ^/u/(.*)$ /x/$1 break; proxy_pass http://%[1]s/base/; }
		location /v/ { rewrite ^/v/(.*)$ /x/$1; break; proxy_pass http://%[1]s/base/; }
		location /l/ { proxy_pass http://%[1]s/base/; }
		location /i/ { proxy_pass http://%[1]s; if ($arg_go) { add_header X-If yes; } }
	}`, ln.Addr(), listen)
	}
	dir := t.TempDir()
	ports := []int{freePort(t)}
	startMosaic(t, dir, "http {"+block("listen 127.0.0.1:{port};")+"}", ports[0])
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		ports = append(ports, freePort(t))
		ndir := filepath.Join(dir, "nginx")
		if err := os.MkdirAll(ndir, 0o755); err != nil {
			t.Fatal(err)
		}
		startNGINX(t, ndir, block(fmt.Sprintf("listen 127.0.0.1:%d;", ports[1])), ports[1])
	}
	for i, port := range ports {
		base := fmt.Sprintf("http://127.0.0.1:%d", port)
		for _, c := range []struct{ path, want string }{
			{"/p/a%20b?q=2", "/up/a%20b?r=1&q=2"},
			{"/u/z?k=1", "/x/z?k=1"},
			{"/v/z?k=1", "/x/z?k=1"},
			{"/l/z?k=1", "/base/z?k=1"},
			{"/i/z?go=1", "/i/z?go=1"},
		} {
			resp, body := do(t, "GET", base+c.path, nil)
			if resp.StatusCode != 200 || body != "origin" {
				t.Fatalf("server %d %s: %d %q", i, c.path, resp.StatusCode, body)
			}
			if uri := <-got; uri != c.want {
				t.Errorf("server %d %s: origin got %q, want %q", i, c.path, uri, c.want)
			}
			if c.path == "/i/z?go=1" && resp.Header.Get("X-If") != "yes" {
				t.Errorf("server %d: if block's add_header missing: %v", i, resp.Header)
			}
		}
	}
}

// TestRewriteInSubrequest checks that an ESI fragment's subrequest runs
// the rewrite phases, as NGINX's subrequests do.
func TestRewriteInSubrequest(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	startMosaic(t, dir, `http { server { listen 127.0.0.1:{port};
		location = /page { esi on; default_type text/html; return 200 'A<esi:include src="/frag/x?y=1"/>B'; }
		location /frag/ { rewrite ^/frag/(.*)$ /real/$1 last; }
		location /real/ { return 200 "real $uri $args"; }
	} }`, port)
	if _, body := do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d/page", port), nil); body != "Areal /real/x y=1B" {
		t.Fatalf("page %q", body)
	}
}

// TestErrorPageCycleAsNGINX: an error_page whose target leads back to
// the error (through a rewrite, a named location, itself, or try_files)
// runs into the limit of internal redirects; NGINX then answers 500 and
// logs the cycle, whatever the status the page was for. A 500 of the
// cycle itself is not caught again by error_page 500, not even by a page
// that redirects the client (ldiff28: mosaic sent that redirect). Such a
// page goes with 302 unless "=code" names another redirect ("=404" too,
// which mosaic sent as 404 with a Location).
func TestErrorPageCycleAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	block := func(listen string) string {
		return fmt.Sprintf(`server { %s
			location /c/ { recursive_error_pages on; error_page 404 /d/; return 404; }
			location /d/ { rewrite ^ /c/ last; }
			location /self/ { recursive_error_pages on; error_page 404 /self/; return 404; }
			location /named/ { recursive_error_pages on; error_page 404 = @back; return 404; }
			location @back { rewrite ^ /named/ last; }
			location /t1/ { try_files /nonexistent /t2/; }
			location /t2/ { recursive_error_pages on; error_page 404 /t1/; return 404; }
			location /loop/ { error_page 500 /err; rewrite ^ /loop/ last; }
			location = /err { return 200 "error page"; }
			location /tc/ { error_page 500 =404 http://e.test/err; try_files /nonexistent /tc/; }
			location /ab/ { error_page 404 =404 http://e.test/a; error_page 403 =301 http://e.test/b; if ($arg_f) { return 403; } return 404; }
		}`, listen)
	}
	mport, nport := freePort(t), freePort(t)
	mdir, ndir := filepath.Join(dir, "mosaic"), filepath.Join(dir, "nginx")
	for _, d := range []string{mdir, ndir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	startNGINX(t, ndir, "root "+dir+";"+block(fmt.Sprintf("listen 127.0.0.1:%d;", nport)), nport)
	p := startMosaic(t, mdir, "http { root "+dir+";"+block(fmt.Sprintf("listen 127.0.0.1:%d;", mport))+"}", mport)
	for _, path := range []string{"/c/", "/self/", "/named/", "/t1/", "/loop/", "/tc/", "/ab/", "/ab/?f=1"} {
		sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test", "")
	}
	waitOutput(t, p, `rewrite or internal redirection cycle while internally redirecting to \"/d/\"`)
	waitOutput(t, p, `rewrite or internal redirection cycle while redirect to named location \"@back\"`)
}

// TestRewriteFileTestsAsNGINX: "if (!-e $request_filename)", the test
// of Drupal's and WordPress's configurations, reads the file name that
// the location in force maps the URI to (its root or alias, an "if"
// block's own root, the server's root for the server's own directives)
// while the rewrite directives run, after an internal redirect too, as
// NGINX does: an existing file is served, a missing one
// goes to the front controller, and the guard of PHP locations
// ("if (!-f $document_root$fastcgi_script_name)") lets a script through.
func TestRewriteFileTestsAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/drupal/exists.txt"), "static file")
	writeFile(t, filepath.Join(dir, "sub/f.txt"), "aliased file")
	writeFile(t, filepath.Join(dir, "alt/ir/a.txt"), "alt root file")
	writeFile(t, filepath.Join(dir, "www/index.php"), "<?php")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %[2]s/www;
			set $srvroot $document_root;
			location /srv/ { return 200 "[$srvroot]"; }
			location /drupal/ { if (!-e $request_filename) { rewrite ^/drupal/(.+)$ /drupal/index.php?q=$1 last; } }
			location = /drupal/index.php { return 200 "front controller $arg_q"; }
			location /al/ { alias %[2]s/sub/; if (-f $request_filename) { return 200 "file"; } return 200 "none"; }
			location /ir/ { if ($arg_alt) { root %[2]s/alt; } if (-f $request_filename) { return 200 "file"; } return 200 "none"; }
			location /dr/ { alias %[2]s/sub/; set $d $document_root; return 200 "[$d]"; }
			location /from/ { try_files /nonexistent /al/f.txt; }
			location ~ [^/]\.php(/|$) {
				fastcgi_split_path_info ^(.+?\.php)(/.*)$;
				if (!-f $document_root$fastcgi_script_name) { return 404; }
				return 200 "php $fastcgi_script_name";
			}
		}`, port, dir)
	})
	for _, path := range []string{"/srv/", "/drupal/exists.txt", "/drupal/node/1", "/al/f.txt", "/al/nofile",
		"/ir/a.txt", "/ir/a.txt?alt=1", "/dr/", "/from/", "/index.php/a/b", "/none.php"} {
		sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test", "")
	}
}

// TestServerIfFileTestAsNGINX: a file test in a server's own "if" (the
// usual maintenance switch) runs with the server's settings: with the
// file present the server answers 503, without it the location does.
func TestServerIfFileTestAsNGINX(t *testing.T) {
	nginxPath(t)
	up, down := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(down, "maintenance.html"), "down")
	for _, root := range []string{up, down} {
		mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
			return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s;
				if (-f $document_root/maintenance.html) { return 503; }
				if (!-d %[2]s) { return 500; }
				location / { return 200 "up"; }
			}`, port, root)
		})
		sameAnswer(t, mport, nport, "GET / HTTP/1.1\r\nHost: a.test", "")
	}
}

// TestReturnWithoutTextAsNGINX: "return 200;" (a health check's usual
// answer) sends an empty body typed with default_type, its length said,
// as NGINX does for any status below 400 without text; a 204 has
// neither field.
func TestReturnWithoutTextAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			location = /ok { return 200; }
			location = /json { default_type application/json; return 201; }
			location = /none { return 204; }
		}`, port)
	})
	for _, req := range []string{"GET /ok", "HEAD /ok", "GET /json", "GET /none"} {
		raw := req + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		m, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), raw)
		n, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), raw)
		for _, h := range []string{"Content-Type", "Content-Length"} {
			if m.StatusCode != n.StatusCode || m.Header.Get(h) != n.Header.Get(h) {
				t.Errorf("%s: %s: mosaic %d %q, nginx %d %q", req, h, m.StatusCode, m.Header.Get(h), n.StatusCode, n.Header.Get(h))
			}
		}
	}
}

// TestRewriteEscapesCapturesAsNGINX: a capture of a client's
// percent-encoded path copied into a rewrite's arguments or redirect is
// escaped again with NGINX 1.22's table for arguments, which has `"`,
// "<", ">", "\", "^", "`", "{", "|" and "}" besides the separators: an
// origin that refuses those characters in a request target (Tomcat)
// gets them encoded, and a redirect sends `"` as %22.
func TestRewriteEscapesCapturesAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			location /r/ { rewrite ^/r/(.*)$ http://e.test/$1 redirect; }
			location /i/ { rewrite ^/i/(.*)$ /t/?v=$1 last; }
			location /t/ { return 200 "$args"; }
		}`, port)
	})
	for _, c := range []string{"%22", "%3C", "%3E", "%5C", "%5E", "%60", "%7B", "%7C", "%7D", "%27", "%20%26%2B%3B"} {
		for _, p := range []string{"/r/a", "/i/a"} {
			raw := "GET " + p + c + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
			m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), raw)
			n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), raw)
			mloc, nloc := m.Header.Get("Location"), n.Header.Get("Location")
			if m.StatusCode != n.StatusCode || mloc != nloc || m.StatusCode == 200 && mb != nb {
				t.Errorf("%s%s: mosaic %d %q %q, nginx %d %q %q", p, c, m.StatusCode, mloc, mb, n.StatusCode, nloc, nb)
			}
		}
	}
}

// TestNestedErrorPageStatusAsNGINX: an error page caught again
// (recursive_error_pages) goes with the status the inner error_page
// gives, "=" the page's own: NGINX keeps one err_status per request, and
// the outer page's "=200" no longer applies.
func TestNestedErrorPageStatusAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "e.html"), "error page\n")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s; recursive_error_pages on;
			location /a/ { error_page 404 =200 /pa; return 404; }
			location = /pa { error_page 500 =201 /e.html; return 500; }
			location /b/ { error_page 404 =200 /pb; return 404; }
			location = /pb { error_page 500 = /e.html; return 500; }
			location /c/ { error_page 404 =200 @pc; return 404; }
			location @pc { error_page 500 =202 /e.html; return 500; }
			location /d/ { error_page 404 =200 /pd; return 404; }
			location = /pd { error_page 500 /e.html; return 500; }
		}`, port, dir)
	})
	for _, path := range []string{"/a/", "/b/", "/c/", "/d/"} {
		sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test", "")
	}
}

// TestReturnTextNotCaughtAsNGINX: a return that sends a text (any status)
// or a status below 400 without one is sent by NGINX's
// ngx_http_send_response itself: error_page does not replace it. Only a
// redirect, or 400 and more without text, is an error that error_page
// catches.
func TestReturnTextNotCaughtAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "e.html"), "error page\n")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s;
			error_page 302 305 404 503 /e.html;
			location = /text404 { return 404 "gone"; }
			location = /text503 { return 503 "down"; }
			location = /text305 { return 305 "use"; }
			location = /bare305 { return 305; }
			location = /bare404 { return 404; }
			location = /bare302 { return 302 /x; }
		}`, port, dir)
	})
	for _, path := range []string{"/text404", "/text503", "/text305", "/bare305", "/bare404", "/bare302"} {
		raw := "GET " + path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), raw)
		n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), raw)
		if m.StatusCode != n.StatusCode || mb != nb {
			t.Errorf("%s: mosaic %d %q, nginx %d %q", path, m.StatusCode, mb, n.StatusCode, nb)
		}
	}
}

// TestVariableNamesAsNGINX: NGINX has no "$0" in its templates and
// names the whole word after the "$" of an "if" as one variable, braces
// and all: nginx -t refuses these with unknown "0" variable, unknown
// "{host}" variable. mosaic refuses them in the same words at the
// directive's file:line; "${host}" in ordinary templates, a family's
// name with a "-" in an "if" and a braced name that "set", "map", "geo"
// or "split_clients" defines are accepted by both.
func TestVariableNamesAsNGINX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, c := range []struct{ conf, want string }{
		{`server { location / { set $a $0; } }`, `unknown "0" variable`},
		{`server { location / { return 200 "${0}"; } }`, `unknown "0" variable`},
		{`server { location / { rewrite ^(.*)$ /x$0; } }`, `unknown "0" variable`},
		{`server { location / { if (${host}) { return 200; } } }`, `unknown "{host}" variable`},
		{`server { location / { if (${host} = a) { return 200; } } }`, `unknown "{host}" variable`},
		{`server { location / { if (${host}x) { return 200; } } }`, `unknown "{host}x" variable`},
		{`server { location / { if ($ho-st) { return 200; } } }`, `unknown "ho-st" variable`},
		{`server { location / { set $a ${host}; return 200 "${host}$a"; } }`, ``},
		{`server { location / { if ($http_x-y) { return 200; } } }`, ``},
		// Where NGINX takes the word after "$" as a name to define, the
		// braces are the name's: accepted by both.
		{`server { location / { set ${a} 1; } }`, ``},
		{`map $uri ${m} { default 1; } geo ${g} { default 1; } split_clients x ${s} { * a; }`, ``},
		// ... and "if" reads the same name: the variable "{a}" that set
		// defined, which a template's "${a}" is not.
		{`server { location / { set ${a} 1; if (${a}) { return 204; } } }`, ``},
		{`server { location / { set ${a} 1; return 200 "${a}"; } }`, `unknown "a" variable`},
		// A template's "${" takes a name's characters and then wants "}".
		{`server { location / { return 200 "${http_x-y}"; } }`, `the closing bracket in "http_x" variable is missing`},
		{`server { location / { return 200 "${http_x}-y"; } }`, ``},
		{`server { location / { set $a 1; return 200 "${a"; } }`, `the closing bracket in "a" variable is missing`},
		{`server { location / { return 200 "${a b}"; } }`, `the closing bracket in "a" variable is missing`},
		// A "$" before no name byte, or at the value's end, is refused
		// in these words alone, the file:line following them.
		{`server { location / { return 200 "${}"; } }`, `invalid variable name in /`},
		{`server { location / { return 200 "$-"; } }`, `invalid variable name in /`},
		{`server { location / { return 200 "a$"; } }`, `invalid variable name in /`},
		{`server { location / { set $a "x$"; } }`, `invalid variable name in /`},
		{`server { location / { add_header X "a$"; } }`, `invalid variable name in /`},
		{`server { location / { root /a$; } }`, `invalid variable name in /`},
		{`server { location / { rewrite ^(.*)$ /a$1$ last; } }`, `invalid variable name in /`},
		{`server { location ~ ^/a$ { if ($uri ~ a$) { return 200 "$uri"; } } }`, ``},
	} {
		mout, merr, emerg := testBoth(t, dir, i, c.conf)
		if c.want == "" {
			if merr != nil || emerg != "" {
				t.Errorf("%s: nginx says %q, mosaic %v: %s", c.conf, emerg, merr, mout)
			}
			continue
		}
		if !strings.Contains(emerg, c.want) {
			t.Errorf("%s: nginx says %q, want %q", c.conf, emerg, c.want)
		}
		if merr == nil || !strings.Contains(mout, c.want) || !strings.Contains(mout, fmt.Sprintf("bad%d.conf:2", i)) {
			t.Errorf("%s: mosaic says %v: %s, want %q at bad%d.conf:2", c.conf, merr, mout, c.want, i)
		}
	}
}

// TestIfHeaderNameWithDashAsNGINX: "if ($http_x-y)" loads in both, and
// NGINX, which compares a field's name lower-cased with "-" read as "_"
// byte for byte with the suffix, finds no field for a suffix with a "-":
// the condition is false whatever the client sends.
func TestIfHeaderNameWithDashAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			location / { if ($http_x-y) { return 200 "set\n"; } return 200 "unset\n"; } }`, port)
	})
	for _, field := range []string{"X-Y: a\r\n", "x_y: a\r\n", ""} {
		raw := "GET / HTTP/1.1\r\nHost: a.test\r\n" + field + "Connection: close\r\n\r\n"
		m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), raw)
		n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), raw)
		if m.StatusCode != n.StatusCode || mb != nb {
			t.Errorf("%q: mosaic %d %q, nginx %d %q", field, m.StatusCode, mb, n.StatusCode, nb)
		}
	}
}

// TestMergeTimeValueErrorsAsNGINX: NGINX compiles the values of
// proxy_set_header, grpc_set_header and the gateways' *_param when it
// merges the http block's levels, so a bad one ("a$") fails the
// configuration at the http block's closing "}", and an error that the
// reading finds first (later in the block) is the one reported; index
// compiles its names where it reads them. mosaic says the same words at
// the same file:line.
func TestMergeTimeValueErrorsAsNGINX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, conf := range []string{
		"server { location / {\nproxy_set_header X a$;\nproxy_pass http://127.0.0.1:1; } }",
		"fastcgi_param X a$;\nserver { }",
		"server { location / { uwsgi_param X a$; } }\nserver { location / { scgi_param X a$; } }",
		"server { location / { grpc_set_header X a$; } }",
		"server { location / { proxy_set_header X a$; } }\nproxy_bogus on;",
		"server {\nlocation / { index a$; } }",
	} {
		mout, merr, emerg := testBoth(t, dir, i, conf)
		want := strings.TrimPrefix(emerg, "[emerg] ")
		if want == "" || merr == nil || !strings.Contains(mout, want) {
			t.Errorf("%q: nginx says %q, mosaic %v: %s", conf, emerg, merr, mout)
		}
	}
}
