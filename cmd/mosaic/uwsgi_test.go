package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/internal/testuwsgi"
)

// djangoSite is the http block of the Django tutorial's NGINX
// configuration ("Setting up Django and your web server with uWSGI and
// nginx"): an upstream on uWSGI's unix socket, static files by alias,
// everything else to the application with uwsgi_params included.
// {dir}, {server} and {port} are filled in.
const djangoSite = `
	upstream django {
		server {server};
	}
	uwsgi_cache_path {dir}/cache keys_zone=django:1m;
	include mime.types;
	default_type application/octet-stream;
	server {
		listen 127.0.0.1:{port};
		server_name example.test;
		charset utf-8;
		client_max_body_size 75M;
		root {dir}/html;

		location /static {
			alias {dir}/static;
		}
		location /slowpoke/ {
			uwsgi_pass django;
			uwsgi_read_timeout 300ms;
			include uwsgi_params;
		}
		location /cached/ {
			uwsgi_pass django;
			include uwsgi_params;
			uwsgi_cache django;
			uwsgi_cache_key $request_uri;
			uwsgi_cache_valid 200 1m;
		}
		location / {
			uwsgi_pass  django;
			include     uwsgi_params;
		}
	}
`

// uwsgiExchange is what a client saw of one request, for comparing
// mosaic with NGINX.
type uwsgiExchange struct {
	Status int
	Header map[string][]string
	Env    map[string]string // the variables the application saw (/echo)
	Body   string            // the body the application saw, or the answer's
}

type uwsgiRequest struct {
	method, path, body string
	header             map[string]string
}

var uwsgiRequests = []uwsgiRequest{
	{"GET", "/blog/echo?a=1&b=%20x&set=s%3D1&set=t%3D2", "", map[string]string{
		"X-Test": "v1", "Cookie": "c1=x; c2=y", "Accept-Language": "fr", "User-Agent": "t"}},
	{"POST", "/echo", "name=Ada&lang=en", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}},
	{"POST", "/echo", strings.Repeat("0123456789abcdef", 1<<17), map[string]string{"Content-Type": "application/octet-stream"}},
	{"PUT", "/echo?x", "", nil},
	{"GET", "/notfound", "", nil},
	{"GET", "/error", "", nil},
	{"GET", "/fail", "", nil},
	{"GET", "/status", "", nil},
	{"GET", "/redirect?to=/elsewhere", "", nil},
	{"GET", "/size?n=200000", "", nil},
	{"HEAD", "/size?n=10", "", nil},
	{"GET", "/static/site.css", "", nil},
	{"GET", "/%C3%A9t%C3%A9/index", "", nil},
	{"GET", "/slowpoke/slow?ms=1500", "", nil}, // over uwsgi_read_timeout
	{"POST", "/echo", "sent in chunks", map[string]string{"Transfer-Encoding": "chunked"}},
}

// compared are the response headers both servers must agree on.
var compared = []string{"Content-Type", "Location", "Set-Cookie", "X-App", "Status"}

func uwsgiExchanges(t *testing.T, base string) []uwsgiExchange {
	t.Helper()
	var out []uwsgiExchange
	for _, rq := range uwsgiRequests {
		req, err := http.NewRequest(rq.method, base+rq.path, strings.NewReader(rq.body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range rq.header {
			if k == "Transfer-Encoding" {
				req.ContentLength = -1 // net/http then sends it chunked
				continue
			}
			req.Header.Set(k, v)
		}
		resp, b := testclient.Send(t, req)
		x := uwsgiExchange{Status: resp.StatusCode, Header: map[string][]string{}, Body: b}
		for _, k := range compared {
			if v, ok := resp.Header[k]; ok {
				x.Header[k] = v
			}
		}
		if resp.StatusCode == 502 || resp.StatusCode == 504 {
			x.Body = "" // the servers' own error pages name them
		}
		if strings.HasSuffix(req.URL.Path, "/echo") {
			var e struct {
				Env  map[string]string
				Body string
			}
			if err := json.Unmarshal([]byte(b), &e); err != nil {
				t.Fatalf("%s %s: %d %.200q: %v", rq.method, rq.path, resp.StatusCode, b, err)
			}
			// What differs between two servers on two ports.
			delete(e.Env, "REMOTE_PORT")
			delete(e.Env, "SERVER_PORT")
			delete(e.Env, "HTTP_CONNECTION")
			delete(e.Env, "HTTP_ACCEPT_ENCODING")
			x.Env, x.Body = e.Env, e.Body
		}
		out = append(out, x)
	}
	return out
}

func djangoSiteFiles(t *testing.T, dir string) {
	writeFile(t, filepath.Join(dir, "static/site.css"), "body { color: teal }\n")
	if err := os.MkdirAll(filepath.Join(dir, "html"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// djangoConf fills in djangoSite for uWSGI app: on a unix socket the way
// the tutorial writes it (unix:///path), else on its loopback port.
func djangoConf(dir string, app *testuwsgi.Server, port int) string {
	server := app.Address
	if app.Network == "unix" {
		server = "unix://" + app.Address
	}
	return strings.NewReplacer("{dir}", dir, "{server}", server, "{port}", fmt.Sprint(port)).Replace(djangoSite)
}

// TestUWSGIDjangoTutorial serves the Django tutorial's configuration in
// front of the real uWSGI, on a unix socket and on TCP: the variables the WSGI
// application sees, bodies and headers both ways, its 404 and 500, the
// 502 of an application that dies before answering, the 504 of one
// slower than uwsgi_read_timeout, the 502 of one not running, static
// files, and a page from uwsgi_cache.
// With Debian's NGINX installed, NGINX serves the same configuration in
// front of the same uWSGI and every exchange must be the same.
func TestUWSGIDjangoTutorial(t *testing.T) {
	testuwsgi.Skip(t)
	for _, unix := range []bool{true, false} {
		app := testuwsgi.Start(t, unix)
		t.Run(app.Network, func(t *testing.T) { djangoTutorial(t, app) })
	}
}

func djangoTutorial(t *testing.T, app *testuwsgi.Server) {
	dir := t.TempDir()
	djangoSiteFiles(t, dir)
	port := freePort(t)
	p := startMosaic(t, dir, "http {"+djangoConf(dir, app, port)+"}", port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	got := uwsgiExchanges(t, base)

	echo := got[0]
	for k, want := range map[string]string{
		"REQUEST_METHOD": "GET", "REQUEST_URI": "/blog/echo?a=1&b=%20x&set=s%3D1&set=t%3D2",
		"PATH_INFO": "/blog/echo", "QUERY_STRING": "a=1&b=%20x&set=s%3D1&set=t%3D2",
		"SERVER_NAME": "example.test", "HTTP_HOST": "127.0.0.1", "SERVER_PROTOCOL": "HTTP/1.1",
		"REQUEST_SCHEME": "http", "REMOTE_ADDR": "127.0.0.1", "DOCUMENT_ROOT": dir + "/html",
		"HTTP_X_TEST": "v1", "HTTP_COOKIE": "c1=x; c2=y", "HTTP_ACCEPT_LANGUAGE": "fr", "CONTENT_LENGTH": "",
	} {
		if v := echo.Env[k]; v != want {
			t.Errorf("%s = %q, want %q", k, v, want)
		}
	}
	if _, ok := echo.Env["HTTPS"]; ok {
		t.Error("HTTPS sent for a plain request (if_not_empty)")
	}
	if c := echo.Header["Set-Cookie"]; len(c) != 2 || c[0] != "s=1" || c[1] != "t=2" || echo.Header["X-App"][0] != "yes" {
		t.Errorf("response header %v", echo.Header)
	}
	if form := got[1]; form.Body != "name=Ada&lang=en" || form.Env["CONTENT_LENGTH"] != "16" ||
		form.Env["CONTENT_TYPE"] != "application/x-www-form-urlencoded" || form.Env["REQUEST_METHOD"] != "POST" {
		t.Errorf("form: %q %v", form.Body, form.Env)
	}
	if big := got[2]; len(big.Body) != 2<<20 || big.Body != uwsgiRequests[2].body {
		t.Errorf("2 MiB body: %d bytes arrived", len(big.Body))
	}
	for i, want := range map[int]int{4: 404, 5: 500, 6: 502, 7: 201, 8: 302, 9: 200, 10: 200, 11: 200} {
		if got[i].Status != want {
			t.Errorf("%s: %d, want %d", uwsgiRequests[i].path, got[i].Status, want)
		}
	}
	if got[4].Body != "no such page\n" || got[5].Body != "server error\n" || len(got[9].Body) != 200000 ||
		got[11].Body != "body { color: teal }\n" || got[8].Header["Location"][0] != "/elsewhere" {
		t.Errorf("bodies: %q %q %d %q %v", got[4].Body, got[5].Body, len(got[9].Body), got[11].Body, got[8].Header)
	}
	waitOutput(t, p, "upstream prematurely closed connection while reading response header from upstream")

	if chunked := got[14]; chunked.Body != "sent in chunks" || chunked.Env["CONTENT_LENGTH"] != "14" {
		t.Errorf("chunked body: %q, CONTENT_LENGTH %q", chunked.Body, chunked.Env["CONTENT_LENGTH"])
	}
	if got[13].Status != 504 {
		t.Errorf("slower than uwsgi_read_timeout: %d", got[13].Status)
	}
	waitOutput(t, p, "upstream timed out")

	if nginx := nginxUWSGIParams(t); nginx != "" {
		ndir := t.TempDir()
		djangoSiteFiles(t, ndir)
		writeFile(t, filepath.Join(ndir, "uwsgi_params"), nginx)
		types, err := os.ReadFile("/etc/nginx/mime.types")
		if err != nil {
			t.Skip("no /etc/nginx/mime.types")
		}
		writeFile(t, filepath.Join(ndir, "mime.types"), string(types))
		// NGINX includes relative to its prefix; the document root differs.
		nport := freePort(t)
		startNGINX(t, ndir, djangoConf(ndir, app, nport), nport)
		want := uwsgiExchanges(t, fmt.Sprintf("http://127.0.0.1:%d", nport))
		sameExchanges(t, got, want, dir, ndir)
	}

	// uwsgi_cache: the second client, on another connection (another
	// REMOTE_PORT), gets the first one's answer.
	_, first := testclient.Get(t, base+"/cached/echo?c=1", "Connection", "close")
	_, second := testclient.Get(t, base+"/cached/echo?c=1", "Connection", "close")
	if first != second || !strings.Contains(first, "REMOTE_PORT") {
		t.Errorf("uwsgi_cache: %.100q then %.100q", first, second)
	}

	// The application stopped: 502, and the log names the upstream; the
	// cached page is still served.
	app.Stop()
	resp, _ := httpGet(t, base+"/index")
	if resp.StatusCode != 502 {
		t.Errorf("uWSGI stopped: %d", resp.StatusCode)
	}
	if resp, body := testclient.Get(t, base+"/cached/echo?c=1"); resp.StatusCode != 200 || body != first {
		t.Errorf("cached page with uWSGI stopped: %d", resp.StatusCode)
	}
	if app.Network == "unix" {
		waitOutput(t, p, "upstream=uwsgi://unix://"+app.Address)
	} else {
		waitOutput(t, p, "upstream=uwsgi://"+app.Address)
	}
}

// nginxUWSGIParams returns Debian's uwsgi_params when NGINX is installed,
// else "".
func nginxUWSGIParams(t *testing.T) string {
	if _, err := os.Stat("/usr/sbin/nginx"); err != nil {
		return ""
	}
	b, err := os.ReadFile("/etc/nginx/uwsgi_params")
	if err != nil {
		return ""
	}
	return string(b)
}

// sameExchanges reports where mosaic's exchanges (got, with its document
// root in dir) differ from NGINX's (want, with its root in ndir).
func sameExchanges(t *testing.T, got, want []uwsgiExchange, dir, ndir string) {
	t.Helper()
	for i := range want {
		if want[i].Env != nil {
			want[i].Env["DOCUMENT_ROOT"] = strings.Replace(want[i].Env["DOCUMENT_ROOT"], ndir, dir, 1)
		}
		if want[i].Status != got[i].Status || want[i].Body != got[i].Body ||
			!maps.Equal(want[i].Env, got[i].Env) || !headersEqual(want[i].Header, got[i].Header) {
			t.Errorf("%s %s:\nmosaic %d %v %v %.200q\nNGINX  %d %v %v %.200q", uwsgiRequests[i].method, uwsgiRequests[i].path,
				got[i].Status, got[i].Header, got[i].Env, got[i].Body, want[i].Status, want[i].Header, want[i].Env, want[i].Body)
		}
	}
	t.Logf("compared %d exchanges with NGINX's", len(want))
}

func headersEqual(a, b map[string][]string) bool {
	return maps.EqualFunc(a, b, func(x, y []string) bool { return strings.Join(x, "\n") == strings.Join(y, "\n") })
}
