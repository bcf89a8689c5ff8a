package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/internal/testuwsgi"
)

// scgiSite passes everything to an SCGI application with Debian's
// scgi_params (uWSGI routes by PATH_INFO, which the file does not send),
// one location with a short scgi_read_timeout, one behind scgi_cache.
// {dir}, {server} and {port} are filled in.
const scgiSite = `
	upstream app {
		server {server};
	}
	scgi_cache_path {dir}/cache keys_zone=scgi:1m;
	server {
		listen 127.0.0.1:{port};
		server_name example.test;
		client_max_body_size 75M;
		root {dir}/html;
		include scgi_params;
		scgi_param PATH_INFO $document_uri;

		location /slowpoke/ {
			scgi_pass app;
			scgi_read_timeout 300ms;
		}
		location /cached/ {
			scgi_pass app;
			scgi_cache scgi;
			scgi_cache_key $request_uri;
			scgi_cache_valid 200 1m;
		}
		location / {
			scgi_pass app;
		}
	}
`

func scgiConf(dir string, app *testuwsgi.Server, port int) string {
	server := app.Address
	if app.Network == "unix" {
		server = "unix:" + app.Address
	}
	return strings.NewReplacer("{dir}", dir, "{server}", server, "{port}", fmt.Sprint(port)).Replace(scgiSite)
}

// TestSCGIWithUWSGI serves scgiSite in front of the real uWSGI speaking
// SCGI (--scgi-socket), on a unix socket and on TCP: a GET with a query,
// a form, a 2 MiB upload and a chunked one, headers and cookies both ways,
// the application's 404 and 500, the 502 of an application that dies
// before answering, the 504 of one slower than scgi_read_timeout, a page
// from scgi_cache, and the 502 of an application not running. With
// Debian's NGINX installed, NGINX serves the same configuration in front
// of the same uWSGI and every exchange must be the same.
func TestSCGIWithUWSGI(t *testing.T) {
	testuwsgi.Skip(t)
	for _, unix := range []bool{true, false} {
		app := testuwsgi.StartSCGI(t, unix)
		t.Run(app.Network, func(t *testing.T) { scgiWithUWSGI(t, app) })
	}
}

func scgiWithUWSGI(t *testing.T, app *testuwsgi.Server) {
	dir := t.TempDir()
	djangoSiteFiles(t, dir)
	port := freePort(t)
	p := startMosaic(t, dir, "http {"+scgiConf(dir, app, port)+"}", port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	got := uwsgiExchanges(t, base)

	echo := got[0]
	for k, want := range map[string]string{
		"SCGI": "1", "CONTENT_LENGTH": "0", "REQUEST_METHOD": "GET",
		"REQUEST_URI": "/blog/echo?a=1&b=%20x&set=s%3D1&set=t%3D2", "DOCUMENT_URI": "/blog/echo",
		"QUERY_STRING": "a=1&b=%20x&set=s%3D1&set=t%3D2", "SERVER_NAME": "example.test",
		"HTTP_HOST": "127.0.0.1", "SERVER_PROTOCOL": "HTTP/1.1", "REQUEST_SCHEME": "http",
		"REMOTE_ADDR": "127.0.0.1", "DOCUMENT_ROOT": dir + "/html",
		"HTTP_X_TEST": "v1", "HTTP_COOKIE": "c1=x; c2=y", "HTTP_ACCEPT_LANGUAGE": "fr",
	} {
		if v := echo.Env[k]; v != want {
			t.Errorf("%s = %q, want %q", k, v, want)
		}
	}
	if c := echo.Header["Set-Cookie"]; len(c) != 2 || c[0] != "s=1" || c[1] != "t=2" || echo.Header["X-App"][0] != "yes" {
		t.Errorf("response header %v", echo.Header)
	}
	if echo.Header["Status"] != nil {
		t.Errorf("uWSGI's Status header reached the client: %v", echo.Header)
	}
	if form := got[1]; form.Body != "name=Ada&lang=en" || form.Env["CONTENT_LENGTH"] != "16" ||
		form.Env["CONTENT_TYPE"] != "application/x-www-form-urlencoded" || form.Env["REQUEST_METHOD"] != "POST" {
		t.Errorf("form: %q %v", form.Body, form.Env)
	}
	if big := got[2]; len(big.Body) != 2<<20 || big.Body != uwsgiRequests[2].body || big.Env["CONTENT_LENGTH"] != "2097152" {
		t.Errorf("2 MiB body: %d bytes arrived", len(big.Body))
	}
	for i, want := range map[int]int{4: 404, 5: 500, 6: 502, 7: 201, 8: 302, 9: 200, 10: 200, 13: 504} {
		if got[i].Status != want {
			t.Errorf("%s: %d, want %d", uwsgiRequests[i].path, got[i].Status, want)
		}
	}
	if got[4].Body != "no such page\n" || got[5].Body != "server error\n" || len(got[9].Body) != 200000 ||
		got[8].Header["Location"][0] != "/elsewhere" {
		t.Errorf("bodies: %q %q %d %v", got[4].Body, got[5].Body, len(got[9].Body), got[8].Header)
	}
	if chunked := got[14]; chunked.Body != "sent in chunks" || chunked.Env["CONTENT_LENGTH"] != "14" {
		t.Errorf("chunked body: %q, CONTENT_LENGTH %q", chunked.Body, chunked.Env["CONTENT_LENGTH"])
	}
	waitOutput(t, p, "upstream prematurely closed connection while reading response header from upstream")
	waitOutput(t, p, "upstream timed out")

	if _, err := os.Stat("/etc/nginx/scgi_params"); err == nil {
		nginxPath(t)
		ndir := t.TempDir()
		djangoSiteFiles(t, ndir)
		params, _ := os.ReadFile("/etc/nginx/scgi_params")
		writeFile(t, filepath.Join(ndir, "scgi_params"), string(params))
		nport := freePort(t)
		startNGINX(t, ndir, scgiConf(ndir, app, nport), nport)
		sameExchanges(t, got, uwsgiExchanges(t, fmt.Sprintf("http://127.0.0.1:%d", nport)), dir, ndir)
	}

	// scgi_cache: the second client, on another connection (another
	// REMOTE_PORT), gets the first one's answer.
	_, first := testclient.Get(t, base+"/cached/echo?c=1", "Connection", "close")
	_, second := testclient.Get(t, base+"/cached/echo?c=1", "Connection", "close")
	if first != second || !strings.Contains(first, "REMOTE_PORT") {
		t.Errorf("scgi_cache: %.100q then %.100q", first, second)
	}

	// The application stopped: 502, and the log names the upstream; the
	// cached page is still served.
	app.Stop()
	if resp, _ := httpGet(t, base+"/index"); resp.StatusCode != 502 {
		t.Errorf("uWSGI stopped: %d", resp.StatusCode)
	}
	if resp, body := testclient.Get(t, base+"/cached/echo?c=1"); resp.StatusCode != 200 || body != first {
		t.Errorf("cached page with uWSGI stopped: %d", resp.StatusCode)
	}
	if app.Network == "unix" {
		waitOutput(t, p, "upstream=scgi://unix:"+app.Address)
	} else {
		waitOutput(t, p, "upstream=scgi://"+app.Address)
	}
}
