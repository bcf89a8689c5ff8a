package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// try_files tells a file from a directory by how its argument is written
// ("$uri/" asks for a directory and is tried without the slash, so /sub
// gets the static handler's 301; "$uri" never takes a directory), and an
// error page that fails answers with its own status (a missing page:
// 404), as NGINX does; both found serving real configurations side by
// side with NGINX (internal/bench/realworld.sh). Compared with Debian's
// NGINX when present.
func TestTryFilesAndErrorPagesMatchNGINX(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"sub", "f"} {
		writeFile(t, filepath.Join(dir, d, "index.html"), d+" index\n")
	}
	site := func(listen string) string {
		return fmt.Sprintf(`access_log off;
			server { listen %s; root %s;
				location / { try_files $uri $uri/ =404; }
				location /f/ { try_files $uri @named; }
				location @named { return 200 "named\n"; }
				location /e/ { return 502; }
				error_page 502 /nope.html;
			}`, listen, dir)
	}
	cases := []struct{ path, want string }{
		{"/sub", "301 /sub/"},
		{"/sub/", "200 sub index\n"},
		{"/f/", "200 named\n"},
		{"/e/", "404"},
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	check := func(name string, port int) {
		for _, c := range cases {
			resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, c.path))
			if err != nil {
				t.Fatal(err)
			}
			var got string
			switch {
			case resp.StatusCode == http.StatusMovedPermanently:
				loc := resp.Header.Get("Location")
				got = "301 " + loc[strings.LastIndex(loc, "/sub"):]
			case resp.StatusCode == http.StatusOK:
				b := make([]byte, 64)
				n, _ := resp.Body.Read(b)
				got = "200 " + string(b[:n])
			default:
				got = fmt.Sprint(resp.StatusCode)
			}
			resp.Body.Close()
			if got != c.want {
				t.Errorf("%s %s: %q, want %q", name, c.path, got, c.want)
			}
		}
	}
	port := freePort(t)
	startMosaic(t, t.TempDir(), "http { "+site("127.0.0.1:{port}")+" }", port)
	check("mosaic", port)
	if _, err := os.Stat("/usr/sbin/nginx"); err != nil {
		return
	}
	nport := freePort(t)
	startNGINX(t, t.TempDir(), site(fmt.Sprintf("127.0.0.1:%d", nport)), nport)
	check("nginx", nport)
}

// TestTryFilesCodeAsNGINX (ldiff28): try_files' "=code" is what NGINX's
// handler gives ngx_http_finalize_request, which answers 201, 204 and
// 300 up with a page, closes the connection for 444, 408 and 499, and
// sends nothing for the other codes below 300 ("=200", "=99"). mosaic
// sent those as statuses (a 444 page, a 200, a 150 followed by a 200)
// and failed on "=99"; and "nginx -t" refuses a code above 999 or with
// a sign, which mosaic loaded. The access logs agree: 444, 408 and 499
// logged as such, "000" for a code sent as nothing, or the status of
// the error page such a code ends (rv-ldiff28: mosaic logged "200",
// "099").
func TestTryFilesCodeAsNGINX(t *testing.T) {
	nginxPath(t)
	t.Parallel()
	dir := t.TempDir()
	codes := []string{"99", "150", "200", "201", "204", "301", "403", "408", "444", "999"}
	logs := map[string]string{"n": filepath.Join(dir, "nginx", "access.log"), "m": filepath.Join(dir, "mosaic", "access.log")}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		var locs strings.Builder
		for _, c := range codes {
			fmt.Fprintf(&locs, "location /c%s/ { try_files /none =%[1]s; }\n", c)
		}
		return fmt.Sprintf(`log_format st "$uri $status"; access_log %s st;
			server { listen 127.0.0.1:%d; root %s;
			location /ep200/ { error_page 404 /c200/; return 404; }
			%s}`, logs[who], port, dir, locs.String())
	})
	paths := []string{"/ep200/"}
	for _, c := range codes {
		paths = append(paths, "/c"+c+"/")
	}
	for _, path := range paths {
		raw := "GET " + path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		m, _, merr := testclient.RawTry("tcp", fmt.Sprintf("127.0.0.1:%d", mport), raw)
		n, _, nerr := testclient.RawTry("tcp", fmt.Sprintf("127.0.0.1:%d", nport), raw)
		if (merr == nil) != (nerr == nil) || merr == nil && m.StatusCode != n.StatusCode {
			t.Errorf("%s: mosaic %v %v, nginx %v %v", path, statusOf(m), merr, statusOf(n), nerr)
		}
	}
	// Sorted: a line may be written after the connection closed.
	ml, nl := waitLog(t, logs["m"], len(paths)), waitLog(t, logs["n"], len(paths))
	slices.Sort(ml)
	slices.Sort(nl)
	if !slices.Equal(ml, nl) {
		t.Errorf("access log:\n%s\nNGINX's:\n%s", strings.Join(ml, "\n"), strings.Join(nl, "\n"))
	}
	for i, code := range []string{"1000", "-1", "+5", "", "0"} {
		mout, merr, emerg := testBoth(t, dir, i, "server { location / { try_files /x ="+code+"; } }")
		if (merr == nil) != (emerg == "") {
			t.Errorf("=%s: nginx says %q, mosaic %v: %s", code, emerg, merr, mout)
		}
	}
}

// statusOf is a response's status code, 0 for none.
func statusOf(r *http.Response) int {
	if r == nil {
		return 0
	}
	return r.StatusCode
}

// TestErrorPageCodeDigitsAsNGINX: error_page reads its codes and its
// "=code" with ngx_atoi, digits only, so a sign is an invalid value at
// -t; mosaic read them with strconv.Atoi and took "+404" and "=+302"
// (rd4), as try_files' "=code" before ldiff28.
func TestErrorPageCodeDigitsAsNGINX(t *testing.T) {
	nginxPath(t)
	t.Parallel()
	dir := t.TempDir()
	for i, args := range []string{"404 /x", "+404 /x", "404 =+302 /x", "404 =-1 /x", "404 =0302 /x", "0404 /x"} {
		mout, merr, emerg := testBoth(t, dir, i, "server { location / { error_page "+args+"; } }")
		if (merr == nil) != (emerg == "") {
			t.Errorf("error_page %s: nginx says %q, mosaic %v: %s", args, emerg, merr, mout)
		}
	}
}
