package main

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The request rules (internal/reqrule, applied by server.admit) through
// real listeners: crafted raw requests sent to mosaic on a plain and a TLS
// listener, HTTP/2 for what an HTTP/2 client can express, and the same
// requests to Debian's NGINX on an equivalent configuration. An origin
// records the exact request head it receives.

// ruleCase is one crafted request and what must come of it.
type ruleCase struct {
	name   string
	req    string // the raw request, CRLF-terminated lines
	status int
	// body must be contained in the response body, when set.
	body string
	// upstream is the request line the origin must receive, or "" when
	// the request must not reach it.
	upstream string
	// absent are header names the origin must not receive.
	absent []string
	// sent are the header lines mosaic's proxy sends after its own Host
	// and Connection: with them the origin's head is checked byte for
	// byte.
	sent []string
	// nginxStatus and nginxUpstream are NGINX's answers where mosaic
	// differs on purpose, for the reason given in why.
	nginxStatus   int
	nginxUpstream string
	why           string
}

func (c ruleCase) wantNGINX() (status int, upstream string, absent []string) {
	status, upstream, absent = c.status, c.upstream, c.absent
	if c.nginxStatus != 0 {
		status = c.nginxStatus
	}
	if c.nginxUpstream != "" {
		upstream = c.nginxUpstream
	}
	return status, upstream, absent
}

func rawReq(target, host string, extra ...string) string {
	var b strings.Builder
	b.WriteString("GET " + target + " HTTP/1.1\r\n")
	if host != "" {
		b.WriteString("Host: " + host + "\r\n")
	}
	for _, h := range extra {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("Connection: close\r\n\r\n")
	return b.String()
}

var ruleCases = []ruleCase{
	// A fragment is cut before routing: the location and the upstream see
	// the same path.
	{name: "fragment cannot climb over a location", req: rawReq("/admin/panel#/../../x", "a.example"), status: 403},
	{name: "fragment cut before proxying", req: rawReq("/x#/../admin/panel", "a.example"), status: 200, upstream: "GET /x HTTP/1.0",
		nginxUpstream: "GET /x#/../admin/panel HTTP/1.0", why: "NGINX routes /x but sends the target as the client wrote it"},
	{name: "fragment cut from the query", req: rawReq("/q?a=1#frag", "a.example"), status: 200, upstream: "GET /q?a=1 HTTP/1.0",
		nginxUpstream: "GET /q?a=1#frag HTTP/1.0", why: "as above"},
	{name: "fragment with proxy_pass URI", req: rawReq("/rewrite/p#/../../admin/", "a.example"), status: 200, upstream: "GET /base/p HTTP/1.0"},
	{name: "encoded slash and dots resolved before routing", req: rawReq("/pub/..%2Fadmin/panel", "a.example"), status: 403},
	{name: "dot segments sent as routed", req: rawReq("/a/b/%2e%2e/c", "a.example"), status: 200, upstream: "GET /a/c HTTP/1.0",
		nginxUpstream: "GET /a/b/%2e%2e/c HTTP/1.0", why: "NGINX routes /a/c but sends the raw target, which an origin may resolve otherwise"},
	{name: "merged slashes sent as routed", req: rawReq("//a//b", "a.example"), status: 200, upstream: "GET /a/b HTTP/1.0",
		nginxUpstream: "GET //a//b HTTP/1.0", why: "as above"},
	{name: "dot segments with proxy_pass URI", req: rawReq("/rewrite/x/../y", "a.example"), status: 200, upstream: "GET /base/y HTTP/1.0"},
	{name: "climbing above the root", req: rawReq("/../x", "a.example"), status: 400},

	// Host can never make $host climb.
	{name: "Host ...", req: rawReq("/vh/secret.txt", "..."), status: 400},
	{name: "Host ...:80", req: rawReq("/vh/secret.txt", "...:80"), status: 400},
	{name: "Host ..", req: rawReq("/vh/secret.txt", ".."), status: 400},
	{name: "absolute-form ...", req: rawReq("http://.../vh/secret.txt", "a.example"), status: 400},
	{name: "absolute-form wins over Host", req: rawReq("http://B.Example./host", "a.example"), status: 200, body: "host=[b.example]"},
	{name: "Host with a leading dot", req: rawReq("/vh/x", ".git"), status: 400,
		nginxStatus: 200, why: "NGINX accepts a leading dot (and serves vhosts/.git); mosaic refuses it so that $host never names a hidden directory"},
	{name: "Host with a backslash", req: rawReq("/host", `a\b`), status: 400,
		nginxStatus: 200, why: "NGINX accepts a backslash; mosaic refuses every path separator"},
	{name: "Host with a slash", req: rawReq("/host", "a/b"), status: 400},
	{name: "Host with a space", req: rawReq("/host", "a b"), status: 400},
	{name: "Host normalised", req: rawReq("/host", "A.Example.:80"), status: 200, body: "host=[a.example]"},
	{name: "Host ends at its first colon", req: rawReq("/host", "a:b:c"), status: 200, body: "host=[a]"},
	{name: "Host an IPv6 literal", req: rawReq("/host", "[::1]:80"), status: 200, body: "host=[[::1]]"},
	{name: "vhost root", req: rawReq("/vh/secret.txt", "a.example"), status: 200, body: "vhostA"},
	{name: "HTTP/1.1 without Host", req: "GET /host HTTP/1.1\r\nConnection: close\r\n\r\n", status: 400},
	{name: "HTTP/1.1 with an empty Host", req: "GET /host HTTP/1.1\r\nHost: \r\nConnection: close\r\n\r\n", status: 400},
	{name: "HTTP/1.0 without Host", req: "GET /host HTTP/1.0\r\n\r\n", status: 200, body: "host=[]"},
	{name: "two Host headers", req: rawReq("/host", "a", "Host: b"), status: 400},
	{name: "two Authorization headers", req: rawReq("/h", "a.example", "Authorization: Basic YTpi", "Authorization: Basic YWRtaW46eA=="), status: 400},
	{name: "two If-Modified-Since headers", req: rawReq("/h", "a.example", "If-Modified-Since: Sat, 01 Jan 2000 00:00:00 GMT",
		"If-Modified-Since: Sun, 02 Jan 2000 00:00:00 GMT"), status: 400},

	// A second framing line is refused even when it agrees with the first:
	// NGINX takes Content-Length and Transfer-Encoding once.
	{name: "two equal Content-Length headers", req: "POST /h HTTP/1.1\r\nHost: a.example\r\nContent-Length: 2\r\nContent-Length: 2\r\nConnection: close\r\n\r\nab", status: 400},
	{name: "two Transfer-Encoding headers", req: "POST /h HTTP/1.1\r\nHost: a.example\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n", status: 400},

	{name: "Transfer-Encoding gzip with Content-Length", req: "POST /h HTTP/1.1\r\nHost: a.example\r\nContent-Length: 2\r\nTransfer-Encoding: gzip\r\nConnection: close\r\n\r\nab", status: 501},

	// Header names NGINX deems invalid never reach a handler.
	{name: "underscore header dropped", req: rawReq("/h", "a.example", "X-Forwarded-For: 1.1.1.1", "X_Forwarded_For: 6.6.6.6"),
		status: 200, upstream: "GET /h HTTP/1.0", absent: []string{"X_Forwarded_For"}, sent: []string{"X-Forwarded-For: 1.1.1.1"}},
	{name: "dotted header dropped", req: rawReq("/h", "a.example", "X.Forwarded-For: 6.6.6.6"),
		status: 200, upstream: "GET /h HTTP/1.0", absent: []string{"X.Forwarded-For"}},
	{name: "underscores_in_headers on", req: rawReq("/h", "under.example", "X_Custom: 1", "X.Custom: 1"),
		status: 200, upstream: "GET /h HTTP/1.0", absent: []string{"X.Custom"}, sent: []string{"X_Custom: 1"}},
	{name: "ignore_invalid_headers off", req: rawReq("/h", "lax.example", "X.Custom: 1"),
		status: 200, upstream: "GET /h HTTP/1.0", sent: []string{"X.Custom: 1"}},
	{name: "header name outside the token set", req: rawReq("/h", "a.example", `X"y: 1`),
		status: 200, upstream: "GET /h HTTP/1.0", absent: []string{`X"y`}},
	{name: "space before the colon", req: rawReq("/h", "a.example", "X-Forwarded-For : 6.6.6.6"), status: 400},
	{name: "Proxy-Authorization is forwarded", req: rawReq("/h", "a.example", "Proxy-Authorization: Basic c2VjcmV0"),
		status: 200, upstream: "GET /h HTTP/1.0", sent: []string{"Proxy-Authorization: Basic c2VjcmV0"}},

	// Methods.
	{name: "CONNECT authority-form", req: "CONNECT origin.example:443 HTTP/1.1\r\nHost: origin.example:443\r\n\r\n", status: 400},
	{name: "CONNECT origin-form", req: "CONNECT / HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n", status: 405},
	{name: "TRACE", req: "TRACE / HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n", status: 405},
	{name: "lower-case method", req: "get / HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n", status: 400},
	{name: "method with !", req: "G!T / HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n", status: 400},
	{name: "method with _", req: "G_T /m HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n", status: 200, upstream: "G_T /m HTTP/1.0"},
	{name: "OPTIONS *", req: "OPTIONS * HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n", status: 400},
}

// recordingOrigin answers every request with its request line, after
// recording the whole request head.
type recordingOrigin struct {
	ln    net.Listener
	heads chan string
}

func newRecordingOrigin(t *testing.T) *recordingOrigin {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o := &recordingOrigin{ln: ln, heads: make(chan string, 16)}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				c.SetDeadline(time.Now().Add(5 * time.Second))
				br := bufio.NewReader(c)
				var head strings.Builder
				for {
					line, err := br.ReadString('\n')
					if err != nil {
						return
					}
					head.WriteString(line)
					if line == "\r\n" || line == "\n" {
						break
					}
				}
				o.heads <- head.String()
				first, _, _ := strings.Cut(head.String(), "\r\n")
				body := "origin saw: " + first
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nProxy-Authenticate: Basic realm=\"origin\"\r\nConnection: close\r\n\r\n%s", len(body), body)
			}()
		}
	}()
	return o
}

func (o *recordingOrigin) addr() string { return o.ln.Addr().String() }

// take returns the head the origin received for the last request, or ""
// when none came. The origin records before it answers, so a request
// that reached it is there once its response is in.
func (o *recordingOrigin) take() string {
	select {
	case h := <-o.heads:
		return h
	case <-time.After(50 * time.Millisecond):
		return ""
	}
}

// ruleSite is the configuration both servers run: {listen} is replaced by
// each server's listen lines, {root} by the site directory.
const ruleSite = `
	server {
		{listen}
		location /admin/ { return 403; }
		location /host { return 200 "host=[$host]"; }
		location /vh/ { root {root}/vhosts/$host; }
		location /rewrite/ { proxy_pass http://{origin}/base/; }
		location / { proxy_pass http://{origin}; }
	}
	server {
		{listen}
		server_name under.example;
		underscores_in_headers on;
		location / { proxy_pass http://{origin}; }
	}
	server {
		{listen}
		server_name lax.example;
		ignore_invalid_headers off;
		location / { proxy_pass http://{origin}; }
	}`

func ruleSiteFiles(t *testing.T, dir string) {
	writeFile(t, filepath.Join(dir, "vhosts/a.example/vh/secret.txt"), "vhostA")
	writeFile(t, filepath.Join(dir, "vh/secret.txt"), "outside every vhost")
	writeFile(t, filepath.Join(dir, "vhosts/.git/vh/x"), "hidden")
}

func ruleConf(dir, listen, origin string) string {
	return strings.NewReplacer("{listen}", listen, "{root}", dir, "{origin}", origin).Replace(ruleSite)
}

// ruleResult is what one raw request got: the status and body of the
// response, and the head the origin received ("" if none).
type ruleResult struct {
	status    int
	body      string
	head      string
	proxyAuth string // the Proxy-Authenticate the client got
}

func sendRaw(t *testing.T, dial func() (net.Conn, error), o *recordingOrigin, req string) ruleResult {
	t.Helper()
	c, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return ruleResult{status: resp.StatusCode, body: string(b), head: o.take(), proxyAuth: resp.Header.Get("Proxy-Authenticate")}
}

func checkRule(t *testing.T, c ruleCase, got ruleResult, status int, upstream string, absent []string) {
	t.Helper()
	if got.status != status {
		t.Errorf("%s: status %d, want %d (%q)", c.name, got.status, status, got.body)
	}
	if c.body != "" && !strings.Contains(got.body, c.body) {
		t.Errorf("%s: body %q, want %q in it", c.name, got.body, c.body)
	}
	line, _, _ := strings.Cut(got.head, "\r\n")
	if line != upstream {
		t.Errorf("%s: the origin received %q, want %q", c.name, line, upstream)
	}
	for _, h := range absent {
		if headerIn(got.head, h) {
			t.Errorf("%s: the origin received %s:\n%s", c.name, h, got.head)
		}
	}
}

// headerIn reports whether a request head has a field called name (any
// case).
func headerIn(head, name string) bool {
	for _, line := range strings.Split(head, "\r\n")[1:] {
		if n, _, ok := strings.Cut(line, ":"); ok && strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

func TestRequestRules(t *testing.T) {
	dir := t.TempDir()
	ruleSiteFiles(t, dir)
	origin := newRecordingOrigin(t)
	cert, key := selfSigned(t, dir)
	port, tlsPort := freePort(t), freePort(t)
	listen := fmt.Sprintf("listen 127.0.0.1:{port}; listen 127.0.0.1:%d ssl http2; ssl_certificate %s; ssl_certificate_key %s;", tlsPort, cert, key)
	startMosaic(t, dir, "http {"+ruleConf(dir, listen, origin.addr())+"}", port)

	listeners := map[string]func() (net.Conn, error){
		"plain": func() (net.Conn, error) { return net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port)) },
		"tls": func() (net.Conn, error) {
			return tls.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", tlsPort), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
		},
	}
	for name, dial := range listeners {
		t.Run(name, func(t *testing.T) {
			for _, c := range ruleCases {
				got := sendRaw(t, dial, origin, c.req)
				checkRule(t, c, got, c.status, c.upstream, c.absent)
				if c.upstream != "" {
					want := c.upstream + "\r\nHost: " + origin.addr() + "\r\nConnection: close\r\n"
					for _, line := range c.sent {
						want += line + "\r\n"
					}
					if want += "\r\n"; got.head != want {
						t.Errorf("%s: the origin received\n%q\nwant\n%q", c.name, got.head, want)
					}
				}
				if c.upstream != "" && got.proxyAuth != `Basic realm="origin"` {
					// Passed, as from NGINX (TestProxyAuthenticateAsNGINX).
					t.Errorf("%s: Proxy-Authenticate %q reached the client", c.name, got.proxyAuth)
				}
			}
		})
	}

	t.Run("h2", func(t *testing.T) {
		client := &http.Client{Transport: &http.Transport{
			TLSClientConfig:   &tls.Config{InsecureSkipVerify: true},
			ForceAttemptHTTP2: true,
		}}
		base := fmt.Sprintf("https://127.0.0.1:%d", tlsPort)
		cases := []struct {
			name, method, path, host string
			header                   map[string]string
			status                   int
			upstream                 string
			absent                   string
		}{
			{name: "fragment", method: "GET", path: "/admin/panel#/../../x", host: "a.example", status: 403},
			{name: "Host ...", method: "GET", path: "/vh/secret.txt", host: "...", status: 400},
			{name: "Host with a leading dot", method: "GET", path: "/vh/x", host: ".git", status: 400},
			{name: "underscore header", method: "GET", path: "/h", host: "a.example", header: map[string]string{"X_Forwarded_For": "6.6.6.6"},
				status: 200, upstream: "GET /h HTTP/1.0", absent: "X_Forwarded_For"},
			{name: "TRACE", method: "TRACE", path: "/", host: "a.example", status: 405},
			{name: "lower-case method", method: "get", path: "/", host: "a.example", status: 400},
			{name: "dot segments", method: "GET", path: "/a/b/%2e%2e/c", host: "a.example", status: 200, upstream: "GET /a/c HTTP/1.0"},
		}
		for _, c := range cases {
			req, err := http.NewRequest(c.method, base+"/", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.URL.Opaque = c.path // sent as :path, unchanged
			req.Host = c.host
			for k, v := range c.header {
				req.Header[k] = []string{v}
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.ProtoMajor != 2 {
				t.Fatalf("%s: served over %s", c.name, resp.Proto)
			}
			head := origin.take()
			line, _, _ := strings.Cut(head, "\r\n")
			if resp.StatusCode != c.status || line != c.upstream || c.absent != "" && headerIn(head, c.absent) {
				t.Errorf("%s: status %d, origin got %q; want %d, %q without %q", c.name, resp.StatusCode, head, c.status, c.upstream, c.absent)
			}
		}
	})
}

// TestRequestRulesMatchNGINX sends the same requests to Debian's NGINX on
// the same configuration: every answer must be NGINX's, or a documented
// deliberate difference (ruleCase.why).
func TestRequestRulesMatchNGINX(t *testing.T) {
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		nginx = "/usr/sbin/nginx"
		if _, err := os.Stat(nginx); err != nil {
			t.Skip("nginx is not installed (.ci/run installs it)")
		}
	}
	dir := t.TempDir()
	ruleSiteFiles(t, dir)
	origin := newRecordingOrigin(t)
	port := freePort(t)
	conf := fmt.Sprintf(`daemon off; master_process off; worker_processes 1;
		error_log %[1]s/error.log info; pid %[1]s/nginx.pid;
		events { worker_connections 64; }
		http {
			access_log off;
			client_body_temp_path %[1]s/body; proxy_temp_path %[1]s/proxy; fastcgi_temp_path %[1]s/fcgi;
			uwsgi_temp_path %[1]s/uwsgi; scgi_temp_path %[1]s/scgi;
			%[2]s
		}`, dir, ruleConf(dir, fmt.Sprintf("listen 127.0.0.1:%d;", port), origin.addr()))
	writeFile(t, filepath.Join(dir, "nginx.conf"), conf)
	cmd := exec.Command(nginx, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"), "-e", filepath.Join(dir, "error.log"))
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	waitPort(t, port, &proc{cmd: cmd, out: out, done: done})

	dial := func() (net.Conn, error) { return net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port)) }
	for _, c := range ruleCases {
		status, up, absent := c.wantNGINX()
		checkRule(t, c, sendRaw(t, dial, origin, c.req), status, up, absent)
	}
}

// An error page that answers with its error's status: the Range or the
// validators of the request that failed never make it partial or a 304
// (with "=" or "=200" they do: TestErrorPageRangeAsNGINX).
func TestErrorPagesIgnorePreconditions(t *testing.T) {
	dir := t.TempDir()
	page := "<html>this page is gone</html>"
	writeFile(t, filepath.Join(dir, "site/404.html"), page)
	port := freePort(t)
	startMosaic(t, dir, `http { server { listen 127.0.0.1:{port}; root site; error_page 404 /404.html; } }`, port)
	url := fmt.Sprintf("http://127.0.0.1:%d/missing", port)
	for _, h := range []map[string]string{
		{"Range": "bytes=0-3"},
		{"Range": "bytes=0-3", "If-Range": "Thu, 01 Jan 2099 00:00:00 GMT"},
		{"If-None-Match": "*"},
		{"If-Modified-Since": "Thu, 01 Jan 2099 00:00:00 GMT"},
		{"If-Match": `"nothing"`},
	} {
		resp, body := do(t, "GET", url, h)
		if resp.StatusCode != http.StatusNotFound || body != page || resp.Header.Get("Content-Range") != "" {
			t.Errorf("%v: %d %q, Content-Range %q; want the whole 404 page", h, resp.StatusCode, body, resp.Header.Get("Content-Range"))
		}
	}
}

// error_page replaces the server's own error responses only: an
// upstream's 404, fresh or from the cache, reaches the client as the
// upstream sent it (NGINX's proxy_intercept_errors off), while the
// proxy's own 502 gets the page.
func TestErrorPageLeavesUpstreamAnswers(t *testing.T) {
	origin := newCacheOrigin(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "the origin's own 404")
	})
	dead := refusedPort(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "site/err.html"), "mosaic's error page")
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http {
		proxy_cache_path memory keys_zone=z:1m;
		server { listen 127.0.0.1:{port}; root site;
			error_page 404 502 /err.html;
			location = /err.html { internal; }
			location /fresh/ { proxy_pass http://%[1]s; }
			location /cached/ { proxy_pass http://%[1]s; proxy_cache z; proxy_cache_valid 404 1m; }
			location /dead/ { proxy_pass http://127.0.0.1:%[2]d; }
		}
	}`, origin.addr(), dead), port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for i, path := range []string{"/fresh/x", "/cached/x", "/cached/x"} {
		resp, body := do(t, "GET", base+path, nil)
		if resp.StatusCode != 404 || body != "the origin's own 404" {
			t.Errorf("%s: %d %q, want the origin's 404", path, resp.StatusCode, body)
		}
		if cs := resp.Header.Get("Cache-Status"); i == 2 && !strings.Contains(cs, "hit") {
			t.Errorf("%s: Cache-Status %q, want a hit", path, cs)
		}
	}
	if resp, body := do(t, "GET", base+"/dead/x", nil); resp.StatusCode != 502 || body != "mosaic's error page" {
		t.Errorf("/dead/x: %d %q, want the error page with 502", resp.StatusCode, body)
	}
}
