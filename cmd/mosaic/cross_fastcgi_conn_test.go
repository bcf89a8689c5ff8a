package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Requests pipelined on one keep-alive connection through FastCGI, with
// realip replacing the client's address on some of them and a PHP
// script's X-Accel-Redirect to another: the addresses PHP is given
// (split once per connection, the realip ones each time), the
// $proxy_add_x_forwarded_for computed from the request's upstream record,
// and the $upstream_* values joined with " : " across the redirect, in
// the answers and the access log, are NGINX's. The client's and the
// server's ports, which differ between the two servers, are compared as
// their names. Each connection to php-fpm serves one request, or several
// (fastcgi_keep_conn, an upstream's keepalive: the redirect's empty
// answer leaves the connection fit for the next).
func TestFastCGIConnAddrsRealIPAccelAsNGINX(t *testing.T) {
	nginxPath(t)
	fpmPath(t)
	for _, keep := range []bool{false, true} {
		t.Run(map[bool]string{false: "closed", true: "kept"}[keep], func(t *testing.T) { fastcgiConnAddrs(t, keep) })
	}
}

func fastcgiConnAddrs(t *testing.T, keep bool) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "a.php"), `<?php header("X-Accel-Redirect: /b.php?from=a"); echo "not this\n";`)
	writeFile(t, filepath.Join(dir, "www", "b.php"), `<?php foreach (['REMOTE_ADDR', 'REMOTE_PORT', 'SERVER_ADDR', 'SERVER_PORT', 'FWD', 'UP', 'QUERY_STRING'] as $k) {
	echo $k, '=', $_SERVER[$k] ?? '(none)', "\n"; }`)
	port := freePort(t)
	fpm := startFPM(t, filepath.Join(dir, "fpm"), "127.0.0.1:"+strconv.Itoa(port), 2)
	shipFastCGIFile(t, dir, "fastcgi.conf")
	pass, group := fpm.addr, ""
	if keep {
		pass, group = "fpm", fmt.Sprintf("upstream fpm { server %s; keepalive 4; }", fpm.addr)
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`log_format x "$uri|$status|$remote_addr|$remote_port|$realip_remote_addr|$server_addr|$server_port|$upstream_addr|$upstream_status|$proxy_add_x_forwarded_for";
			fastcgi_keep_conn %v; `+group+`
			server { listen 127.0.0.1:%d; root %s/www; access_log %s/%s/access.log x;
			set_real_ip_from 127.0.0.1; real_ip_header X-Real-IP;
			location ~ \.php$ { include %s/fastcgi.conf; fastcgi_param FWD $proxy_add_x_forwarded_for;
				fastcgi_param UP "$upstream_addr"; fastcgi_pass %s; } }`,
			map[bool]string{false: "off", true: "on"}[keep], port, dir, dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], dir, pass)
	})
	reqs := []string{
		"GET /a.php HTTP/1.1\r\nHost: a\r\nX-Real-IP: 10.1.2.3\r\nX-Forwarded-For: 9.9.9.9\r\n\r\n",
		"GET /b.php HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /b.php HTTP/1.1\r\nHost: a\r\nX-Real-IP: 10.4.5.6\r\n\r\n",
		"GET /b.php HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 8.8.8.8\r\n\r\n",
		"GET /a.php HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
	}
	// names replaces the ports of the connection with their names.
	names := func(s string, c net.Conn, port int) string {
		_, cport, _ := net.SplitHostPort(c.LocalAddr().String())
		s = strings.ReplaceAll(s, "="+cport+"\n", "=CPORT\n")
		s = strings.ReplaceAll(s, "|"+cport+"|", "|CPORT|")
		s = strings.ReplaceAll(s, "="+strconv.Itoa(port)+"\n", "=SPORT\n")
		return strings.ReplaceAll(s, "|"+strconv.Itoa(port)+"|", "|SPORT|")
	}
	m, mlog := pipelinedLogged(t, mport, reqs, filepath.Join(dir, "mosaic", "access.log"), names)
	n, nlog := pipelinedLogged(t, nport, reqs, filepath.Join(dir, "nginx", "access.log"), names)
	if !strings.Contains(n[0], "REMOTE_ADDR=10.1.2.3\n") || len(nlog) != len(reqs) || !strings.Contains(nlog[4], " : ") {
		t.Fatalf("NGINX's answers are not as expected: %q %q", n, nlog)
	}
	sameAnswersAndLogs(t, m, n, mlog, nlog)
}

// Requests pipelined on one keep-alive connection to proxied locations,
// through an upstream group whose first server refuses (", "), with
// realip on some and an X-Accel-Redirect to another proxied location
// (" : "): the upstream's values computed from each request's record,
// and $proxy_add_x_forwarded_for in the request sent upstream and in
// the log, are NGINX's.
func TestProxyPipelinedRecordsAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	origin := newOriginEcho(t)
	closed := refusedPort(t)
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`log_format x "$uri|$status|$remote_addr|$upstream_addr|$upstream_status|$proxy_add_x_forwarded_for|$proxy_host|$proxy_port";
			upstream g_%[1]s { server 127.0.0.1:%[5]d; server %[4]s; }
			server { listen 127.0.0.1:%[2]d; access_log %[3]s/%[6]s/access.log x;
			set_real_ip_from 127.0.0.1; real_ip_header X-Real-IP;
			proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
			proxy_set_header X-Up "$upstream_addr|$upstream_status";
			location /g/ { proxy_pass http://g_%[1]s; }
			location /one/ { proxy_pass http://%[4]s; } }`,
			who, port, dir, origin, closed, map[string]string{"m": "mosaic", "n": "nginx"}[who])
	})
	reqs := []string{
		"GET /g/a HTTP/1.1\r\nHost: a\r\nX-Real-IP: 10.1.2.3\r\nX-Forwarded-For: 9.9.9.9\r\n\r\n",
		"GET /one/b HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /one/accel HTTP/1.1\r\nHost: a\r\nX-Real-IP: 10.4.5.6\r\n\r\n",
		"GET /g/accel HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
	}
	// The two servers' upstream groups are named g_m and g_n.
	group := func(who string) func(string, net.Conn, int) string {
		return func(s string, _ net.Conn, _ int) string { return strings.ReplaceAll(s, "_"+who, "_W") }
	}
	m, mlog := pipelinedLogged(t, mport, reqs, filepath.Join(dir, "mosaic", "access.log"), group("m"))
	n, nlog := pipelinedLogged(t, nport, reqs, filepath.Join(dir, "nginx", "access.log"), group("n"))
	if len(nlog) != len(reqs) || !strings.Contains(nlog[3], " : ") || !strings.Contains(nlog[0], ", ") {
		t.Fatalf("NGINX's answers are not as expected: %q %q", n, nlog)
	}
	sameAnswersAndLogs(t, m, n, mlog, nlog)
}

// newOriginEcho is an upstream that answers with the request's
// X-Forwarded-For and X-Up fields, and whose /accel paths redirect
// (X-Accel-Redirect) to /one/b.
func newOriginEcho(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/accel") {
			w.Header().Set("X-Accel-Redirect", "/one/b")
			return
		}
		fmt.Fprintf(w, "%s xff=%q up=%q\n", r.URL.Path, r.Header.Get("X-Forwarded-For"), r.Header.Get("X-Up"))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// The location an upstream's failure sends a request to (error_page,
// after an intercepted status or a refused connection) reads the failed
// tries' values, timings and byte counts included, as NGINX's: it
// finalizes them before the error page.
func TestUpstreamTimingsInErrorPageAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "failed\n")
	}))
	defer origin.Close()
	closed := refusedPort(t)
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			location /i { proxy_pass %s; proxy_intercept_errors on; error_page 500 = /fb; }
			location /r { proxy_pass http://127.0.0.1:%d; error_page 502 = /fb; }
			location /fb { return 200 "$upstream_addr|$upstream_status|$upstream_response_time|$upstream_connect_time|$upstream_header_time|$upstream_bytes_received|$upstream_response_length\n"; } }`,
			port, origin.URL, closed)
	})
	digits := regexp.MustCompile(`[0-9]+`)
	for _, path := range []string{"/i", "/r"} {
		var bodies [2]string
		for i, port := range []int{mport, nport} {
			req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
			_, body := doRequest(t, req)
			bodies[i] = digits.ReplaceAllString(body, "N")
		}
		if bodies[0] != bodies[1] {
			t.Errorf("%s: mosaic %q, nginx %q", path, bodies[0], bodies[1])
		}
	}
}

// pipelinedLogged sends reqs on one connection to port at once and
// returns each answer's status line and body, then the access log's
// lines at logPath, each passed through rename with the connection and
// the port (for what differs between the two servers).
func pipelinedLogged(t *testing.T, port int, reqs []string, logPath string, rename func(string, net.Conn, int) string) (out, log []string) {
	t.Helper()
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, a := range pipelineOn(t, c, reqs) {
		out = append(out, rename(a, c, port))
	}
	// NGINX logs the last request once its lingering close ends.
	c.Close()
	for _, l := range refusedLines(t, logPath, len(reqs)) {
		log = append(log, rename(l, c, port))
	}
	return out, log
}

// pipelineOn sends reqs on c at once and returns each answer's status
// line and body, all within 20 s.
func pipelineOn(t *testing.T, c net.Conn, reqs []string) (out []string) {
	t.Helper()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	io.WriteString(c, strings.Join(reqs, ""))
	br := bufio.NewReader(c)
	for range reqs {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.RemoteAddr(), err)
		}
		body, _ := io.ReadAll(resp.Body)
		out = append(out, resp.Status+"\n"+string(body))
	}
	return out
}

// sameAnswersAndLogs reports where mosaic's answers or access log differ
// from NGINX's; pipelinedLogged returned one answer for each request.
func sameAnswersAndLogs(t *testing.T, m, n, mlog, nlog []string) {
	t.Helper()
	for i := range n {
		if m[i] != n[i] {
			t.Errorf("request %d: mosaic\n%s\nnginx\n%s", i, m[i], n[i])
		}
	}
	for i := range nlog {
		if len(mlog) != len(nlog) || mlog[i] != nlog[i] {
			t.Errorf("access log: mosaic\n%s\nnginx\n%s", strings.Join(mlog, "\n"), strings.Join(nlog, "\n"))
			break
		}
	}
}
