package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestLogEmptyAsNGINX: NGINX's access log writes "-" for a variable that
// has no value (not found: a field, argument or cookie that was not
// sent, no upstream) and nothing for one that has an empty value (a
// field, argument or cookie sent empty, a "map" or "set" result that is
// empty, $args after a bare "?"), in each of the three escapings. Whole
// lines are compared with Debian's NGINX.
func TestLogEmptyAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header()["X-E"] = []string{""} // sent as "X-E: "
		_, _ = fmt.Fprint(w, "up")
	}))
	t.Cleanup(origin.Close)
	dir := t.TempDir()
	const vars = `$http_x_e|$http_x_none|$arg_a|$arg_none|$cookie_c|$cookie_none|$args|$m|$v|` +
		`$upstream_addr|$upstream_status|$upstream_http_x_e|$upstream_http_x_none|$sent_http_x_e|$sent_http_x_none`
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		logs := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who])
		return fmt.Sprintf(`
			map $http_x_m $m { default ""; a "ma"; }
			log_format d '%[3]s';
			log_format j escape=json '%[3]s';
			log_format n escape=none '%[3]s';
			server { listen 127.0.0.1:%[1]d;
				access_log %[2]s/access.log d; access_log %[2]s/access.log j; access_log %[2]s/access.log n;
				location / { set $v ""; return 200 "ok"; }
				location /up { set $v "$arg_a"; proxy_pass http://%[4]s; }
			}`, port, logs, vars, origin.Listener.Addr())
	})
	reqs := []string{
		"GET / HTTP/1.1\r\nHost: a.test",
		"GET /? HTTP/1.1\r\nHost: a.test\r\nX-E: \r\nCookie: c=",
		"GET /?a=&b HTTP/1.1\r\nHost: a.test\r\nX-M: a\r\nCookie: c=1; d=",
		"GET /up?a= HTTP/1.1\r\nHost: a.test",
		"GET /up HTTP/1.1\r\nHost: a.test",
	}
	for _, port := range []int{mport, nport} {
		for _, req := range reqs {
			testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), req+"\r\nConnection: close\r\n\r\n")
		}
	}
	sameAccessLogs(t, dir, 3*len(reqs))
}

// TestRequestCompletionFirstReadAsNGINX: NGINX keeps $request_completion
// as it was first read in the request. A response that reads it (empty:
// the request has not ended) leaves it empty for the access log, which
// writes nothing for it, not "-"; a request that does not read it before
// is logged "OK".
func TestRequestCompletionFirstReadAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		logs := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who])
		return fmt.Sprintf(`
			log_format d '$uri [$request_completion]';
			server { listen 127.0.0.1:%[1]d; access_log %[2]s/access.log d;
				location /read { return 200 "[$request_completion]"; }
				location / { return 200 "ok"; }
			}`, port, logs)
	})
	for _, path := range []string{"/read", "/"} {
		sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test", "")
	}
	sameAccessLogs(t, dir, 2)
}

// TestLogDefinedEmptyAsNGINX: variables that NGINX always gives a value,
// empty or not ($is_args without arguments, $https and $http2 over plain
// HTTP/1.1, the browser variables, $invalid_referer of a valid referer,
// $fastcgi_path_info), and $content_type sent empty, are written as
// nothing; those without a value ($content_length, $remote_user,
// $gzip_ratio here) as "-".
func TestLogDefinedEmptyAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	var format strings.Builder
	for _, name := range strings.Fields(`is_args https http2 content_type invalid_referer modern_browser
		ancient_browser msie fastcgi_path_info content_length remote_user gzip_ratio request_body`) {
		format.WriteString(name + "=$" + name + " ")
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		logs := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who])
		return fmt.Sprintf(`log_format d '%[3]s';
			server { listen 127.0.0.1:%[1]d; access_log %[2]s/access.log d;
				valid_referers none a.test; ancient_browser msie; modern_browser unlisted;
				location / { return 200 "ok"; } }`, port, logs, format.String())
	})
	for _, port := range []int{mport, nport} {
		for _, req := range []string{
			"GET / HTTP/1.1\r\nHost: a.test\r\nContent-Type: ",
			"GET /?a HTTP/1.1\r\nHost: a.test\r\nReferer: http://b.test/\r\nUser-Agent: Mozilla/4.0 (compatible; MSIE 6.0)",
		} {
			testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), req+"\r\nConnection: close\r\n\r\n")
		}
	}
	sameAccessLogs(t, dir, 2)
}

// TestLogEmptyServerNameAsNGINX: $server_name of a server without a name
// is empty, not without a value, and so is $host of a request that names
// no host there (HTTP/1.0 without Host): NGINX's access log writes
// nothing for them, not "-".
func TestLogEmptyServerNameAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		logs := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who])
		return fmt.Sprintf(`log_format d '[$server_name] [$host]';
			server { listen 127.0.0.1:%[1]d; access_log %[2]s/access.log d; return 200 "ok"; }`, port, logs)
	})
	for _, port := range []int{mport, nport} {
		for _, req := range []string{"GET / HTTP/1.0\r\n\r\n", "GET / HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"} {
			testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), req)
		}
	}
	sameAccessLogs(t, dir, 2)
}

// TestLogUpstreamCookieEmptyAsNGINX: $upstream_cookie_NAME of a cookie
// the upstream set with an empty value is empty, which NGINX's access log
// writes as nothing; one it did not set has no value ("-").
func TestLogUpstreamCookieEmptyAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header()["Set-Cookie"] = []string{"a=", "b=1"}
		_, _ = fmt.Fprint(w, "up")
	}))
	t.Cleanup(origin.Close)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		logs := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who])
		return fmt.Sprintf(`log_format d '[$upstream_cookie_a] [$upstream_cookie_b] [$upstream_cookie_none]';
			server { listen 127.0.0.1:%[1]d; access_log %[2]s/access.log d; location / { proxy_pass http://%[3]s; } }`,
			port, logs, origin.Listener.Addr())
	})
	for _, port := range []int{mport, nport} {
		testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), "GET / HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
	}
	sameAccessLogs(t, dir, 1)
}

// TestLogSentConnectionH2AsNGINX: over HTTP/2 NGINX's
// $sent_http_connection is "close" (a stream is never kept alive in the
// HTTP/1.1 sense), and $sent_http_keep_alive and
// $sent_http_transfer_encoding have no value, as its access log writes
// them.
func TestLogSentConnectionH2AsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		logs := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who])
		return fmt.Sprintf(`log_format d '$server_protocol [$sent_http_connection] [$sent_http_keep_alive] [$sent_http_transfer_encoding]';
			ssl_certificate %[3]s; ssl_certificate_key %[4]s; keepalive_timeout 60 60;
			server { listen 127.0.0.1:%[1]d ssl http2; access_log %[2]s/access.log d; return 200 "ok"; }`,
			port, logs, cert, key)
	})
	for _, port := range []int{mport, nport} {
		cl := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: true}}
		resp, err := cl.Get(fmt.Sprintf("https://127.0.0.1:%d/", port))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		cl.CloseIdleConnections()
	}
	sameAccessLogs(t, dir, 1)
}

// TestLogUnixPortsAsNGINX: over a Unix-domain socket $remote_port,
// $server_port and $realip_remote_port are empty, not without a value:
// NGINX's access log writes nothing for them.
func TestLogUnixPortsAsNGINX(t *testing.T) {
	sameUnixLogs(t, "[$remote_port] [$server_port] [$realip_remote_port] [$remote_addr]", "GET / HTTP/1.0\r\n\r\n")
}

// sameUnixLogs sends req to both servers on a Unix-domain socket, where
// each answers with a "return", and compares their access logs written
// with format.
func sameUnixLogs(t *testing.T, format, req string) {
	t.Helper()
	nginxPath(t)
	dir := t.TempDir()
	startBoth(t, dir, func(who string, port int) string {
		logs := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who])
		return fmt.Sprintf(`log_format d '%[3]s';
			server { listen 127.0.0.1:%[1]d; listen unix:%[2]s/sock; access_log %[2]s/access.log d; return 200 "ok"; }`,
			port, logs, format)
	})
	waitUnix(t, filepath.Join(dir, "mosaic", "sock"))
	for _, who := range []string{"mosaic", "nginx"} {
		testclient.RawOn(t, "unix", filepath.Join(dir, who, "sock"), req)
	}
	sameAccessLogs(t, dir, 1)
}

// TestLogSentContentTypeEmptyAsNGINX: a response without a type
// (default_type "") has no $sent_http_content_type: NGINX's access log
// writes "-" for it, as for any field not sent.
func TestLogSentContentTypeEmptyAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		logs := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who])
		return fmt.Sprintf(`log_format d '$uri [$sent_http_content_type]';
			server { listen 127.0.0.1:%[1]d; access_log %[2]s/access.log d;
				location / { types { } default_type ""; return 200 "ok"; }
				location /t { default_type text/x-a; return 200 "ok"; } }`, port, logs)
	})
	for _, path := range []string{"/", "/t"} {
		sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test", "")
	}
	sameAccessLogs(t, dir, 2)
}
