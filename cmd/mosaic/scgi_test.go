package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/internal/testuwsgi"
	"github.com/mosaic-edge/mosaic/scgi"
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
	t.Parallel()
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

// scgiAnswers are what scgiApp sends for each DOCUMENT_URI: CGI heads
// NGINX reads its own way (Status, Location, a status line), heads it
// refuses, and applications that close or stall.
var scgiAnswers = map[string]string{
	"/status":        "Status: 404 Not Here\r\nContent-Type: text/plain\r\n\r\nmissing\n",
	"/status3":       "Status: 202\r\n\r\naccepted\n",
	"/location":      "Location: /elsewhere\r\n\r\n",
	"/moved":         "Status: 301 Moved\r\nLocation: http://x.test/a\r\n\r\nmoved\n",
	"/located200":    "Status: 200\r\nLocation: /x\r\n\r\nstill 200\n",
	"/statusline":    "HTTP/1.1 203 Whatever\r\nX-A: 1\r\n\r\nfrom a status line\n",
	"/spacedline":    "HTTP/1.1  203 Spaced\r\nX-A: 1\r\n\r\nspaced status line\n",
	"/crcr":          "X-A: 1\r\r\nContent-Type: text/plain\r\r\n\r\nlines ended by CR CR LF\n",
	"/crcrend":       "X-A: 1\r\n\r\r\nnever seen\n",
	"/notaline":      "HTTP/2 201\r\nStatus: 202\r\n\r\nno status line NGINX reads\n",
	"/length":        "Content-Length: 3\r\nContent-Type: text/plain\r\n\r\nabcdef",
	"/busy":          "Status: 503 Busy\r\nContent-Type: text/plain\r\n\r\nthe application is busy\n",
	"/raw/busy":      "Status: 503 Busy\r\nContent-Type: text/plain\r\n\r\nthe application is busy\n",
	"/badstatus":     "Status: abc\r\n\r\nnever seen\n",
	"/badname":       "Bad Name: x\r\n\r\nnever seen\n",
	"/nulhead":       "X-A: a\x00b\r\n\r\nnever seen\n",
	"/bighead":       "X-Big: " + strings.Repeat("b", 5000) + "\r\n\r\nnever seen\n",
	"/unterminated":  "Content-Type: text/plain\r\n",
	"/accel-hidden":  "X-Accel-Charset: x\r\nX-Accel-Expires: 10\r\nContent-Type: text/plain\r\n\r\nhidden\n",
	"/slow/answer":   "slow", // after a pause longer than scgi_read_timeout
	"/close":         "",     // closed without an answer
	"/echo":          "",     // the request as the application saw it
	"/intercept/404": "Status: 404 Gone\r\n\r\nthe application's 404\n",
}

// scgiApp is an SCGI application written for exact answers (scgiAnswers).
// It checks each request's netstring as the SCGI specification has it.
// "/cached/counter" answers with how many times it was asked, cacheable.
func scgiApp(t *testing.T, counted *atomic.Int32) string {
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		req, err := scgi.ReadRequest(br, 0)
		if err != nil {
			t.Errorf("a malformed SCGI request: %v", err)
			return
		}
		body := make([]byte, req.ContentLength)
		if _, err := io.ReadFull(br, body); err != nil {
			t.Errorf("the body: %v", err)
			return
		}
		path, _ := req.Get("DOCUMENT_URI")
		switch path {
		case "/cached/counter":
			fmt.Fprintf(c, "Content-Type: text/plain\r\nCache-Control: max-age=60\r\n\r\nanswer %d\n", counted.Add(1))
			return
		case "/slow/answer":
			// A second's pause, cut short when the server gives up
			// first (scgi_read_timeout) and closes the connection.
			c.SetReadDeadline(time.Now().Add(time.Second))
			io.Copy(io.Discard, br)
		case "/echo":
			var vars []string
			for _, v := range req.Vars {
				if strings.HasPrefix(v.Name, "HTTP_") || v.Name == "CONTENT_LENGTH" || v.Name == "SCGI" ||
					v.Name == "REQUEST_URI" || v.Name == "QUERY_STRING" || v.Name == "REQUEST_METHOD" || v.Name == "CONTENT_TYPE" {
					vars = append(vars, v.Name+"="+v.Value)
				}
			}
			sort.Strings(vars)
			fmt.Fprintf(c, "Content-Type: text/plain\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nX-App: yes\r\n\r\n%s\nbody=%s\n",
				strings.Join(vars, "\n"), body)
			return
		}
		io.WriteString(c, scgiAnswers[path])
	})
	return o.Addr()
}

// TestSCGIAnswersAsNGINX sends the same requests to NGINX and mosaic in
// front of one SCGI application that answers each exactly as the test
// wants: the status from Status, from Location alone, from a status
// line; the heads NGINX refuses (502), an application that closes (502),
// one slower than scgi_read_timeout (504), a server refusing connections
// (502), scgi_intercept_errors with error_page, scgi_hide_header and
// scgi_pass_header, a body cut at Content-Length, headers both ways.
func TestSCGIAnswersAsNGINX(t *testing.T) {
	nginxPath(t)
	var counted atomic.Int32
	app := scgiApp(t, &counted)
	deadAddr := fmt.Sprintf("127.0.0.1:%d", refusedPort(t))
	dir := t.TempDir()
	params, err := os.ReadFile("../../modules/scgimod/nginx/scgi_params")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "nginx/scgi_params"), string(params))
	for _, who := range []string{"nginx", "mosaic"} {
		writeFile(t, filepath.Join(dir, who, "html/busy.html"), "our busy page\n")
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		root := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], "html")
		return fmt.Sprintf(`scgi_cache_path %[5]s/cache-%[6]s keys_zone=scgi:1m;
		server {
			listen 127.0.0.1:%[1]d; root %[2]s;
			include scgi_params;
			error_page 503 /busy.html;
			location / { scgi_pass %[3]s; scgi_intercept_errors on; }
			location /raw/ { scgi_pass %[3]s; }
			location /slow/ { scgi_pass %[3]s; scgi_read_timeout 300ms; }
			location /dead/ { scgi_pass %[4]s; }
			location /accel-hidden { scgi_pass %[3]s; scgi_pass_header X-Accel-Expires; scgi_hide_header Content-Type; }
			location /intercept/ { scgi_pass %[3]s; scgi_intercept_errors on; error_page 404 = /status3; }
			location = /busy.html { }
			location /hidden/ {
				include scgi_params; scgi_param HTTP_PROXY ""; scgi_param HTTP_X_EMPTY $arg_none;
				rewrite ^ /echo break; scgi_pass %[3]s;
			}
			location /cached/ {
				scgi_pass %[3]s; scgi_cache scgi; scgi_cache_key $uri;
				add_header X-Cache $upstream_cache_status;
			}
		}`, port, root, app, deadAddr, dir, who)
	})
	get := func(path string) string { return "GET " + path + " HTTP/1.1\r\nHost: a.test" }
	for _, c := range []struct {
		head, body string
		status     int
		want       string // the body, when the test says it
	}{
		{get("/echo?a=1&b=%20x"), "", 200, ""},
		{"POST /echo HTTP/1.1\r\nHost: a.test\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nX-Test: v1\r\nCookie: c=1", "hello", 200, ""},
		{"POST /echo HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked", "5\r\nhello\r\n0\r\n\r\n", 200, ""},
		{"HEAD /status HTTP/1.1\r\nHost: a.test", "", 404, ""},
		{get("/status"), "", 404, "missing\n"},
		// An HTTP_* parameter empty in the configuration only keeps its
		// header back; one empty from a variable is sent.
		{get("/hidden/") + "\r\nProxy: http://evil.test\r\nX-Empty: v", "", 200,
			"CONTENT_LENGTH=0\nCONTENT_TYPE=\nHTTP_CONNECTION=close\nHTTP_HOST=a.test\nHTTP_X_EMPTY=\nQUERY_STRING=\nREQUEST_METHOD=GET\nREQUEST_URI=/hidden/\nSCGI=1\nbody=\n"},
		{get("/status3"), "", 202, "accepted\n"},
		{get("/location"), "", 302, ""},
		{get("/moved"), "", 301, "moved\n"},
		{get("/located200"), "", 200, "still 200\n"},
		{get("/statusline"), "", 203, "from a status line\n"},
		{get("/spacedline"), "", 203, "spaced status line\n"},
		{get("/notaline"), "", 202, "no status line NGINX reads\n"},
		{get("/crcr"), "", 200, "lines ended by CR CR LF\n"},
		{get("/crcrend"), "", 502, ""},
		{get("/length"), "", 200, "abc"},
		{get("/busy"), "", 503, "our busy page\n"},
		{get("/raw/busy"), "", 503, "the application is busy\n"},
		{get("/intercept/404"), "", 202, "accepted\n"},
		{get("/badstatus"), "", 502, ""},
		{get("/badname"), "", 502, ""},
		{get("/nulhead"), "", 502, ""},
		{get("/bighead"), "", 502, ""},
		{get("/unterminated"), "", 502, ""},
		{get("/close"), "", 502, ""},
		{get("/slow/answer"), "", 504, ""},
		{get("/dead/x"), "", 502, ""},
		{get("/accel-hidden"), "", 200, "hidden\n"},
		// scgi_cache: a miss, then a hit with the same answer on each
		// server (the application counts one request from each).
		{get("/cached/counter"), "", 200, ""},
		{get("/cached/counter"), "", 200, ""},
	} {
		req := c.head + "\r\nConnection: close\r\n\r\n" + c.body
		m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
		n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
		if strings.HasPrefix(c.head, "GET /cached/") {
			// Each server's first request reached the application: the
			// first counted 1, the second 2.
			nb = strings.Replace(nb, "answer 2", "answer 1", 1)
		}
		if m.StatusCode != c.status || c.want != "" && mb != c.want {
			t.Errorf("%q: mosaic %d %q, want %d %q", c.head, m.StatusCode, mb, c.status, c.want)
		}
		if m.StatusCode == 502 || m.StatusCode == 504 {
			mb, nb = "", "" // each server's own error page
		}
		if m.StatusCode != n.StatusCode || mb != nb {
			t.Errorf("%q:\nmosaic %d %q\nnginx  %d %q", c.head, m.StatusCode, mb, n.StatusCode, nb)
		}
		// Not Content-Length, which mosaic adds to a short answer NGINX
		// sends chunked.
		for _, k := range []string{"Content-Type", "Location", "Set-Cookie", "X-App", "X-A", "Status", "X-Accel-Expires", "X-Accel-Charset", "X-Cache"} {
			if mv, nv := strings.Join(m.Header[k], "\n"), strings.Join(n.Header[k], "\n"); mv != nv {
				t.Errorf("%q: %s: mosaic %q, nginx %q", c.head, k, mv, nv)
			}
		}
	}
	if n := counted.Load(); n != 2 {
		t.Errorf("the application answered %d cacheable requests, want 2 (one miss per server)", n)
	}
}

// TestSCGIConfigAsNGINX: "mosaic -t" accepts what "nginx -t" accepts of
// the scgi_* directives, and refuses, naming the file and line, what
// NGINX refuses.
func TestSCGIConfigAsNGINX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	params, err := os.ReadFile("../../modules/scgimod/nginx/scgi_params")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "scgi_params"), string(params))
	loc := func(s string) string { return "server {\nlocation / {\n" + s + "\n}\n}" }
	for i, c := range []struct {
		conf string
		ok   bool
		// nginxOK: NGINX loads what mosaic refuses (the scgi README,
		// "Differences from NGINX").
		nginxOK bool
	}{
		{loc("scgi_pass 127.0.0.1:4000;\ninclude scgi_params;\nscgi_param X $uri if_not_empty;"), true, false},
		{loc("scgi_pass unix:/run/app.sock;"), true, false},
		{"upstream u { server 127.0.0.1:4000; }\n" + loc("scgi_pass u;"), true, false},
		{"scgi_cache_path " + dir + "/c keys_zone=z:1m;\n" + loc("scgi_pass 127.0.0.1:4000;\nscgi_cache z;\n"+
			"scgi_cache_key $uri;\nscgi_cache_valid 200 1m;\nscgi_cache_use_stale error timeout updating;\nscgi_cache_lock on;\n"+
			"scgi_cache_methods GET HEAD;\nscgi_no_cache $arg_x;\nscgi_cache_bypass $arg_y;"), true, false},
		{loc("scgi_pass 127.0.0.1:4000;\nscgi_buffers 8 4k;\nscgi_busy_buffers_size 8k;\nscgi_next_upstream error timeout http_500;\n" +
			"scgi_next_upstream_tries 2;\nscgi_next_upstream_timeout 5s;\nscgi_bind 127.0.0.1;\nscgi_socket_keepalive on;\n" +
			"scgi_limit_rate 10k;\nscgi_force_ranges on;\nscgi_store off;\nscgi_store_access user:rw;\n" +
			"scgi_pass_request_body off;\nscgi_pass_request_headers off;\nscgi_intercept_errors on;\n" +
			"scgi_ignore_headers X-Accel-Expires Set-Cookie;\nscgi_hide_header X-A;\nscgi_pass_header X-B;\n" +
			"scgi_request_buffering off;\nscgi_buffering off;\nscgi_ignore_client_abort on;\nscgi_max_temp_file_size 0;\n" +
			"scgi_temp_file_write_size 8k;\nscgi_connect_timeout 1s;\nscgi_send_timeout 1s;\nscgi_read_timeout 1s;\nscgi_buffer_size 8k;"), true, false},
		{loc("scgi_pass 127.0.0.1:4000;\nscgi_pass 127.0.0.1:4001;"), false, false},
		{"server {\nscgi_pass 127.0.0.1:4000;\n}", false, false},
		{loc("scgi_pass 127.0.0.1:4000/uri;"), false, false},
		{loc("scgi_pass scgi://127.0.0.1:4000;"), false, false},
		{loc("scgi_pass 127.0.0.1;"), false, false},
		{loc("scgi_param A;"), false, false},
		{loc("scgi_param A b c;"), false, false},
		{loc("scgi_pass 127.0.0.1:4000;\nscgi_cache nowhere;\nscgi_cache_key $uri;"), false, false},
		{loc("scgi_buffering maybe;"), false, false},
		{loc("scgi_next_upstream bogus;"), false, false},
		{loc("scgi_ignore_headers Foo;"), false, false},
		{loc("scgi_modifier1 1;"), false, false},
		{loc("scgi_pass_request_body on off;"), false, false},
		// NGINX warns, then keeps every answer under one empty key.
		{"scgi_cache_path " + dir + "/c2 keys_zone=y:1m;\n" + loc("scgi_pass 127.0.0.1:4000;\nscgi_cache y;"), false, true},
	} {
		mout, merr, nginx := testBoth(t, dir, i, c.conf)
		if (nginx == "") != (c.ok || c.nginxOK) {
			t.Errorf("%q: NGINX says %q", c.conf, nginx)
		}
		if (merr == nil) != c.ok || !c.ok && !strings.Contains(mout, fmt.Sprintf("bad%d.conf:", i)) {
			t.Errorf("%q:\nmosaic %v %s\nnginx  %s", c.conf, merr, mout, nginx)
		}
	}
}

// TestSCGIHTTP2BodyAsNGINX: an HTTP/2 request whose body comes without a
// content-length (HTTP/2's chunked) reaches the application with the
// body's CONTENT_LENGTH and the header lines the client sent: NGINX
// learns the length by reading the body whole and adds no
// HTTP_CONTENT_LENGTH, which mosaic sent from the Content-Length it
// recorded for $content_length (the proxy's, or a mirror's that read the
// body first).
func TestSCGIHTTP2BodyAsNGINX(t *testing.T) {
	nginxPath(t)
	var counted atomic.Int32
	app := scgiApp(t, &counted)
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%[1]d http2; scgi_param DOCUMENT_URI $document_uri;
			location / { scgi_pass %[2]s; }
			location /mirrored { mirror /m; rewrite ^ /echo break; scgi_pass %[2]s; }
			location = /m { return 204; } }`, port, app)
	})
	h2 := &http2.Transport{AllowHTTP: true, DialTLSContext: func(ctx context.Context, network, addr string, _ *tls.Config) (net.Conn, error) {
		return new(net.Dialer).DialContext(ctx, network, addr)
	}}
	defer h2.CloseIdleConnections()
	for _, c := range []struct {
		path   string
		length int64
	}{{"/echo", -1}, {"/echo", 11}, {"/mirrored", -1}} {
		var got [2]string
		for i, port := range []int{mport, nport} {
			pr, pw := io.Pipe()
			go func() {
				io.WriteString(pw, "hello ")
				io.WriteString(pw, "world")
				pw.Close()
			}()
			req, _ := http.NewRequest("POST", fmt.Sprintf("http://127.0.0.1:%d%s", port, c.path), pr)
			req.Host, req.ContentLength = "a.test", c.length
			resp, err := h2.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got[i] = fmt.Sprintf("%d %s", resp.StatusCode, b)
		}
		if !strings.Contains(got[0], "CONTENT_LENGTH=11\n") || !strings.Contains(got[0], "body=hello world\n") {
			t.Errorf("%s, length %d: mosaic %q", c.path, c.length, got[0])
		}
		if got[0] != got[1] {
			t.Errorf("%s, length %d:\nmosaic %q\nnginx  %q", c.path, c.length, got[0], got[1])
		}
	}
}
