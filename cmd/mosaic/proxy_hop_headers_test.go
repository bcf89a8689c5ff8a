package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestProxyHopHeadersAsNGINX: of the client's header lines, NGINX's
// proxy leaves out only those its default proxy_set_header list names
// (Host, Connection, Content-Length, Transfer-Encoding, TE, Keep-Alive,
// Expect, Upgrade); Proxy-Authorization, Proxy-Connection and Trailer go
// upstream in the client's order, to an HTTP/1.0 upstream and an
// HTTP/1.1 one alike. The upstream echoes the lines it got.
func TestProxyHopHeadersAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := rawEcho(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; access_log off;
			location /p10/ { proxy_pass http://%[2]s; }
			location /p11/ { proxy_pass http://%[2]s; proxy_http_version 1.1; } }`, port, origin)
	})
	lines := "X-First: 1\r\nProxy-Authorization: Basic dXNlcjpwYXNz\r\nProxy-Connection: keep-alive\r\n" +
		"TE: trailers\r\nTrailer: X-Sum\r\nKeep-Alive: 300\r\nUpgrade: h2c\r\nX-Last: 2\r\n"
	var reqs []string
	for _, path := range []string{"/p10/a", "/p11/a"} {
		reqs = append(reqs,
			"GET "+path+" HTTP/1.1\r\nHost: a\r\n"+lines+"\r\n",
			"POST "+path+" HTTP/1.1\r\nHost: a\r\n"+lines+"Transfer-Encoding: chunked\r\n\r\n4\r\nbody\r\n0\r\nX-Sum: 1\r\n\r\n")
	}
	m, n := pipelined(t, mport, reqs), pipelined(t, nport, reqs)
	// NGINX's answer shows what the test is about.
	if want := "X-First: 1\nProxy-Authorization: Basic dXNlcjpwYXNz\nProxy-Connection: keep-alive\nTrailer: X-Sum\nX-Last: 2\n"; !strings.Contains(n[0], want) {
		t.Fatalf("NGINX's answer is not as expected:\n%s\nwant in it\n%s", n[0], want)
	}
	for i := range n {
		if m[i] != n[i] {
			t.Errorf("%q:\nmosaic\n%s\nnginx\n%s", reqs[i], m[i], n[i])
		}
	}
}
