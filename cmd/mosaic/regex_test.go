package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// regexHTTP is an http block whose locations and server names need PCRE:
// look-ahead and look-behind, back-references, named captures as
// variables, \K (which moves $0's start, not the groups), $ before a
// final newline, bytes above 0x7f, and NGINX's rule that a server_name
// regex with an upper-case letter is caseless.
func regexHTTP(listen string) string {
	return fmt.Sprintf(`
	access_log off;
	server {
		%[1]s
		server_name default.test;
		location / { return 200 "root|$uri"; }
		location ~ ^/app/(?!admin/)(?<rest>.*)$ { return 200 "app|$rest|$1"; }
		location ~* (?<!\.min)\.JS$ { return 200 "js|$uri"; }
		location ~ ^/twice/(\w+)/\1$ { return 200 "twice|$1"; }
		location ~ ^/nl/.*\.txt$ { return 200 "txt"; }
		location ~ ^/(?P<section>[a-z]+)/(?'id'\d+)$ { return 200 "named|$section|$id|$1|$2"; }
		location ~ ^/bytes/(.)(.)$ { return 200 "bytes|$1|$2"; }
		location ~ ^/keep/(\w)\K(?<kn>\w+)/(\d+)$ { return 200 "keep|$kn|$1|$2|$3"; }
	}
	server {
		%[1]s
		server_name ~^(?!www\.)(?<sub>[a-z0-9-]+)\.example\.test$;
		location / { return 200 "sub|$sub|$1|$host"; }
	}
	server {
		%[1]s
		server_name ~^WWW\.(.+)$;
		location / { return 200 "www|$1"; }
	}`, listen)
}

var regexCases = []struct {
	host, path string
}{
	{"default.test", "/app/page/1"},
	{"default.test", "/app/admin/users"},
	{"default.test", "/static/app.js"},
	{"default.test", "/static/app.min.js"},
	{"default.test", "/static/APP.JS"},
	{"default.test", "/twice/ab/ab"},
	{"default.test", "/twice/ab/cd"},
	{"default.test", "/nl/a.txt"},
	{"default.test", "/nl/a.txt%0A"},
	{"default.test", "/nl/a.txt%0A%0A"},
	{"default.test", "/post/17"},
	{"default.test", "/bytes/%C3%A9"},
	{"default.test", "/keep/ab/12"},
	{"shop.example.test", "/x"},
	{"www.example.test", "/x"},
	{"WWW.Example.Test", "/y"},
}

// TestRegexMatchNGINX serves the same configuration with mosaic and NGINX
// and compares what each request gets.
func TestRegexMatchNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := freePort(t), freePort(t)
	mdir, ndir := filepath.Join(dir, "mosaic"), filepath.Join(dir, "nginx")
	for _, d := range []string{mdir, ndir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	startMosaic(t, mdir, "error_log stderr notice; http {"+regexHTTP(fmt.Sprintf("listen 127.0.0.1:%d;", mport))+"}", mport)
	startNGINX(t, ndir, regexHTTP(fmt.Sprintf("listen 127.0.0.1:%d;", nport)), nport)
	for _, c := range regexCases {
		h := map[string]string{"Host": c.host}
		mr, mb := do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d%s", mport, c.path), h)
		nr, nb := do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d%s", nport, c.path), h)
		if mr.StatusCode != nr.StatusCode || mb != nb {
			t.Errorf("%s %s: mosaic %d %q, nginx %d %q", c.host, c.path, mr.StatusCode, mb, nr.StatusCode, nb)
		}
	}
}

// TestRegexThroughBinary checks the answers themselves, NGINX or not.
func TestRegexThroughBinary(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	startMosaic(t, dir, "error_log stderr notice; http {"+regexHTTP("listen 127.0.0.1:{port};")+"}", port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for _, c := range []struct{ host, path, want string }{
		{"default.test", "/app/page/1", "app|page/1|page/1"},
		{"default.test", "/app/admin/users", "root|/app/admin/users"},
		{"default.test", "/static/APP.JS", "js|/static/APP.JS"},
		{"default.test", "/static/app.min.js", "root|/static/app.min.js"},
		{"default.test", "/twice/ab/ab", "twice|ab"},
		{"default.test", "/twice/ab/cd", "root|/twice/ab/cd"},
		{"default.test", "/nl/a.txt%0A", "txt"},
		{"default.test", "/post/17", "named|post|17|post|17"},
		{"default.test", "/bytes/%C3%A9", "bytes|\xc3|\xa9"},
		{"default.test", "/keep/ab/12", "keep|b|a|b|12"},
		{"shop.example.test", "/x", "sub|shop|shop|shop.example.test"},
		{"www.example.test", "/x", "www|example.test"},
	} {
		_, body := do(t, "GET", base+c.path, map[string]string{"Host": c.host})
		if body != c.want {
			t.Errorf("%s %s: %q, want %q", c.host, c.path, body, c.want)
		}
	}
}

// TestRegexLimitThroughBinary: a location regex whose match runs away
// (backtracking exponentially) is stopped; the request gets 500 and the
// error log says why, as NGINX does when PCRE gives up.
func TestRegexLimitThroughBinary(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	p := startMosaic(t, dir, `error_log stderr notice; http { access_log off; server { listen 127.0.0.1:{port};
		location ~ ^/(?=a)(a+)+$ { return 200 "never"; }
		location / { return 200 "ok"; }
	} }`, port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	start := time.Now()
	resp, _ := do(t, "GET", base+"/"+strings.Repeat("a", 40)+"!", nil)
	if resp.StatusCode != 500 {
		t.Errorf("runaway match: status %d, want 500", resp.StatusCode)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the request took %v", d)
	}
	if _, body := do(t, "GET", base+"/aaa", nil); body != "never" {
		t.Errorf("/aaa: %q", body)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(p.out.String(), `pcre2_match() failed`) {
		if time.Now().After(deadline) {
			t.Fatalf("no error-log line for the runaway match:\n%s", p.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRewriteRegexLimitLogged: a runaway match in "if" or "rewrite" is a
// 500 whose error-log line says, as NGINX's ngx_http_regex_exec does,
// "pcre2_match() failed: ... on <subject> using <pattern>", the line a
// location's match has; mosaic logged the bare PCRE error.
func TestRewriteRegexLimitLogged(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	p := startMosaic(t, dir, `error_log stderr notice; http { access_log off; server { listen 127.0.0.1:{port};
		location /if/ { if ($uri ~ ^/if/(?=a)(a+)+$) { return 200 "never"; } return 200 "ok"; }
		location /rw/ { rewrite ^/rw/(?=a)(a+)+$ /never; return 200 "ok"; }
	} }`, port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for _, c := range []struct{ dir, pattern string }{
		{"if", `^/if/(?=a)(a+)+$`},
		{"rw", `^/rw/(?=a)(a+)+$`},
	} {
		uri := "/" + c.dir + "/" + strings.Repeat("a", 40) + "!"
		if resp, _ := do(t, "GET", base+uri, nil); resp.StatusCode != 500 {
			t.Errorf("%s: status %d, want 500", uri, resp.StatusCode)
		}
		// The limit's error may say which bound it was: "exceeded (100ms)".
		head := `msg="pcre2_match() failed: regular expression match limit exceeded`
		tail := fmt.Sprintf(` on \"%s\" using \"%s\""`, uri, c.pattern)
		logged := func() bool {
			for _, line := range strings.Split(p.out.String(), "\n") {
				if strings.Contains(line, head) && strings.Contains(line, tail) {
					return true
				}
			}
			return false
		}
		deadline := time.Now().Add(5 * time.Second)
		for !logged() {
			if time.Now().After(deadline) {
				t.Fatalf("no error-log line %s...%s:\n%s", head, tail, p.out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
