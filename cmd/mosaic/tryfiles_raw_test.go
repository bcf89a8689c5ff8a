package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestTryFilesRawCandidatesAsNGINX: NGINX writes a try_files candidate
// right after the root (which has lost the "/" it was written with) or
// the alias, without a "/" between: "root /srv/www; try_files x.txt"
// names /srv/wwwx.txt, a regex location's "alias /srv/d; try_files x.txt"
// names /srv/dx.txt, "try_files ../up.txt" /srv/www../up.txt (no ".."
// segment in it). Under a prefix location's alias, a
// candidate with variables loses the location's prefix where it starts
// with it, one without variables does not ("try_files /pc/x.txt" is
// alias + "/pc/x.txt"), and a file found has the prefix and the rest as
// its $uri. A root whose value (a variable's) ends in "/" keeps it, so
// the candidate is below the root ("/rz/"). mosaic looked candidates up
// below the root and the alias and served /srv/www/x.txt and
// /srv/d/x.txt, stripped the prefix of every candidate, and gave $uri
// the candidate as written (and, marking only a merged candidate for
// the static handler, took /rz/'s x.txt as missing). Beside Debian's
// NGINX: statuses, bodies, $uri and $request_filename (a header and the
// access log).
func TestTryFilesRawCandidatesAsNGINX(t *testing.T) {
	nginxPath(t)
	t.Parallel()
	dir := t.TempDir()
	www := filepath.Join(dir, "www")
	for name, body := range map[string]string{
		"www/x.txt": "x", "www/dx.txt": "dx", "www/d/x.txt": "d/x", "wwwx.txt": "wwwx",
		"wwwsib.txt": "sibling", "wwwdir/index.html": "index", "www/sub/x.txt": "subx",
		"www/sub/pa/x.txt": "sub-pa-x", "www../up.txt": "up",
	} {
		writeFile(t, filepath.Join(dir, name), body)
	}
	logs := t.TempDir()
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`log_format f "$request_uri $uri $status";
		server { listen 127.0.0.1:%d; root %[2]s; absolute_redirect off; access_log %[3]s/%[4]s.log f;
			add_header X-F "$uri|$request_filename" always;
			location /rt/ { try_files x.txt =404; }
			location /rv/ { try_files $arg_f dir/$arg_f =404; }
			location /ru/ { try_files ../up.txt =404; }
			location /rs/ { root %[2]s/; try_files x.txt =404; }
			location /rz/ { set $r %[2]s/; root $r; try_files x.txt =404; }
			location /rfb/ { try_files nope.txt /fb; }
			location = /fb { return 200 "fb $uri"; }
			location ~ ^/ra/(.*)$ { alias %[2]s/; try_files $1 =404; }
			location ~ ^/rb/ { alias %[2]s/d; try_files x.txt =404; }
			location ~ ^/rc/(.*)$ { alias %[2]s/d/; try_files x.txt $1 =404; }
			location /pa/ { alias %[2]s/sub/; try_files $arg_f =404; }
			location /pb/ { alias %[2]s/sub/; try_files x.txt =404; }
			location /pc/ { alias %[2]s/sub/; try_files /pc/x.txt /pa/x.txt =404; }
			location /pd/ { alias %[2]s/sub/; try_files /x.txt =404; }
			location /rd/ { try_files sib.txt/ dir/ =404; }
		}`, port, www, logs, who)
	})
	paths := []string{
		"/rt/a", "/rv/a?f=index.html", "/rv/a?f=nope.txt", "/rv/a?f=/x.txt", "/ru/a", "/rs/a", "/rz/a", "/rfb/a",
		"/ra/x.txt", "/ra/d/x.txt", "/ra/nope", "/rb/q", "/rc/zz",
		"/pa/a?f=x.txt", "/pa/a?f=/pa/x.txt", "/pa/a?f=pa/x.txt", "/pa/a?f=/x.txt",
		"/pb/a", "/pc/a", "/pd/a",
	}
	for _, path := range paths {
		req := "GET " + path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
		n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
		if m.StatusCode != n.StatusCode || m.StatusCode == http.StatusOK && mb != nb || m.Header.Get("X-F") != n.Header.Get("X-F") {
			t.Errorf("%s: mosaic %d %q %q, nginx %d %q %q", path,
				m.StatusCode, mb, m.Header.Get("X-F"), n.StatusCode, nb, n.Header.Get("X-F"))
		}
	}
	mlog := waitLog(t, filepath.Join(logs, "m.log"), len(paths))
	nlog := waitLog(t, filepath.Join(logs, "n.log"), len(paths))
	for i := range paths {
		if mlog[i] != nlog[i] {
			t.Errorf("access log: mosaic %q, nginx %q", mlog[i], nlog[i])
		}
	}

	// A directory found by a candidate without "/" ("try_files dir/"
	// finds /srv/wwwdir) is the URI "dir", which both redirect to add
	// the slash; NGINX's Location is "dir/", relative to nothing
	// (with absolute_redirect on, "http://a.testdir/"), mosaic's the
	// path "/dir/" (kept apart: its directory redirect names a path
	// from the root, leading slashes merged).
	for port, want := range map[int]string{mport: "/dir/", nport: "dir/"} {
		res, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), "GET /rd/a HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
		if res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != want {
			t.Errorf("/rd/a on %d (mosaic %d): %d %q, want 301 to %q", port, mport, res.StatusCode, res.Header.Get("Location"), want)
		}
	}
}

// TestTryFilesRawCandidateClimbRefused: a candidate without "/" written
// after the root continues the root's last segment, so a client's value
// there picks among the root's neighbours ("try_files $arg_f" with
// f=_private/key.txt names /srv/www_private/key.txt, and f=x/in.txt
// /srv/wwwx/in.txt), and a ".." climbs from one ("x/../secret.txt" is
// /srv/secret.txt): NGINX follows both, mosaic takes the candidate as
// missing, as it does a root's own climbing variables. A merged segment
// the configuration wrote ("x/$arg_f") is followed; a ".." after it is
// not (below the root, "x/../secret.txt" would have found
// /srv/www/secret.txt while $request_filename named /srv/secret.txt).
// The content is empty_gif, which serves whatever try_files lets
// through (a gateway would be handed $request_filename), so the answer
// is the lookup's. A URI without "/" that try_files did not find (a
// rewrite's "$1 break") is no candidate at all: the static handler
// takes it as missing, where NGINX serves the neighbour the client
// named.
func TestTryFilesRawCandidateClimbRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"www/index.html": "root", "www/secret.txt": "inside", "www/x/keep": "",
		"wwwx/in.txt": "neighbour", "www_private/key.txt": "key", "secret.txt": "secret",
		"d_private/key.txt": "key",
	} {
		writeFile(t, filepath.Join(dir, name), body)
	}
	port := freePort(t)
	startMosaic(t, t.TempDir(), fmt.Sprintf(`http { server { listen 127.0.0.1:%d; root %[2]s/www;
		location /q/ { try_files $arg_f =404; empty_gif; }
		location /c/ { try_files x/$arg_f =404; empty_gif; }
		location ~ ^/a/(.*)$ { alias %[2]s/d; try_files $1 =404; empty_gif; }
		location /rw/ { rewrite ^/rw/(.*)$ $1 break; } } }`, port, dir), port)
	for path, want := range map[string]int{
		"/q/?f=x/in.txt": 404, "/q/?f=_private/key.txt": 404, "/q/?f=x/../secret.txt": 404,
		"/q/?f=x/../wwwx/in.txt": 404, "/q/?f=/secret.txt": 200,
		"/c/?f=in.txt": 200, "/c/?f=../secret.txt": 404, "/c/?f=../wwwx/in.txt": 404,
		"/a/_private/key.txt": 404, "/rw/_private/key.txt": 404, "/rw/x/in.txt": 404,
	} {
		if res, _ := testclient.Do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, path)); res.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, res.StatusCode, want)
		}
	}
}
