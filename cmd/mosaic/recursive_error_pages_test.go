package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecursiveErrorPagesAsNGINX: with recursive_error_pages on, an error
// raised inside the page's own location (a missing page, a page location
// that returns another status, with or without an error_page of its own,
// a page that leads back to itself) is answered, logged and written to
// the error log as NGINX does. An error no page catches is the request's
// $status (NGINX's special response sets err_status), not the status the
// page was to go with: mosaic logged "=200"'s 200 for a missing page and
// the first 404 for the cycle's 500. GET and HEAD.
func TestRecursiveErrorPagesAsNGINX(t *testing.T) {
	nginxPath(t)
	t.Parallel()
	dir := t.TempDir()
	www := filepath.Join(dir, "www")
	writeFile(t, filepath.Join(www, "page.html"), "page\n")
	writeFile(t, filepath.Join(www, "e/500.html"), "e500\n")
	block := func(port int, log string) string {
		return fmt.Sprintf(`log_format f "$uri $status $body_bytes_sent";
		server { listen 127.0.0.1:%d; root %s; access_log %s f;
			location /missing/ { recursive_error_pages on; error_page 404 =200 /missing.html; return 404; }
			location /other/ { recursive_error_pages on; error_page 404 =200 /p503; return 404; }
			location = /p503 { return 503; }
			location /caught/ { recursive_error_pages on; error_page 404 =200 /p503page; return 404; }
			location = /p503page { error_page 503 /e/500.html; return 503; }
			location /named/ { recursive_error_pages on; error_page 404 =200 @gone; return 404; }
			location @gone { return 410; }
			location /off/ { recursive_error_pages on; error_page 404 /p503off; return 404; }
			location = /p503off { recursive_error_pages off; error_page 503 /p502; return 503; }
			location = /p502 { error_page 502 /e/500.html; return 502; }
			location /loop/ { recursive_error_pages on; error_page 404 /loop; return 404; }
			location = /loop { recursive_error_pages on; error_page 404 /loop; return 404; }
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

	n := 0
	for _, c := range []struct{ path, status string }{
		{"/missing/", "404"}, {"/other/", "503"}, {"/caught/", "503"}, {"/named/", "410"},
		{"/off/", "502"}, {"/loop/", "500"},
	} {
		for _, method := range []string{"GET", "HEAD"} {
			req := method + " " + c.path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
			m, nx := loggedAnswer(t, sendUntilClosed(t, mport, req)), loggedAnswer(t, sendUntilClosed(t, nport, req))
			n++
			ml, nl := waitLog(t, mlog, n)[n-1], waitLog(t, nlog, n)[n-1]
			// Each signs its own pages: the lengths are compared with
			// what each sent, the statuses and $uri between the two.
			if !strings.HasSuffix(ml, " "+m) || !strings.HasSuffix(nl, " "+nx) ||
				strings.Fields(ml)[0] != strings.Fields(nl)[0] || strings.Fields(m)[0] != c.status ||
				strings.Fields(nx)[0] != c.status {
				t.Errorf("%s %s: mosaic sent %s, logged %q; NGINX sent %s, logged %q; want %s",
					method, c.path, m, ml, nx, nl, c.status)
			}
		}
	}

	// The error logs: the missing page's open, and the cycle.
	nerr, err := os.ReadFile(filepath.Join(ndir, "error.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		fmt.Sprintf(`open() "%s/missing.html" failed (2: No such file or directory)`, www),
		`rewrite or internal redirection cycle while internally redirecting to "/loop"`,
	} {
		if !strings.Contains(string(nerr), want) {
			t.Errorf("NGINX's error log lacks %q:\n%s", want, nerr)
		}
	}
	waitOutput(t, p, fmt.Sprintf(`path=%s/missing.html`, www))
	waitOutput(t, p, `rewrite or internal redirection cycle while internally redirecting to \"/loop\"`)
}
