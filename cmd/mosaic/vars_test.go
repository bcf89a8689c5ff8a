package main

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/vars"
)

// The core variables, as `return 200 "$var"` and the access log show
// them, compared with Debian's NGINX serving the same http block: the
// same raw requests must give the same bytes, except for the values that
// belong to one process or one moment (ports, pids, times, ids), which
// are checked by their format.

// exactVars are the variables whose values both servers must agree on
// for the same request.
var exactVars = []string{
	"request", "request_method", "request_uri", "uri", "document_uri", "args", "query_string",
	"is_args", "arg_a", "arg_b", "arg_missing", "http_x_multi", "http_cookie",
	"http_x_forwarded_for", "http_user_agent", "http_host", "cookie_sid", "cookie_x", "content_type",
	"content_length", "host", "scheme", "https", "server_protocol", "server_name",
	"remote_addr", "binary_remote_addr", "remote_user", "server_addr", "request_length",
	"status", "limit_rate", "nginx_version", "hostname", "document_root", "realpath_root",
	"request_filename", "http2", "connection_requests", "bytes_sent", "body_bytes_sent",
	"ssl_protocol", "ssl_cipher", "ssl_server_name",
	"ssl_session_reused", "ssl_client_verify", "ssl_client_s_dn", "ssl_alpn_protocol",
	"request_body", "pipe",
}

// formatVars are the variables that differ between the two processes,
// with the form each must have.
var formatVars = []struct {
	name string
	re   string
}{
	{"pid", `[1-9][0-9]*`},
	{"connection", `[1-9][0-9]*`},
	{"request_id", `[0-9a-f]{32}`},
	{"msec", `[0-9]{10}\.[0-9]{3}`},
	{"time_local", `[0-3][0-9]/[A-Z][a-z]{2}/20[0-9]{2}:[0-2][0-9]:[0-5][0-9]:[0-6][0-9] [+-][0-9]{4}`},
	{"time_iso8601", `20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9][+-][0-9]{2}:[0-9]{2}`},
	{"date_gmt", `[A-Z][a-z]+day, [0-3][0-9]-[A-Z][a-z]{2}-20[0-9]{2} [0-2][0-9]:[0-5][0-9]:[0-6][0-9] GMT`},
	{"date_local", `[A-Z][a-z]+day, [0-3][0-9]-[A-Z][a-z]{2}-20[0-9]{2} [0-2][0-9]:[0-5][0-9]:[0-6][0-9] [A-Z]+`},
	{"request_time", `0\.[0-9]{3}`},
	{"connection_time", `[0-9]+\.[0-9]{3}`},
	{"remote_port", `[1-9][0-9]*`},
}

// joinVars makes a return text of the variables, "|" between them.
func joinVars(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = "$" + n
	}
	return strings.Join(parts, "|")
}

// logVars go to the access log: they are only complete once the response
// has gone (sizes, upstream variables).
var logVars = []string{
	"request_uri", "uri", "args", "status", "bytes_sent", "body_bytes_sent", "request_length",
	"sent_http_content_type", "sent_http_content_length", "sent_http_x_up", "sent_http_location",
	"upstream_http_x_up", "upstream_cookie_sid", "upstream_status", "upstream_response_length",
	"document_root", "request_filename", "request_body", "sent_http_x_srv",
}

// connVars are sent back in a header field by add_header, which reads
// them as the header goes: by the time NGINX logs, it has dropped the
// request's keep-alive and chunked states, so that in the access log
// $sent_http_connection says "close" and $sent_http_transfer_encoding
// nothing for every request (mosaic keeps saying what it sent).
const connVars = "$sent_http_connection|$sent_http_keep_alive|$sent_http_transfer_encoding"

// varsHTTP is the http block both servers run; listen is the server's
// listen directives, ssl its ssl_certificate lines.
func varsHTTP(dir, listen, ssl, origin, logFile string) string {
	return fmt.Sprintf(`
		log_format vars '%[6]s';
		access_log %[5]s vars;
		map $sent_http_content_type $ctmap { default other; ~^text/ text; }
		server {
			%[2]s
			server_name vars.test;
			%[3]s
			root %[1]s/www/;
			add_header X-Srv "$request_method $status";
			location /v/ { return 200 "%[7]s"; }
			location = /fmt { return 200 "%[8]s"; }
			location /i/ { alias %[1]s/www/; return 200 "$document_root|$request_filename|$realpath_root"; }
			location ~ ^/re/(.*)$ { alias %[1]s/www/$1; return 200 "$document_root|$request_filename"; }
			location /tf/ { try_files /missing /v/fallback?from=tf; }
			location /rw/ { rewrite ^/rw/(.*)$ /v/rewritten/$1?r=1 last; }
			location = /gone { error_page 404 /v/error-page; return 404; }
			location = /gone200 { error_page 404 =200 /v/error-page?e=1; return 404; }
			location = /goneown { error_page 404 = /v/error-page; return 404; }
			location /files/ { add_header X-Conn "$sent_http_content_type|$ctmap|$sent_http_content_length"; }
			location /link/ { root %[1]s/current/; keepalive_timeout 60s 30s;
				add_header X-Conn "%[9]s";
				return 200 "$document_root|$realpath_root|$request_filename"; }
			location /up/ { proxy_pass http://%[4]s; add_header X-Conn "%[9]s"; }
			location /stream/ { proxy_pass http://%[4]s; proxy_buffering off; add_header X-Conn "%[9]s"; }
		}`, dir, listen, ssl, origin, logFile, joinVars(logVars), joinVars(exactVars), fmtVarsText(), connVars)
}

func fmtVarsText() string {
	names := make([]string, len(formatVars))
	for i, v := range formatVars {
		names[i] = v.name
	}
	return joinVars(names)
}

// varsOrigin is the upstream of /up/: a header, a cookie and a body.
func varsOrigin(t *testing.T) *httptest.Server {
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("X-Up", "first")
		w.Header().Add("X-Up", "second")
		w.Header().Add("Set-Cookie", "other=1; Path=/")
		w.Header().Add("Set-Cookie", "SID = up-1 ; Path=/; HttpOnly")
		w.Header().Set("Content-Type", "text/x-up")
		if r.URL.Query().Has("chunked") {
			w.(http.Flusher).Flush() // no length: the proxy relays it chunked
		}
		io.WriteString(w, "upstream body")
	}))
	t.Cleanup(o.Close)
	return o
}

// varsRequests are sent, byte for byte the same, to both servers; each
// entry is one connection's requests.
var varsRequests = [][]string{
	{"GET /v/a?a&A=2&a=3&b=x%20y HTTP/1.1\r\nHost: Vars.Test:80\r\nUser-Agent: t/1\r\nX-Multi: one\r\nX-Multi: two\r\n" +
		"Cookie: x=1; SID = v1 ; sid=2\r\nCookie: later=3\r\nX-Forwarded-For: 10.0.0.1\r\nX-Forwarded-For: 10.0.0.2\r\n" +
		"Authorization: Basic dXNlcjpwYXNz\r\n\r\n",
		"GET /v/second HTTP/1.1\r\nHost: vars.test\r\n\r\n"},
	{"POST /v/post HTTP/1.1\r\nHost: vars.test\r\nContent-Type: text/x-form\r\nContent-Length: 5\r\n\r\nhello"},
	{"GET /v/old HTTP/1.0\r\n\r\n"},
	{"GET http://Other.Example/v/abs?x=1 HTTP/1.1\r\nHost: vars.test\r\n\r\n"},
	{"GET http://other.example/v/abs10 HTTP/1.0\r\n\r\n"},
	{"GET /v/%7Ea/./b/../c?q HTTP/1.1\r\nHost: vars.test\r\n\r\n"},
	{"GET /i/sub/file.txt HTTP/1.1\r\nHost: vars.test\r\n\r\n"},
	{"GET /re/sub/file.txt HTTP/1.1\r\nHost: vars.test\r\n\r\n"},
	{"GET /tf/x?orig=1 HTTP/1.1\r\nHost: vars.test\r\n\r\n"},
	{"GET /rw/x?o=2 HTTP/1.1\r\nHost: vars.test\r\n\r\n"},
	{"GET /gone?g=1 HTTP/1.1\r\nHost: vars.test\r\n\r\n",
		"GET /gone200?g=1 HTTP/1.1\r\nHost: vars.test\r\n\r\n",
		"GET /goneown HTTP/1.1\r\nHost: vars.test\r\n\r\n"},
	{"GET /files/f.txt HTTP/1.1\r\nHost: vars.test\r\n\r\n"},
	{"GET /files HTTP/1.1\r\nHost: vars.test\r\n\r\n"},
	{"GET /up/x?u=1 HTTP/1.1\r\nHost: vars.test\r\n\r\n"},
	// A body without a length goes chunked to HTTP/1.1 clients from
	// both, buffered or not.
	{"GET /stream/x?chunked HTTP/1.1\r\nHost: vars.test\r\n\r\n",
		"GET /stream/x?chunked HTTP/1.0\r\nHost: vars.test\r\n\r\n"},
	// A body of unknown length goes whole to the proxy's memory (HTTP/1.0
	// upstream) in both: $request_body has it.
	{"POST /up/body HTTP/1.1\r\nHost: vars.test\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"},
	{"GET /link/a/b HTTP/1.1\r\nHost: vars.test\r\n\r\n",
		"GET /link/c HTTP/1.0\r\nHost: vars.test\r\n\r\n"},
	{"HEAD /v/head HTTP/1.1\r\nHost: vars.test\r\n\r\n"},
}

// varsAnswer is a response's status line and body, and how many bytes
// it took on the wire.
type varsAnswer struct {
	status string
	body   string
	conn   string // X-Conn
	wire   int64
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// sendVars sends one connection's requests and reads the answers.
func sendVars(t *testing.T, addr string, reqs []string) []varsAnswer {
	t.Helper()
	c, err := net.Dial("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	cr := &countingReader{r: c}
	br := bufio.NewReader(cr)
	var out []varsAnswer
	var consumed int64
	for _, raw := range reqs {
		if _, err := io.WriteString(c, raw); err != nil {
			t.Fatal(err)
		}
		method, _, _ := strings.Cut(raw, " ")
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		// One request at a time: what the reader holds belongs to no
		// response yet.
		at := cr.n - int64(br.Buffered())
		out = append(out, varsAnswer{resp.Status, string(b), resp.Header.Get("X-Conn"), at - consumed})
		consumed = at
	}
	return out
}

func varsSiteFiles(t *testing.T, dir string) {
	writeFile(t, filepath.Join(dir, "www/sub/file.txt"), "file")
	if err := os.Symlink("www", filepath.Join(dir, "current")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "www/files/f.txt"), "static file")
	writeFile(t, filepath.Join(dir, "www/files/index.html"), "index")
}

func nginxPath(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx"
	}
	t.Skip("nginx is not installed (.ci/run installs it)")
	return ""
}

// startNGINX runs NGINX on the http block until the test ends and waits
// for port.
func startNGINX(t *testing.T, dir, httpBlock string, port int) {
	t.Helper()
	startNGINXMain(t, dir, "", httpBlock, port)
}

// startNGINXMain is startNGINX with main-level lines (load_module) first.
func startNGINXMain(t *testing.T, dir, main, httpBlock string, port int) {
	t.Helper()
	nginx := nginxPath(t)
	conf := fmt.Sprintf(`%[3]s
		daemon off; master_process off; worker_processes 1;
		error_log %[1]s/error.log info; pid %[1]s/nginx.pid;
		events { worker_connections 64; }
		http {
			client_body_temp_path %[1]s/body; proxy_temp_path %[1]s/proxy; fastcgi_temp_path %[1]s/fcgi;
			uwsgi_temp_path %[1]s/uwsgi; scgi_temp_path %[1]s/scgi;
			%[2]s
		}`, dir, httpBlock, main)
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
}

// startBoth starts NGINX and mosaic on the same http-level block, NGINX
// in dir/nginx (where a test puts the files it includes) and mosaic in
// dir/mosaic, and returns their ports. block gets each server's port and
// who it is for ("m" or "n").
func startBoth(t *testing.T, dir string, block func(who string, port int) string) (mport, nport int) {
	t.Helper()
	return startBothMain(t, dir, "", block)
}

// startBothMain is startBoth with main-level lines (load_module) before
// the http block, the same for both.
func startBothMain(t *testing.T, dir, main string, block func(who string, port int) string) (mport, nport int) {
	t.Helper()
	mport, nport = freePort(t), freePort(t)
	for _, sub := range []string{"nginx", "mosaic"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	startNGINXMain(t, filepath.Join(dir, "nginx"), main, block("n", nport), nport)
	startMosaic(t, filepath.Join(dir, "mosaic"), main+"http {\n"+block("m", mport)+"\n}\n", mport)
	return mport, nport
}

// splitVars pairs names with the "|"-separated values of a return text.
func splitVars(t *testing.T, names []string, body string) map[string]string {
	t.Helper()
	vals := strings.Split(body, "|")
	if len(vals) != len(names) {
		t.Fatalf("%d values for %d variables: %q", len(vals), len(names), body)
	}
	m := make(map[string]string, len(names))
	for i, n := range names {
		m[n] = vals[i]
	}
	return m
}

func TestCoreVariablesMatchNGINX(t *testing.T) {
	nginxPath(t)
	origin := varsOrigin(t)
	originAddr := origin.Listener.Addr().String()

	type server struct {
		name, dir, log string
		port           int
		answers        [][]varsAnswer
	}
	servers := []*server{{name: "mosaic"}, {name: "nginx"}}
	for _, s := range servers {
		// Both serve the same directory, so that paths agree.
		s.port = freePort(t)
	}
	dir := t.TempDir()
	varsSiteFiles(t, dir)
	for _, s := range servers {
		s.dir = filepath.Join(dir, s.name)
		s.log = filepath.Join(s.dir, "access.log")
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		block := varsHTTP(dir, fmt.Sprintf("listen 127.0.0.1:%d;", s.port), "", originAddr, s.log)
		if s.name == "mosaic" {
			startMosaic(t, s.dir, "http {"+block+"}", s.port)
		} else {
			startNGINX(t, s.dir, block, s.port)
		}
	}
	for _, s := range servers {
		logged := 0
		for _, reqs := range varsRequests {
			s.answers = append(s.answers, sendVars(t, fmt.Sprintf("127.0.0.1:%d", s.port), reqs))
			// A request is logged after its last byte is sent: the next
			// connection's first request could be logged before it.
			// The log lines are compared in order.
			logged += len(reqs)
			waitLog(t, s.log, logged)
		}
	}
	m, n := servers[0], servers[1]
	for i, reqs := range varsRequests {
		for j, req := range reqs {
			ma, na := m.answers[i][j], n.answers[i][j]
			what := strings.SplitN(req, "\r\n", 2)[0]
			if ma.status != na.status {
				t.Errorf("%s: status %q, NGINX %q", what, ma.status, na.status)
				continue
			}
			if ma.conn != na.conn {
				t.Errorf("%s: %s = %q, NGINX %q", what, connVars, ma.conn, na.conn)
			}
			if !regexp.MustCompile(`^(GET|POST) /(v|tf|rw|gone)\b`).MatchString(req) {
				if sameSig(ma.body) != sameSig(na.body) {
					t.Errorf("%s: body %q, NGINX %q", what, ma.body, na.body)
				}
				continue
			}
			mv, nv := splitVars(t, exactVars, ma.body), splitVars(t, exactVars, na.body)
			for _, name := range exactVars {
				if mv[name] != nv[name] {
					t.Errorf("%s: $%s = %q, NGINX %q", what, name, mv[name], nv[name])
				}
			}
		}
	}

	// The volatile ones, by their form.
	for _, s := range servers {
		got := sendVars(t, fmt.Sprintf("127.0.0.1:%d", s.port), []string{"GET /fmt HTTP/1.1\r\nHost: vars.test\r\n\r\n"})[0].body
		vals := strings.Split(got, "|")
		if len(vals) != len(formatVars) {
			t.Fatalf("%s: %q", s.name, got)
		}
		for i, v := range formatVars {
			if !regexp.MustCompile("^" + v.re + "$").MatchString(vals[i]) {
				t.Errorf("%s: $%s = %q, want the form %s", s.name, v.name, vals[i], v.re)
			}
		}
	}

	// The access log: sizes, the URI after redirects, the upstream's.
	// Each server's $bytes_sent must be what it sent (mosaic sends
	// neither "Server" nor, to HTTP/1.1 clients, "Connection: keep-alive",
	// and signs its error pages "mosaic"); the rest must be NGINX's,
	// $body_bytes_sent with the chunks' framing as NGINX counts it.
	for _, s := range servers {
		var answers []varsAnswer
		for _, a := range s.answers {
			answers = append(answers, a...)
		}
		lines := waitLog(t, s.log, len(answers)+1)
		for i, a := range answers {
			v := splitVars(t, logVars, lines[i])
			if want := strconv.FormatInt(a.wire, 10); v["bytes_sent"] != want {
				t.Errorf("%s, %s: $bytes_sent = %s, %s bytes came", s.name, v["request_uri"], v["bytes_sent"], want)
			}
		}
	}
	mlog, nlog := waitLog(t, m.log, 1), waitLog(t, n.log, 1)
	if len(mlog) != len(nlog) {
		t.Fatalf("%d log lines, NGINX %d", len(mlog), len(nlog))
	}
	for i := range nlog {
		mv, nv := splitVars(t, logVars, mlog[i]), splitVars(t, logVars, nlog[i])
		for _, name := range logVars {
			switch name {
			case "bytes_sent", "body_bytes_sent", "sent_http_content_length":
				if nv["request_uri"] == "/files" {
					continue // the signature of the redirect's page
				}
				if name == "bytes_sent" {
					continue
				}
			}
			mval := strings.ReplaceAll(mv[name], strconv.Itoa(m.port), "PORT")
			nval := strings.ReplaceAll(nv[name], strconv.Itoa(n.port), "PORT")
			if mval != nval {
				t.Errorf("log line %d (%s): $%s = %q, NGINX %q", i, nv["request_uri"], name, mv[name], nv[name])
			}
		}
	}
}

// sameSig makes mosaic's and NGINX's signatures on generated pages alike.
func sameSig(body string) string {
	return strings.ReplaceAll(body, "nginx/"+vars.NGINXVersion, "mosaic")
}

// startTLSVarServers starts mosaic and NGINX with the same TLS server
// (HTTP/2 offered, a self-signed certificate for vars.test) whose one
// location answers with the values of names, and returns their ports.
func startTLSVarServers(t *testing.T, names []string) (mport, nport int) {
	t.Helper()
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	block := func(port int) string {
		return fmt.Sprintf(`access_log off; server { listen 127.0.0.1:%d ssl http2; server_name vars.test;
			ssl_certificate %s; ssl_certificate_key %s; ssl_protocols TLSv1.2 TLSv1.3;
			location / { return 200 "%s"; } }`, port, cert, key, joinVars(names))
	}
	return startBoth(t, dir, func(_ string, port int) string { return block(port) })
}

// TestRequestFamiliesMatchNGINX: $arg_NAME, $cookie_NAME and $http_NAME
// over odd arguments, Cookie lines and header fields, echoed by NGINX and
// by mosaic; a prefix without a name is a variable too.
func TestRequestFamiliesMatchNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%d;
			location /a { return 200 "[$arg_a][$arg_A][$arg_a_b][$arg_1][$arg_]"; }
			location /c { return 200 "[$cookie_a][$cookie_A][$cookie_a_b][$http_cookie][$cookie_]"; }
			location /h { return 200 "[$http_x_a][$http_x__a][$http_x_a_b][$http_user_agent][$http_x_forwarded_for][$http_referer][$http_content_length][$http_accept_encoding][$http_][$sent_http_][$upstream_http_]"; }
		}`, port)
	})
	for _, q := range []string{"", "a=1", "a=1&a=2", "A=3", "a", "a&a=1", "a=", "ab=1&a=2", "xa=1&a=2", "a=%20x",
		"a=1;a=2", "&a=1", "a=1&", "==1", "=x", "a-b=1", "a_b=2", "1=one", "a=b=c", "a=+"} {
		sameAnswer(t, mport, nport, "GET /a?"+q+" HTTP/1.1\r\nHost: a", "")
	}
	for _, lines := range [][]string{{}, {"a=1"}, {"a=1; a=2"}, {"b=2", "a=3"}, {"A=4"}, {"a = 5"}, {"a=6,b=7"},
		{"b=1,a=8"}, {"ab=1; a=9"}, {"a"}, {"a; a=10"}, {"a,a=11; a=12"}, {"a", "a=13"}, {"a_b=14"}, {"=15"},
		{"a=\"16\""}, {"a=1; =23"}, {"=24; b=1"}, {"x=1;a=17 ;c"}, {"a=18", "a=19"}, {"x=a=20"}, {"a =21"}, {"b=x a=22"}} {
		head := "GET /c HTTP/1.1\r\nHost: a"
		for _, l := range lines {
			head += "\r\nCookie: " + l
		}
		sameAnswer(t, mport, nport, head, "")
	}
	for _, fields := range [][]string{{}, {"X-A: 1"}, {"x-a: 1", "X-A: 2"}, {"X_A: 3"}, {"X--A: 4"}, {"X-A-B: 5"},
		{"User-Agent: u1", "User-Agent: u2"}, {"X-Forwarded-For: 1", "X-Forwarded-For: 2, 3"},
		{"Referer: r1", "Referer: r2"}, {"X-A:", "X-A: b"}, {"Accept-Encoding: gzip", "Accept-Encoding: br"}} {
		head := "GET /h HTTP/1.1\r\nHost: a"
		for _, f := range fields {
			head += "\r\n" + f
		}
		sameAnswer(t, mport, nport, head, "")
	}
}

// TestSetFamilyNameMatchesNGINX: "set" of a name of a family ($cookie_q,
// $arg_q, $http_x_q, the bare $cookie_) gives it that value for the rest
// of the request, but until a "set" runs (and in the locations without
// one) the name reads its family, as NGINX, whose "set" variable is weak
// and gives way to the prefix variable's handler.
func TestSetFamilyNameMatchesNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%d;
			location /s { set $cookie_q s1; set $arg_q s2; set $http_x_q s3; set $cookie_ s4;
				return 200 "[$cookie_q][$arg_q][$http_x_q][$cookie_]"; }
			location /r { return 200 "[$cookie_q][$arg_q][$http_x_q][$cookie_]"; }
			location /b { set $x "[$cookie_q][$arg_q]"; set $cookie_q s5; return 200 "$x[$cookie_q][$arg_q]"; }
		}`, port)
	})
	for _, path := range []string{"/s", "/r", "/b"} {
		sameAnswer(t, mport, nport, "GET "+path+"?q=1 HTTP/1.1\r\nHost: a\r\nCookie: q=2; =3\r\nX-Q: 4", "")
	}
}

// The TLS variables and $http2, through a TLS listener offering HTTP/2,
// compared with NGINX's on the same certificate: TLS 1.2 with a fixed
// suite (the names are OpenSSL's), TLS 1.3, HTTP/2.
func TestTLSVariablesMatchNGINX(t *testing.T) {
	nginxPath(t)
	names := []string{"https", "scheme", "server_protocol", "request", "http2", "ssl_protocol", "ssl_cipher",
		"ssl_curve", "ssl_server_name", "ssl_session_reused", "ssl_client_verify", "ssl_client_s_dn",
		"ssl_client_cert", "ssl_alpn_protocol", "ssl_early_data", "connection_requests"}
	mport, nport := startTLSVarServers(t, names)

	cases := []struct {
		what string
		cfg  *tls.Config
	}{
		{"TLS 1.2, HTTP/1.1", &tls.Config{MaxVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"},
			CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}}},
		{"TLS 1.2, no SNI", &tls.Config{MaxVersion: tls.VersionTLS12,
			CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256}}},
		{"TLS 1.3, HTTP/2", &tls.Config{MinVersion: tls.VersionTLS13, NextProtos: []string{"h2"}}},
	}
	// Each case makes two requests on one connection, then one on a new
	// connection that resumes the TLS session.
	get := func(port int, what string, cfg *tls.Config, sni bool) []map[string]string {
		cfg = cfg.Clone()
		cfg.InsecureSkipVerify = true
		// OpenSSL 3.0 has no hybrid post-quantum group, which Go's
		// client offers first; P-256 is the curve of the certificate, which a
		// TLS 1.2 client must list for OpenSSL to sign with it.
		cfg.CurvePreferences = []tls.CurveID{tls.X25519, tls.CurveP256}
		cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
		if sni {
			cfg.ServerName = "vars.test"
		}
		tr := &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true}
		defer tr.CloseIdleConnections()
		var out []map[string]string
		for i := range 3 {
			if i == 2 {
				tr.CloseIdleConnections()
			}
			resp, err := (&http.Client{Transport: tr}).Get(fmt.Sprintf("https://127.0.0.1:%d/x?y", port))
			if err != nil {
				t.Fatalf("port %d (mosaic %d), %s: %v", port, mport, what, err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			out = append(out, splitVars(t, names, string(b)))
		}
		return out
	}
	for _, c := range cases {
		sni := !strings.Contains(c.what, "no SNI")
		ms, ns := get(mport, c.what, c.cfg, sni), get(nport, c.what, c.cfg, sni)
		for i := range ms {
			for _, name := range names {
				if ms[i][name] != ns[i][name] {
					t.Errorf("%s, request %d: $%s = %q, NGINX %q", c.what, i+1, name, ms[i][name], ns[i][name])
				}
			}
		}
		if ms[2]["ssl_session_reused"] != "r" {
			t.Errorf("%s: the third request's session was not resumed", c.what)
		}
	}
}

// Over HTTP/2, Go's server reports no frame sizes: $request_length counts
// the body read and $bytes_sent the body sent, $connection_requests the
// connection's streams.
func TestVariablesOverHTTP2(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	origin := varsOrigin(t)
	port := freePort(t)
	logFile := filepath.Join(dir, "access.log")
	startMosaic(t, dir, fmt.Sprintf(`http {
		log_format h2 '$server_protocol|$http2|$request_length|$bytes_sent|$body_bytes_sent|$connection_requests|$upstream_http_x_up';
		access_log %s h2;
		server { listen 127.0.0.1:{port} ssl http2; server_name vars.test;
			ssl_certificate %s; ssl_certificate_key %s;
			location / { proxy_pass http://%s; } } }`, logFile, cert, key, origin.Listener.Addr()), port)
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, ServerName: "vars.test"}, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	for _, body := range []string{"hello", "twelve bytes"} {
		resp, err := client.Post(fmt.Sprintf("https://127.0.0.1:%d/p", port), "text/plain", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.ProtoMajor != 2 {
			t.Fatalf("%s", resp.Proto)
		}
	}
	lines := waitLog(t, logFile, 2)
	for i, want := range []string{"HTTP/2.0|h2|5|13|13|1|first", "HTTP/2.0|h2|12|13|13|2|first"} {
		if lines[i] != want {
			t.Errorf("log line %d: %q, want %q", i+1, lines[i], want)
		}
	}
}

// Requests sent together: the second is pipelined ($pipe), in NGINX's
// sense that it had begun to arrive when the first response ended.
func TestPipeMatchesNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(_ string, port int) string {
		return fmt.Sprintf(`access_log off; server { listen 127.0.0.1:%d;
			location / { return 200 "$pipe $connection_requests"; } }`, port)
	})
	for _, port := range []int{mport, nport} {
		c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		one := "GET / HTTP/1.1\r\nHost: p\r\n\r\n"
		if _, err := io.WriteString(c, one+one); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(c)
		var got []string
		for range 2 {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got = append(got, string(b))
		}
		// The third comes alone, after the others' answers.
		if _, err := io.WriteString(c, one); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got = append(got, string(b))
		if want := []string{". 1", "p 2", ". 3"}; strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("port %d (mosaic %d): %q, want %q", port, mport, got, want)
		}
	}
}
