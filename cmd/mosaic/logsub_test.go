package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// logSubServer serves a page of SSI includes: one with arguments, one of a
// location with log_subrequest off, one missing, and one of a location
// with an access log of its own.
const logSubServer = `
    log_format sub '$uri|$args|$status|$request|$request_method';
    access_log {dir}/{who}-access.log sub;
    log_subrequest on;
    server {
        listen 127.0.0.1:{port};
        root {dir}/www;
        location / { ssi on; }
        location /quiet/ { log_subrequest off; }
        location /other/ { access_log {dir}/{who}-other.log sub; }
    }
`

// TestLogSubrequestMatchesNGINX: with log_subrequest on, each include is a
// line of its location's access log, written when it ends (before the
// page's), with its own URI, arguments and status and the page's request
// line, as NGINX writes them; log_subrequest off in a location keeps its
// subrequests out, and the page itself is logged as always.
func TestLogSubrequestMatchesNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/page.html"), `<p>`+
		`<!--# include virtual="/frag.html?x=1" -->`+
		`<!--# include virtual="/quiet/frag.html" -->`+
		`<!--# include virtual="/missing.html" -->`+
		`<!--# include virtual="/other/frag.html" -->`+
		`</p>`)
	writeFile(t, filepath.Join(dir, "www/frag.html"), "frag")
	writeFile(t, filepath.Join(dir, "www/quiet/frag.html"), "quiet")
	writeFile(t, filepath.Join(dir, "www/other/frag.html"), "other")
	writeFile(t, filepath.Join(dir, "www/plain.html"), "plain")
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return strings.NewReplacer("{dir}", dir, "{who}", who, "{port}", fmt.Sprint(port)).Replace(logSubServer)
	})
	var bodies [2]string
	for i, port := range []int{mport, nport} {
		for _, path := range []string{"/page.html?p=2", "/plain.html"} {
			req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
			resp, body := doRequest(t, req)
			if resp.StatusCode != 200 {
				t.Fatalf("%s: status %d", path, resp.StatusCode)
			}
			if path == "/page.html?p=2" {
				bodies[i] = body
			}
		}
	}
	// mosaic signs its error pages with its own name.
	if bodies[0] != strings.ReplaceAll(bodies[1], "nginx/1.22.1", "mosaic") {
		t.Errorf("page: %q, NGINX %q", bodies[0], bodies[1])
	}
	for _, log := range []string{"access", "other"} {
		want := 4 // two includes (the third is quiet), the page, the plain file
		if log == "other" {
			want = 1 // the include of /other/, in its location's log
		}
		m := waitLog(t, filepath.Join(dir, "m-"+log+".log"), want)
		n := waitLog(t, filepath.Join(dir, "n-"+log+".log"), want)
		// The includes run in parallel: their lines may come in any order,
		// all before the page's.
		if log == "access" && len(m) == want && !strings.HasPrefix(m[2], "/page.html|") {
			t.Errorf("the page's line is not after its includes':\n%s", strings.Join(m, "\n"))
		}
		ms, ns := slices.Sorted(slices.Values(m)), slices.Sorted(slices.Values(n))
		if !slices.Equal(ms, ns) {
			t.Errorf("%s log:\n%s\nNGINX's:\n%s", log, strings.Join(m, "\n"), strings.Join(n, "\n"))
		}
		if len(n) != want {
			t.Errorf("NGINX's %s log has %d lines, the test expects %d:\n%s", log, len(n), want, strings.Join(n, "\n"))
		}
	}
}

// TestLogSubrequestBytesAsNGINX (fidelity18): a subrequest's line has
// the fragment's $status and $uri in both servers, but $body_bytes_sent
// differs, kept apart: NGINX's is its connection's bytes sent so far
// less the subrequest's header (which it has none of), 0 for an include
// of a short page, whose header and text NGINX holds until
// postpone_output's 1,460 bytes or the end; a page whose first part had
// gone out would log that part for the include. mosaic logs the bytes of
// the fragment.
func TestLogSubrequestBytesAsNGINX(t *testing.T) {
	nginxPath(t)
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/page.html"), `A<!--# include virtual="/frag.txt" -->B`)
	writeFile(t, filepath.Join(dir, "www/frag.txt"), "fragment\n")
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`log_format b "$uri $status $body_bytes_sent";
			server { listen 127.0.0.1:%d; root %s/www; access_log %[2]s/%[3]s.log b;
				log_subrequest on; location = /page.html { ssi on; } }`, port, dir, who)
	})
	for _, port := range []int{mport, nport} {
		if res, body := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), "GET /page.html HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"); res.StatusCode != 200 || body != "Afragment\nB" {
			t.Fatalf("port %d: %d %q", port, res.StatusCode, body)
		}
	}
	for who, want := range map[string]string{"m": "/frag.txt 200 9", "n": "/frag.txt 200 0"} {
		if got := waitLog(t, filepath.Join(dir, who+".log"), 2)[0]; got != want {
			t.Errorf("%s: the include's line %q, want %q", who, got, want)
		}
	}
}
