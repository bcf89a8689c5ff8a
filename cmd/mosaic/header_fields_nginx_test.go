package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fieldsBoth starts NGINX and mosaic on the same configuration, a plain
// and an ssl listener each, with the http-level directives extra, and
// locations that show a request's header three ways: /v as $http_x_a
// and $http_x_b, /p/ as the header lines a proxied upstream gets, and
// /f.php as the HTTP_* parameters php-fpm gets. It returns a function that
// sends the same pipelined requests to each server, over plain TCP or
// TLS, and reports where the answers differ.
func fieldsBoth(t *testing.T, extra string) func(reqs ...string) {
	nginxPath(t)
	fpmPath(t)
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	writeFile(t, filepath.Join(dir, "www", "f.php"), `<?php foreach (['HTTP_X_A', 'HTTP_X_B', 'HTTP_X_C'] as $k) {
echo $k, '=', json_encode($_SERVER[$k] ?? null), "\n"; }`)
	fport := freePort(t)
	fpm := startFPM(t, filepath.Join(dir, "fpm"), "127.0.0.1:"+strconv.Itoa(fport), 2)
	shipFastCGIFile(t, dir, "fastcgi.conf")
	origin := rawEcho(t)
	tlsPorts := map[string]int{}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		tlsPorts[who] = freePort(t)
		return fmt.Sprintf(`%[7]s
		server { listen 127.0.0.1:%[1]d; listen 127.0.0.1:%[8]d ssl;
			ssl_certificate %[3]s; ssl_certificate_key %[4]s; root %[2]s/www; access_log off;
			location = /v { return 200 "a=[$http_x_a] b=[$http_x_b] c=[$http_x_c] host=[$host] http_host=[$http_host]\n"; }
			location ~ \.php$ { include %[2]s/fastcgi.conf; fastcgi_pass %[5]s; }
			location /p/ { proxy_pass http://%[6]s; } }`,
			port, dir, cert, key, fpm.addr, origin, extra, tlsPorts[who])
	})
	ports := map[string][2]int{"mosaic": {mport, tlsPorts["m"]}, "nginx": {nport, tlsPorts["n"]}}
	send := func(who string, secure bool, reqs []string) []string {
		p := ports[who][0]
		if secure {
			p = ports[who][1]
		}
		addr := "127.0.0.1:" + strconv.Itoa(p)
		var c net.Conn
		var err error
		if secure {
			c, err = tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
		} else {
			c, err = net.Dial("tcp", addr)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return pipelineOn(t, c, reqs)
	}
	return func(reqs ...string) {
		t.Helper()
		for _, secure := range []bool{false, true} {
			m, n := send("mosaic", secure, reqs), send("nginx", secure, reqs)
			for i := range n {
				// A refusal's page differs in its signature: the status
				// is compared.
				if m[i] != n[i] && (strings.HasPrefix(n[i], "200 ") || m[i][:4] != n[i][:4]) {
					t.Errorf("tls %v, %q:\nmosaic %q\nnginx  %q", secure, reqs[i], m[i], n[i])
				}
			}
		}
	}
}

// fieldRequests makes one request for each of /v, /p/x and /f.php with
// the header lines fields after Host; the last closes the connection.
func fieldRequests(fields string) []string {
	var reqs []string
	for i, p := range []string{"/v", "/p/x", "/f.php"} {
		conn := ""
		if i == 2 {
			conn = "Connection: close\r\n"
		}
		reqs = append(reqs, "GET "+p+" HTTP/1.1\r\nHost: a.test\r\n"+fields+conn+"\r\n")
	}
	return reqs
}

// TestFieldValueTabsAsNGINX: NGINX drops the spaces around a field's
// value and keeps its tabs, so that $http_x_a, the proxied line and the
// FastCGI parameter all hold the tabs as sent.
func TestFieldValueTabsAsNGINX(t *testing.T) {
	same := fieldsBoth(t, "")
	for _, fields := range []string{
		"X-A:\tv\t\r\nX-B: \t w \t \r\nX-C:  x  \r\n",
		"X-A:\t\r\nX-B: \t\r\nX-C:\t \t\r\n",
		"X-A: a\tb\r\nX-B:\t\tc\r\n",
	} {
		same(fieldRequests(fields)...)
	}
}

// TestFieldLineCRsAsNGINX: NGINX skips the CRs before a field line's
// CR LF; none of them reaches $http_*, a proxied line (the origin echoes
// the lines as they came, a stray CR included) or a FastCGI parameter,
// and a Content-Length or Transfer-Encoding line ending so frames the
// body as NGINX frames it: the request behind it is found at the same
// byte, over plain TCP and TLS. A CR inside a value, a line of CRs where
// the empty line comes, or a CR between the value's end and CR LF with a
// space after it is refused by both.
func TestFieldLineCRsAsNGINX(t *testing.T) {
	same := fieldsBoth(t, "")
	for _, fields := range []string{
		"X-A: v\r\r\nX-B:  w \r\r\r\nX-C\r\r\n",
		"X-A: 1\r\r\nX-B: \r\r\nX-A: 2\r\r\n",
	} {
		same(fieldRequests(fields)...)
	}
	next := "GET /v HTTP/1.1\r\nHost: a.test\r\nX-A: next\r\nConnection: close\r\n\r\n"
	for _, method := range []string{"/p/x", "/f.php"} {
		same("POST "+method+" HTTP/1.1\r\nHost: a.test\r\nContent-Length: 5\r\r\nX-A: a\r\r\n\r\nhello",
			next)
		same("POST "+method+" HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\r\nX-A: a\r\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
			next)
	}
	for _, fields := range []string{
		"X-A: a\rb\r\n",
		"X-A: a\r \r\n",
		"Content-Length: 5\r \r\n",
		"\r\r\n",
		"X-A: a\r\r\n\r\r\n",
	} {
		same("GET /p/x HTTP/1.1\r\nHost: a.test\r\n" + fields + "\r\n")
	}
}

// TestInvalidFieldNamesAsNGINX: a field name with a byte that is not a
// letter, a digit, '-' or '_' (but no space, control byte or DEL, which
// NGINX refuses) is dropped under ignore_invalid_headers on, the
// default, and passed as sent with it off; '_' follows
// underscores_in_headers. The request is served either way.
func TestInvalidFieldNamesAsNGINX(t *testing.T) {
	fields := []string{
		"X@A: 1\r\nX-A: 2\r\n",
		"X-B: 1\r\nX\"B: q\r\nX-C: 3\r\n",
		"X_A: u\r\nX-B: 2\r\n",
		"X.C: d\r\nX-A: 1\r\n",
		"\xc3\xa9: e\r\nX-A: 1\r\n",
		"X-A/1: s\r\nX-B: 1\r\n",
	}
	for _, extra := range []string{"", "ignore_invalid_headers off;", "underscores_in_headers on;"} {
		t.Run(extra, func(t *testing.T) {
			same := fieldsBoth(t, extra)
			for _, f := range fields {
				same(fieldRequests(f)...)
			}
		})
	}
}

// TestHostFieldBytesAsNGINX: NGINX refuses a Host with two dots in a
// row, a '/', a space, a control byte or DEL, or nothing before its port,
// and takes every other byte ('@', '#', '"', a byte above 0x7f), which
// $host then holds in lower case. (mosaic refuses two more, a leading
// dot and a backslash, on purpose: reqrule.Host says why.)
func TestHostFieldBytesAsNGINX(t *testing.T) {
	same := fieldsBoth(t, "")
	for _, h := range []string{
		"u@a.test", "a.test#x", "A\"B.test", "\xc3\xa4.test", "a<b>", "a?b", "a{b}|c^",
		"a..test", "a/b", "a.test.", ":80", "[::1]:8080", "a.test:x@y",
	} {
		// One a connection: a refused request closes it.
		same("GET /v HTTP/1.1\r\nHost: " + h + "\r\nConnection: close\r\n\r\n")
		same("GET /p/x HTTP/1.1\r\nHost: " + h + "\r\nConnection: close\r\n\r\n")
	}
}

// TestFieldWithoutColonAsNGINX: NGINX takes a field line without a colon
// as a name with an empty value, which $http_*, a proxied line and a
// FastCGI parameter then hold, and which ignore_invalid_headers and
// underscores_in_headers treat as any name; with a space or a tab in it
// the line is refused. As Host, Content-Length or Transfer-Encoding it is
// the empty value, refused (400, 400, 501): it can neither choose a
// server nor frame a body, whatever other framing field comes with it.
func TestFieldWithoutColonAsNGINX(t *testing.T) {
	for _, extra := range []string{"", "ignore_invalid_headers off; underscores_in_headers on;"} {
		t.Run(extra, func(t *testing.T) {
			same := fieldsBoth(t, extra)
			for _, f := range []string{
				"X-A\r\nX-B: 2\r\n",
				"x-a\nX-C\r\nX-A: 1\r\n",
				"X_A\r\nX@B\r\nX-C: 3\r\n",
			} {
				same(fieldRequests(f)...)
			}
			// A refusal closes the connection: one request each.
			for _, req := range []string{
				"GET /v HTTP/1.1\r\nHost: a.test\r\nX-A 1\r\n\r\n",
				"GET /v HTTP/1.1\r\nHost: a.test\r\nX-A\t1\r\n\r\n",
				"GET /v HTTP/1.1\r\nHost\r\n\r\n",
				"GET /v HTTP/1.1\r\nHost: a.test\r\nHost\r\n\r\n",
				"GET /v HTTP/1.0\r\nHost\r\n\r\n",
				"POST /v HTTP/1.1\r\nHost: a.test\r\nContent-Length\r\n\r\n",
				"POST /v HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding\r\n\r\n0\r\n\r\n",
				"POST /v HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding\r\nContent-Length: 5\r\n\r\nhello",
				"POST /v HTTP/1.1\r\nHost: a.test\r\nContent-Length\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
			} {
				same(req)
			}
		})
	}
}
