package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestErrorPageLevelsAsNGINX (fidelity18) compares beside Debian's
// NGINX what no test compared: error_page inherited from http into a
// location and its if blocks, and lost where a level sets pages of its
// own (for another code too); error_page with "=code", "=" and a named
// location set inside an if block; internal locations reached by
// error_page (from a location, and from try_files' "=404") and by
// try_files' fallback; and log_not_found off (in a location, for
// try_files' "=404" and for a missing error page) and on again in a
// nested location; a code given a page twice at one level, which keeps
// the first (ldiff28: mosaic took the last). Statuses, bodies (the
// servers sign their own pages),
// the access log and the paths the error logs say were not found are
// the same.
func TestErrorPageLevelsAsNGINX(t *testing.T) {
	nginxPath(t)
	t.Parallel()
	dir := t.TempDir()
	www := filepath.Join(dir, "www")
	writeFile(t, filepath.Join(www, "page.html"), "page\n")
	writeFile(t, filepath.Join(www, "e/404.html"), "e404\n")
	writeFile(t, filepath.Join(www, "e/500.html"), "e500\n")
	block := func(port int, log string) string {
		return fmt.Sprintf(`log_format f "$request_uri $uri $status";
		error_page 404 /e/404.html;
		server { listen 127.0.0.1:%d; root %s; access_log %s f;
			location /own/ { error_page 500 /e/500.html; return 404; }
			location /inh/ { if ($arg_a) { return 404; } return 404; }
			location /loc/ { error_page 404 =201 /page.html; if ($arg_a) { return 404; } return 404; }
			location /ifcode/ { if ($arg_a) { error_page 404 =202 /page.html; } return 404; }
			location /ifown/ { if ($arg_a) { error_page 404 = /page.html; return 404; } return 404; }
			location /ifnamed/ { if ($arg_a) { error_page 404 = @v; return 404; } return 404; }
			location @v { return 200 "named $status $uri $args"; }
			location /int/ { internal; return 200 "internal $status $uri"; }
			location /toint/ { error_page 404 /int/x; return 404; }
			location /tryint/ { try_files /nope /int/y; }
			location /trycode/ { error_page 404 /int/z; try_files /nope =404; }
			location /nf/ { log_not_found off; location /nf/on/ { log_not_found on; } }
			location /nftry/ { log_not_found off; try_files $uri =404; }
			location /nfpage/ { log_not_found off; error_page 404 /missing-page.html; }
			location /page/ { error_page 404 /nf/missing-page.html; }
			location /twice/ { error_page 404 /page.html; error_page 500 404 =201 /e/500.html; if ($arg_s) { return 500; } return 404; }
		}`, port, www, log)
	}
	ndir, mdir := filepath.Join(dir, "nginx"), filepath.Join(dir, "mosaic")
	for _, d := range []string{ndir, mdir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mport, nport := freePort(t), freePort(t)
	nlog, mlog := filepath.Join(ndir, "access.log"), filepath.Join(mdir, "access.log")
	startNGINX(t, ndir, block(nport, nlog), nport)
	p := startMosaic(t, mdir, "http {"+block(mport, mlog)+"}", mport)

	paths := []string{
		"/own/", "/inh/", "/inh/?a=1", "/loc/", "/loc/?a=1", "/ifcode/", "/ifcode/?a=1",
		"/ifown/?a=1", "/ifnamed/", "/ifnamed/?a=1", "/int/x", "/toint/", "/tryint/", "/trycode/",
		"/nf/a", "/nf/on/b", "/nftry/c", "/nfpage/d", "/page/e", "/twice/", "/twice/?s=1",
	}
	for _, path := range paths {
		req := "GET " + path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
		n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
		if m.StatusCode != n.StatusCode || mb != strings.ReplaceAll(nb, "nginx/1.22.1", "mosaic") {
			t.Errorf("%s: mosaic %d %q, nginx %d %q", path, m.StatusCode, mb, n.StatusCode, nb)
		}
	}
	ml, nl := waitLog(t, mlog, len(paths)), waitLog(t, nlog, len(paths))
	if !slices.Equal(ml, nl) {
		t.Errorf("access log:\n%s\nNGINX's:\n%s", strings.Join(ml, "\n"), strings.Join(nl, "\n"))
	}

	// The files each server says it did not find, in request order.
	nerr, err := os.ReadFile(filepath.Join(ndir, "error.log"))
	if err != nil {
		t.Fatal(err)
	}
	var nmiss []string
	for _, m := range regexp.MustCompile(`open\(\) "([^"]+)" failed`).FindAllStringSubmatch(string(nerr), -1) {
		nmiss = append(nmiss, m[1])
	}
	want := []string{www + "/nf/on/b", www + "/missing-page.html", www + "/page/e"}
	if !slices.Equal(nmiss, want) {
		t.Fatalf("NGINX's error log names %q, the test expects %q", nmiss, want)
	}
	waitOutput(t, p, "path="+want[len(want)-1]+" ")
	var mmiss []string
	for _, m := range regexp.MustCompile(`msg="static: open failed" path=(\S+)`).FindAllStringSubmatch(p.out.String(), -1) {
		mmiss = append(mmiss, m[1])
	}
	if !slices.Equal(mmiss, nmiss) {
		t.Errorf("mosaic's error log names %q, NGINX's %q", mmiss, nmiss)
	}
}
