package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/internal/testuwsgi"
)

// accelOrigin answers every request with an X-Accel-Redirect chosen by
// its path, and a body that must never reach the client. It counts the
// requests each server (X-Who) sent.
type accelOrigin struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newAccelOrigin(t *testing.T) *accelOrigin {
	o := &accelOrigin{hits: map[string]int{}}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.hits[r.Header.Get("X-Who")+" "+r.URL.Path]++
		o.mu.Unlock()
		h := w.Header()
		if r.Header.Get("X-Second") != "" {
			// A second upstream, reached through a named location: its
			// Content-Type is the one that counts.
			h.Set("Content-Type", "text/csv")
			fmt.Fprint(w, "second upstream "+r.Method)
			return
		}
		p := r.URL.Path
		p = p[strings.Index(p[1:], "/")+1:] // without the location's prefix
		switch p {
		case "/file":
			h.Set("X-Accel-Redirect", "/protected/file.pdf")
			h.Set("Content-Type", "application/pdf")
			h.Add("Set-Cookie", "dl=1; Path=/")
			h.Add("Set-Cookie", "seen=yes")
			h.Set("Content-Disposition", `attachment; filename="report.pdf"`)
			h.Set("Cache-Control", "max-age=60")
			h.Set("X-App", "hidden on redirect")
		case "/notype":
			h.Set("X-Accel-Redirect", "/protected/file.pdf")
			h["Content-Type"] = nil
		case "/twotypes":
			// Two Content-Type lines: the last one counts in NGINX
			// (its copy handler overwrites the type for each line).
			h.Set("X-Accel-Redirect", "/protected/file.pdf")
			h["Content-Type"] = []string{"text/first", "application/x-last"}
		case "/args":
			h.Set("X-Accel-Redirect", "/protected/echo?x=1&y=%20two")
		case "/noargs":
			h.Set("X-Accel-Redirect", "/protected/echo")
		case "/escaped":
			h.Set("X-Accel-Redirect", "/protected/fi%6Ce.pdf")
		case "/named":
			h.Set("X-Accel-Redirect", "@named")
		case "/second":
			h.Set("X-Accel-Redirect", "@second")
			h.Set("Content-Type", "application/pdf")
			h.Set("Content-Disposition", "inline")
		case "/unsafe":
			h.Set("X-Accel-Redirect", "/protected/../secret.txt")
			h.Add("Set-Cookie", "unsafe=1")
		case "/ranges":
			h.Set("X-Accel-Redirect", "/protected/file.pdf")
			h.Set("Accept-Ranges", "none")
			h.Set("Expires", "Thu, 01 Jan 2037 00:00:00 GMT")
		case "/missing":
			h.Set("X-Accel-Redirect", "/protected/nope.pdf")
		case "/unsafe-cacheable":
			h.Set("X-Accel-Redirect", "/protected/../secret.txt")
			h.Set("Cache-Control", "max-age=60")
		case "/status":
			h.Set("X-Accel-Redirect", "/protected/file.pdf")
			w.WriteHeader(http.StatusNotFound)
		default: // cacheable: no Set-Cookie
			h.Set("X-Accel-Redirect", "/protected/file.pdf")
			h.Set("Cache-Control", "max-age=60")
		}
		if r.Method != http.MethodHead {
			fmt.Fprint(w, "origin body: must not be seen")
		}
	}))
	t.Cleanup(o.Close)
	return o
}

func (o *accelOrigin) count(key string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.hits[key]
}

const accelServer = `
    proxy_cache_path {dir}/cache-{who} keys_zone=ax{who}:1m;
    server {
        listen 127.0.0.1:{port};
        root {dir}/www;
        types { application/pdf pdf; text/plain txt; }
        default_type application/octet-stream;
        location /app/ {
            proxy_pass http://{origin};
            proxy_set_header X-Who {who};
        }
        location /ign/ {
            proxy_pass http://{origin};
            proxy_set_header X-Who {who};
            proxy_ignore_headers X-Accel-Redirect;
        }
        location /cached/ {
            proxy_pass http://{origin};
            proxy_set_header X-Who {who};
            proxy_cache ax{who};
            proxy_cache_valid 200 404 1m;
        }
        location /protected/ {
            internal;
            error_page 404 =200 /notfound.txt;
        }
        location = /protected/echo {
            internal;
            return 200 "echo $request_method $uri args=$args";
        }
        location @named {
            return 200 "named $request_method $uri args=$args";
        }
        location @second {
            proxy_pass http://{origin};
            proxy_set_header X-Second yes;
        }
    }
`

// TestAccelRedirectMatchesNGINX: an upstream's X-Accel-Redirect is
// served as NGINX serves it, an internal redirect to the target.
func TestAccelRedirectMatchesNGINX(t *testing.T) {
	nginxPath(t)
	origin := newAccelOrigin(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/protected/file.pdf"), "%PDF-1.4 the protected file")
	writeFile(t, filepath.Join(dir, "www/secret.txt"), "secret")
	writeFile(t, filepath.Join(dir, "www/notfound.txt"), "not found page")
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return strings.NewReplacer("{dir}", dir, "{who}", who, "{origin}", origin.Listener.Addr().String(),
			"{port}", fmt.Sprint(port)).Replace(accelServer)
	})

	type request struct {
		method, path, body string
		status             int
		want               string // the body both must answer, "" for none
	}
	const file = "%PDF-1.4 the protected file"
	requests := []request{
		{"GET", "/app/file", "", 200, file},
		{"GET", "/app/notype", "", 200, file},
		{"GET", "/app/twotypes", "", 200, file},
		{"HEAD", "/app/file", "", 200, ""},
		{"POST", "/app/args?orig=1", "a=1", 200, "echo GET /protected/echo args=x=1&y=%20two"},
		{"GET", "/app/noargs?orig=1", "", 200, "echo GET /protected/echo args="},
		{"HEAD", "/app/noargs", "", 200, ""},
		{"GET", "/app/escaped", "", 200, file},
		{"GET", "/app/named?orig=1", "", 200, "named GET /app/named args=orig=1"},
		{"POST", "/app/named", "a=1", 200, "named POST /app/named args="},
		{"GET", "/app/status", "", 200, file},
		{"GET", "/app/second", "", 200, "second upstream GET"},
		{"POST", "/app/second", "a=1", 200, "second upstream POST"},
		{"GET", "/app/unsafe", "", 404, ""},
		{"GET", "/app/missing", "", 200, "not found page"},
		{"GET", "/app/ranges", "", 200, file},
		{"GET", "/protected/file.pdf", "", 200, "not found page"}, // internal: a 404, through error_page
		{"GET", "/ign/file", "", 200, "origin body: must not be seen"},
		{"GET", "/cached/plain", "", 200, file},
		{"GET", "/cached/plain", "", 200, file},
		{"HEAD", "/cached/plain", "", 200, ""},
		{"GET", "/cached/unsafe-cacheable", "", 404, ""},
		{"GET", "/cached/unsafe-cacheable", "", 404, ""},
	}
	for _, rq := range requests {
		var got [2]*http.Response
		var bodies [2]string
		for i, port := range []int{mport, nport} {
			var body *strings.Reader
			if rq.body != "" {
				body = strings.NewReader(rq.body)
			}
			req, _ := http.NewRequest(rq.method, fmt.Sprintf("http://127.0.0.1:%d%s", port, rq.path), nil)
			if body != nil {
				req, _ = http.NewRequest(rq.method, fmt.Sprintf("http://127.0.0.1:%d%s", port, rq.path), body)
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			got[i], bodies[i] = doRequest(t, req)
		}
		m, n := got[0], got[1]
		what := rq.method + " " + rq.path
		if n.StatusCode != rq.status {
			t.Errorf("%s: nginx answers %d, the test expects %d", what, n.StatusCode, rq.status)
		}
		if m.StatusCode != n.StatusCode {
			t.Errorf("%s: status mosaic %d, nginx %d", what, m.StatusCode, n.StatusCode)
			continue
		}
		for _, h := range []string{"Content-Type", "Content-Disposition", "Cache-Control", "X-App", "X-Accel-Redirect", "Content-Length"} {
			if n.StatusCode == 404 && (h == "Content-Type" || h == "Content-Length") {
				continue // each server's own error page
			}
			if m.Header.Get(h) != n.Header.Get(h) {
				t.Errorf("%s: %s mosaic %q, nginx %q", what, h, m.Header.Get(h), n.Header.Get(h))
			}
		}
		for _, h := range []string{"Set-Cookie", "Accept-Ranges", "Expires"} {
			if mv, nv := m.Header.Values(h), n.Header.Values(h); strings.Join(mv, "\n") != strings.Join(nv, "\n") {
				t.Errorf("%s: %s mosaic %q, nginx %q", what, h, mv, nv)
			}
		}
		if n.StatusCode == 404 {
			continue // each server's own error page
		}
		if bodies[1] != rq.want {
			t.Errorf("%s: nginx's body %q, the test expects %q", what, bodies[1], rq.want)
		}
		if bodies[0] != bodies[1] {
			t.Errorf("%s: body\nmosaic: %q\nnginx:  %q", what, bodies[0], bodies[1])
		}
	}
	// The client's Range applies to the target; the upstream's
	// Accept-Ranges stays.
	for _, path := range []string{"/app/ranges", "/app/file", "/cached/plain"} {
		var got [2]*http.Response
		var bodies [2]string
		for i, port := range []int{mport, nport} {
			req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
			req.Header.Set("Range", "bytes=2-5")
			got[i], bodies[i] = doRequest(t, req)
		}
		m, n := got[0], got[1]
		if n.StatusCode != 206 || bodies[1] != file[2:6] {
			t.Errorf("%s with Range: nginx answers %d %q", path, n.StatusCode, bodies[1])
		}
		if m.StatusCode != n.StatusCode || bodies[0] != bodies[1] {
			t.Errorf("%s with Range: mosaic %d %q, nginx %d %q", path, m.StatusCode, bodies[0], n.StatusCode, bodies[1])
		}
		for _, h := range []string{"Accept-Ranges", "Content-Range", "Content-Type"} {
			if mv, nv := m.Header.Values(h), n.Header.Values(h); strings.Join(mv, "\n") != strings.Join(nv, "\n") {
				t.Errorf("%s with Range: %s mosaic %q, nginx %q", path, h, mv, nv)
			}
		}
	}

	// NGINX stores nothing for an X-Accel-Redirect: each request went to
	// the origin.
	for _, who := range []string{"m", "n"} {
		if got := origin.count(who + " /cached/plain"); got != 4 {
			t.Errorf("%s: the origin saw /cached/plain %d times, want 4 (nothing cached)", who, got)
		}
		if got := origin.count(who + " /cached/unsafe-cacheable"); got != 2 {
			t.Errorf("%s: the origin saw /cached/unsafe-cacheable %d times, want 2 (nothing cached)", who, got)
		}
	}
}

// accelPHP is a PHP download script: it checks the request and hands the
// file to the server with X-Accel-Redirect, as PHP applications do.
const accelPHP = `<?php
$f = $_GET['f'] ?? 'file.pdf';
if ($f === 'missing') {
    http_response_code(403);
    echo "forbidden";
    exit;
}
setcookie('downloaded', $f);
header('Content-Disposition: attachment; filename="' . $f . '"');
if (isset($_GET['type'])) {
    header('Content-Type: ' . $_GET['type']);
}
header('X-Accel-Redirect: ' . ($f === 'named' ? '@named' : '/protected/' . $f . '?from=php'));
echo "php body: must not be seen";
`

const accelPHPServer = `
    server {
        listen 127.0.0.1:{port};
        root {dir}/www;
        types { application/pdf pdf; text/plain txt; }
        default_type application/octet-stream;
        location ~ ^/ign/(.*\.php)$ {
            fastcgi_pass {fpm};
            fastcgi_param SCRIPT_FILENAME $document_root/$1;
            fastcgi_param REQUEST_METHOD $request_method;
            fastcgi_param QUERY_STRING $query_string;
            fastcgi_ignore_headers X-Accel-Redirect;
        }
        location ~ \.php$ {
            fastcgi_pass {fpm};
            fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
            fastcgi_param REQUEST_METHOD $request_method;
            fastcgi_param QUERY_STRING $query_string;
            fastcgi_param CONTENT_TYPE $content_type;
            fastcgi_param CONTENT_LENGTH $content_length;
            fastcgi_param REQUEST_URI $request_uri;
        }
        location /protected/ {
            internal;
        }
        location @named {
            return 200 "named $request_method $uri args=$args";
        }
    }
`

// TestAccelRedirectPHPMatchesNGINX: a PHP script behind php-fpm that
// answers X-Accel-Redirect gets the file served, as through NGINX.
func TestAccelRedirectPHPMatchesNGINX(t *testing.T) {
	nginxPath(t)
	fpmPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/download.php"), accelPHP)
	writeFile(t, filepath.Join(dir, "www/protected/file.pdf"), "%PDF-1.4 from php")
	writeFile(t, filepath.Join(dir, "www/protected/notes.txt"), "plain notes")
	fpm := startFPM(t, filepath.Join(dir, "fpm"), filepath.Join(dir, "php.sock"), 2)
	mport, nport := startBoth(t, dir, func(_ string, port int) string {
		return strings.NewReplacer("{dir}", dir, "{fpm}", fpm.addr, "{port}", fmt.Sprint(port)).Replace(accelPHPServer)
	})

	const phpType = "text/html; charset=UTF-8"
	for _, rq := range []struct {
		method, path string
		status       int
		want, ctype  string
	}{
		// PHP's default type wins over the file's, as in NGINX; an empty
		// one lets the file's through.
		{"GET", "/download.php", 200, "%PDF-1.4 from php", phpType},
		{"GET", "/download.php?type=", 200, "%PDF-1.4 from php", "application/pdf"},
		{"GET", "/download.php?f=notes.txt&type=text/plain", 200, "plain notes", "text/plain;charset=UTF-8"},
		{"HEAD", "/download.php", 200, "", phpType},
		{"POST", "/download.php", 200, "%PDF-1.4 from php", phpType},
		{"GET", "/download.php?f=named", 200, "named GET /download.php args=f=named", phpType},
		{"GET", "/download.php?f=missing", 403, "forbidden", phpType},
		{"GET", "/ign/download.php", 200, "php body: must not be seen", phpType},
	} {
		var got [2]*http.Response
		var bodies [2]string
		for i, port := range []int{mport, nport} {
			req, _ := http.NewRequest(rq.method, fmt.Sprintf("http://127.0.0.1:%d%s", port, rq.path), strings.NewReader("a=1"))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			got[i], bodies[i] = doRequest(t, req)
		}
		m, n := got[0], got[1]
		what := rq.method + " " + rq.path
		if n.StatusCode != rq.status || bodies[1] != rq.want || n.Header.Get("Content-Type") != rq.ctype {
			t.Errorf("%s: nginx answers %d %q (%s), the test expects %d %q (%s)", what,
				n.StatusCode, bodies[1], n.Header.Get("Content-Type"), rq.status, rq.want, rq.ctype)
		}
		if m.StatusCode != n.StatusCode || bodies[0] != bodies[1] {
			t.Errorf("%s: mosaic %d %q, nginx %d %q", what, m.StatusCode, bodies[0], n.StatusCode, bodies[1])
		}
		for _, h := range []string{"Content-Type", "Content-Disposition", "X-Accel-Redirect", "Content-Length"} {
			if h == "Content-Length" && n.Header.Get(h) == "" {
				continue // the script's own answer, which NGINX sends chunked
			}
			if m.Header.Get(h) != n.Header.Get(h) {
				t.Errorf("%s: %s mosaic %q, nginx %q", what, h, m.Header.Get(h), n.Header.Get(h))
			}
		}
		if mv, nv := m.Header.Values("Set-Cookie"), n.Header.Values("Set-Cookie"); strings.Join(mv, "\n") != strings.Join(nv, "\n") {
			t.Errorf("%s: Set-Cookie mosaic %q, nginx %q", what, mv, nv)
		}
	}
}

const accelCharsetServer = `
    server {
        listen 127.0.0.1:{port};
        root {dir}/www;
        types { application/pdf pdf; text/plain txt; }
        default_type application/octet-stream;
        location /app/ {
            proxy_pass http://{origin};
        }
        location /ign/ {
            proxy_pass http://{origin};
            proxy_ignore_headers X-Accel-Charset;
        }
        location /protected/ {
            internal;
        }
        location /declared/ {
            charset utf-8;
        }
    }
`

// TestAccelCharsetMatchesNGINX: an upstream's X-Accel-Charset names the
// response's charset when the configuration declares it, as NGINX's
// charset filter does (without converting anything).
func TestAccelCharsetMatchesNGINX(t *testing.T) {
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		h := w.Header()
		h["Content-Type"] = nil
		if ct := q.Get("ct"); ct != "" {
			h.Set("Content-Type", ct)
		}
		h.Set("X-Accel-Charset", q.Get("cs"))
		if q.Has("file") {
			h.Set("X-Accel-Redirect", "/protected/"+q.Get("file"))
		}
		if q.Has("moved") {
			h.Set("Location", "/elsewhere")
			w.WriteHeader(http.StatusFound)
		}
		fmt.Fprint(w, "body")
	}))
	t.Cleanup(origin.Close)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/protected/file.pdf"), "%PDF")
	mport, nport := startBoth(t, dir, func(_ string, port int) string {
		return strings.NewReplacer("{dir}", dir, "{origin}", origin.Listener.Addr().String(),
			"{port}", fmt.Sprint(port)).Replace(accelCharsetServer)
	})

	for _, c := range []struct{ path, want string }{
		{"/app/?ct=text/html&cs=utf-8", "text/html; charset=utf-8"},
		{"/app/?ct=application/json&cs=UTF-8", "application/json; charset=UTF-8"},
		{"/app/?ct=text/html%3B+charset=UTF-8&cs=utf-8", "text/html; charset=utf-8"},
		{"/app/?ct=text/html%3B+q=1&cs=utf-8", "text/html; q=1; charset=utf-8"},
		{"/app/?ct=text/html&cs=koi8-r", "text/html"},
		{"/app/?ct=text/html%3B+charset=iso-8859-1&cs=utf-8", "text/html; charset=iso-8859-1"},
		{"/app/?cs=utf-8", ""},
		{"/app/?ct=text/html%3B+charset=utf-8&cs=utf-8&moved", "text/html"},
		{"/app/?ct=text/html&cs=utf-8&moved", "text/html"},
		{"/app/?cs=utf-8&file=file.pdf", "application/pdf; charset=utf-8"},
		{"/ign/?ct=text/html&cs=utf-8", "text/html"},
	} {
		var got [2]string
		for i, port := range []int{mport, nport} {
			req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, c.path), nil)
			resp, _ := doRequest(t, req)
			got[i] = resp.Header.Get("Content-Type")
		}
		if got[1] != c.want {
			t.Errorf("%s: nginx sends %q, the test expects %q", c.path, got[1], c.want)
		}
		if got[0] != got[1] {
			t.Errorf("%s: Content-Type mosaic %q, nginx %q", c.path, got[0], got[1])
		}
	}
}

// accelUWSGIServer hands the uwsgi application's X-Accel-Redirect to an
// internal location, and ignores it in /ign/.
const accelUWSGIServer = `
	server {
		listen 127.0.0.1:{port};
		location /app/ { include uwsgi_params; uwsgi_pass {app}; }
		location /ign/ { include uwsgi_params; uwsgi_pass {app}; uwsgi_ignore_headers X-Accel-Redirect; }
		location /protected/ { internal; root {dir}/files; }
	}`

// TestAccelRedirectUWSGIMatchesNGINX: the uwsgi gateway hands an
// application's X-Accel-Redirect to the internal location as the proxy
// does, in front of the real uWSGI, compared with NGINX.
func TestAccelRedirectUWSGIMatchesNGINX(t *testing.T) {
	testuwsgi.Skip(t)
	params := nginxUWSGIParams(t)
	if params == "" {
		t.Skip("no NGINX uwsgi_params")
	}
	app := testuwsgi.Start(t, false)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "files/protected/f.txt"), "the protected file")
	writeFile(t, filepath.Join(dir, "nginx", "uwsgi_params"), params)
	mport, nport := startBoth(t, dir, func(_ string, port int) string {
		return strings.NewReplacer("{dir}", dir, "{app}", app.Address, "{port}", fmt.Sprint(port)).Replace(accelUWSGIServer)
	})
	for _, rq := range []struct {
		path   string
		status int
		want   string
	}{
		{"/app/accel?to=/protected/f.txt", 200, "the protected file"},
		{"/app/accel?to=/protected/missing.txt", 404, ""},
		{"/app/accel?to=/../etc/passwd", 404, ""},
		{"/ign/accel?to=/protected/f.txt", 200, "app body: must not be seen"},
		{"/protected/f.txt", 404, ""},
	} {
		var status [2]int
		var bodies [2]string
		var disp [2]string
		for i, port := range []int{mport, nport} {
			req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d%s", port, rq.path), nil)
			resp, body := doRequest(t, req)
			status[i], bodies[i], disp[i] = resp.StatusCode, body, resp.Header.Get("Content-Disposition")
		}
		if status[1] != rq.status || (rq.want != "" && bodies[1] != rq.want) {
			t.Errorf("%s: nginx answers %d %q, the test expects %d %q", rq.path, status[1], bodies[1], rq.status, rq.want)
		}
		// Content-Disposition is compared on the files served: mosaic's
		// error pages drop it, NGINX's keep it (proxy/README.md).
		if status[0] != status[1] || (rq.want != "" && bodies[0] != bodies[1]) || (status[1] == 200 && disp[0] != disp[1]) {
			t.Errorf("%s: mosaic %d %q %q, nginx %d %q %q", rq.path, status[0], bodies[0], disp[0], status[1], bodies[1], disp[1])
		}
	}
}

// TestAccelRedirectRelativeAsNGINX: an X-Accel-Redirect without a leading
// slash is an internal redirect like another in NGINX: no prefix location
// takes it, a regex location may, and the server's level answers the
// rest, a 404 for the file root+URI that is not there, the client's
// connection kept. mosaic refused the path with a 400 and closed the
// connection (found by internal/nginxdiff/upstream). A dot segment stays
// refused.
func TestAccelRedirectRelativeAsNGINX(t *testing.T) {
	compareAccelHeads(t, map[string]string{
		"/plain": "X-Accel-Redirect: rel\r\n",
		"/regex": "X-Accel-Redirect: rel2/x\r\n",
		"/dots":  "X-Accel-Redirect: a/../b\r\n",
	})
}

// TestAccelRedirectLastTypeAsNGINX: of several Content-Type fields beside
// an X-Accel-Redirect, the last is the one the target's answer carries,
// as NGINX copies each in turn (and as the proxy relays the last one
// without a redirect); mosaic took the first (found by
// internal/nginxdiff/upstream).
func TestAccelRedirectLastTypeAsNGINX(t *testing.T) {
	compareAccelHeads(t, map[string]string{
		"/types": "Content-Type: text/html\r\nContent-Type: application/json\r\nX-Accel-Redirect: /t/x\r\nContent-Type: text/plain\r\n",
		"/one":   "Content-Type: text/csv\r\nX-Accel-Redirect: /t/x\r\n",
	})
}

// compareAccelHeads runs NGINX and mosaic in front of an origin that
// answers each path of fields with a 200 holding those fields and a
// 4-byte body, asks both servers for each path twice on one connection
// (the first answer must leave it open), and compares the statuses,
// types, bodies (an error page's left out: the signatures differ) and
// whether the connection was to close.
func compareAccelHeads(t *testing.T, fields map[string]string) {
	nginxPath(t)
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\n%sContent-Length: 4\r\n\r\nbody", fields[req.URL.Path])
		}
	})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/rel"), "inside the root")
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s/www;
  location /p/ { proxy_pass http://%s/; }
  location /t/ { internal; return 200 "target $uri\n"; }
  location ~ ^rel2 { return 200 "regex $uri\n"; }
}`, port, dir, o.Addr())
	})
	for path := range fields {
		var got [2]string
		for i, port := range []int{nport, mport} {
			c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				t.Fatal(err)
			}
			c.SetDeadline(time.Now().Add(5 * time.Second))
			br := bufio.NewReader(c)
			for range 2 {
				fmt.Fprintf(c, "GET /p%s HTTP/1.1\r\nHost: x\r\n\r\n", path)
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					got[i] += "unreadable: " + err.Error()
					break
				}
				b, _ := io.ReadAll(resp.Body)
				if resp.StatusCode >= 400 {
					b = nil
				}
				got[i] += fmt.Sprintf("%d %q %q close=%v; ", resp.StatusCode, resp.Header.Get("Content-Type"), b, resp.Close)
			}
			c.Close()
		}
		t.Logf("%s: nginx %s", path, got[0])
		if got[1] != got[0] {
			t.Errorf("%s: mosaic %s, nginx %s", path, got[1], got[0])
		}
	}
}

// TestAccelRedirectRelativeNoNeighbour: the root and a relative
// X-Accel-Redirect run together name the root's neighbour (root .../www
// and "rel" name .../wwwrel), which NGINX serves; mosaic takes the name
// as missing, as it does for a rewrite's "$1 break" (server/README.md),
// so an upstream's value cannot reach files beside the root.
func TestAccelRedirectRelativeNoNeighbour(t *testing.T) {
	nginxPath(t)
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		for {
			if _, err := http.ReadRequest(br); err != nil {
				return
			}
			fmt.Fprint(c, "HTTP/1.1 200 OK\r\nX-Accel-Redirect: rel\r\nContent-Length: 0\r\n\r\n")
		}
	})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/rel"), "inside the root")
	writeFile(t, filepath.Join(dir, "wwwrel"), "beside the root")
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s/www;
  location /p/ { proxy_pass http://%s/; }
}`, port, dir, o.Addr())
	})
	for who, want := range map[int]string{nport: "200 beside the root", mport: "404"} {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/p/x", who))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got := fmt.Sprint(resp.StatusCode)
		if resp.StatusCode == http.StatusOK {
			got += " " + string(b)
		}
		if got != want {
			t.Errorf("port %d (nginx %d, mosaic %d): %q, want %q", who, nport, mport, got, want)
		}
	}
}

// TestAccelRedirectRelativeProxied: a regex location that proxies a
// relative X-Accel-Redirect target writes it in origin form, with its
// slash, where NGINX sends the request line as the path was written
// ("GET rel2/x HTTP/1.0"), a target an origin may refuse or read in its
// own way.
func TestAccelRedirectRelativeProxied(t *testing.T) {
	nginxPath(t)
	targets := make(chan string, 4)
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			// The request line is read raw: http.ReadRequest refuses
			// NGINX's. The head's fields are skipped; no body comes.
			for {
				f, err := br.ReadString('\n')
				if err != nil {
					return
				}
				if f == "\r\n" {
					break
				}
			}
			if strings.HasPrefix(line, "GET /acc ") {
				fmt.Fprint(c, "HTTP/1.1 200 OK\r\nX-Accel-Redirect: rel2/x%20y?a=1\r\nContent-Length: 0\r\n\r\n")
				continue
			}
			targets <- strings.Fields(line)[1]
			fmt.Fprint(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
	})
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
  location /p/ { proxy_pass http://%s/; }
  location ~ ^rel2 { proxy_pass http://%[2]s; }
}`, port, o.Addr())
	})
	for port, want := range map[int]string{nport: "rel2/x%20y?a=1", mport: "/rel2/x%20y?a=1"} {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/p/acc", port))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := "(none)"
		if resp.StatusCode == http.StatusOK {
			got = <-targets
		}
		if resp.StatusCode != http.StatusOK || got != want {
			t.Errorf("port %d (nginx %d, mosaic %d): %d, target %q, want 200, %q", port, nport, mport, resp.StatusCode, got, want)
		}
	}
}
