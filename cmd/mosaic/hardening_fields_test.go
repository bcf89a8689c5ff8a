package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestManyHeaderFieldsAsNGINX: a request with a thousand header fields is
// served, one with a thousand and one is refused with NGINX's 400
// "Request Header Or Cookie Too Large" page and its connection closed,
// the request pipelined behind it unanswered, on a plain and a TLS
// listener, as Debian's NGINX 1.22.1 (max_headers, 1000 by default)
// does. The fields are tiny, so the header stays far below the 32 KB of
// large_client_header_buffers: without a count, 10000 of them cost ten
// thousand map entries within the byte limit.
func TestManyHeaderFieldsAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	ports := map[string][2]int{} // who: plain, TLS
	startBoth(t, dir, func(who string, port int) string {
		tp := freePort(t)
		ports[who] = [2]int{port, tp}
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; listen 127.0.0.1:%d ssl;
			ssl_certificate %s; ssl_certificate_key %s; server_tokens off;
			location / { return 200 "ok $uri\n"; } }`, port, tp, cert, key)
	})
	status := regexp.MustCompile(`HTTP/1\.1 \d+|<title>[^<]*</title>|ok /\w+`)
	ask := func(port int, useTLS bool, fields int) string {
		var c net.Conn
		var err error
		addr := "127.0.0.1:" + strconv.Itoa(port)
		if useTLS {
			c, err = tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
		} else {
			c, err = net.Dial("tcp", addr)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		req := "GET /first HTTP/1.1\r\nHost: a.test\r\n" + strings.Repeat("X: b\r\n", fields-1) +
			"\r\nGET /second HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		got, err := io.ReadAll(c)
		if err != nil {
			return fmt.Sprintf("%q, then %v", status.FindAllString(string(got), -1), err)
		}
		return fmt.Sprintf("%q", status.FindAllString(string(got), -1))
	}
	for _, fields := range []int{1000, 1001, 10000} {
		for i, name := range []string{"plain", "TLS"} {
			m, n := ask(ports["m"][i], i == 1, fields), ask(ports["n"][i], i == 1, fields)
			if m != n {
				t.Errorf("%d fields over %s: mosaic %s, nginx %s", fields, name, m, n)
			}
		}
	}
}

// TestAbsoluteTargetUserinfoAsNGINX: an absolute-form target with
// userinfo is refused with 400, as NGINX refuses it, whatever server the
// part after the '@' names; without userinfo, and with an '@' in the
// path, it is served.
func TestAbsoluteTargetUserinfoAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; server_name a.test other.test;
			location / { return 200 "$host $request_uri\n"; } }`, port)
	})
	for _, target := range []string{"http://u@other.test/x", "http://u:pw@other.test:80/x",
		"http://@other.test/x", "http://other.test/x", "http://other.test/x@y"} {
		sameAnswer(t, mport, nport, "GET "+target+" HTTP/1.1\r\nHost: a.test", "")
	}
}
