package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// An empty body reaches a FastCGI application and a proxied server as
// with NGINX, with and without client_body_in_file_only on: a body
// declared empty ("Content-Length: 0") gets its file under "on"
// ($request_body_file), a request without one none, CONTENT_LENGTH is
// $content_length, and the proxied head says "Content-Length: 0" for a
// declared one, nothing for none; unbuffered, a chunked body that came
// whole with the head goes with its length ("Content-Length: 0" for an
// empty one), as NGINX's first read finds it complete. proxy's prepareBody looks the field up
// only for an empty body, and for a Wire's only under
// client_body_in_file_only: these are the cases that need it.
func TestEmptyBodyUpstreamAsNGINX(t *testing.T) {
	nginxPath(t)
	app := fastcgiApp(t, func(names, values []string) string {
		var b strings.Builder
		for i, n := range names {
			switch n {
			case "P_FILE": // a path of each server's own: whether there is one
				fmt.Fprintf(&b, "%s=%t\n", n, values[i] != "")
			case "CONTENT_LENGTH", "P_BODY":
				fmt.Fprintf(&b, "%s=%q\n", n, values[i])
			}
		}
		return "Content-Type: text/plain\r\nContent-Length: " + strconv.Itoa(b.Len()) + "\r\n\r\n" + b.String()
	})
	origin := rawEcho(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%[1]d;
			client_body_temp_path %[2]s/%[3]s-body;
			fastcgi_param CONTENT_LENGTH $content_length;
			fastcgi_param P_FILE $request_body_file;
			fastcgi_param P_BODY $request_body;
			location /on/ { client_body_in_file_only on; fastcgi_pass %[4]s; }
			location /off/ { fastcgi_pass %[4]s; }
			location /p/ { proxy_pass http://%[5]s; }
			location /p11/ { proxy_http_version 1.1; proxy_request_buffering off; proxy_pass http://%[5]s; } }`,
			port, dir, who, app, origin)
	})
	for _, loc := range []string{"/on/", "/off/", "/p/", "/p11/"} {
		for _, c := range []struct{ head, body string }{
			{"POST " + loc + "declared HTTP/1.1\r\nHost: a.test\r\nContent-Length: 0", ""},
			{"GET " + loc + "none HTTP/1.1\r\nHost: a.test", ""},
			{"POST " + loc + "chunked HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked", "0\r\n\r\n"},
			{"POST " + loc + "body HTTP/1.1\r\nHost: a.test\r\nContent-Length: 2", "hi"},
			{"POST " + loc + "chunkedhi HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked", "2\r\nhi\r\n0\r\n\r\n"},
		} {
			req := c.head + "\r\nConnection: close\r\n\r\n" + c.body
			m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
			n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
			if m.StatusCode != n.StatusCode || mb != nb {
				t.Errorf("%q: mosaic %d %q, nginx %d %q", req, m.StatusCode, mb, n.StatusCode, nb)
			}
			if n.StatusCode != 200 || !strings.Contains(nb, "CONTENT_LENGTH=") && !strings.Contains(nb, "body=") {
				t.Fatalf("%q: NGINX's answer is not the application's: %d %q", req, n.StatusCode, nb)
			}
		}
	}
	// A chunked body that came whole but is badly framed: read whole
	// first, it is refused before anything goes upstream, in both.
	req := "POST /p11/bad HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\nhiXX0\r\n\r\n"
	m, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
	n, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
	if m.StatusCode != n.StatusCode {
		t.Errorf("%q: mosaic %d, nginx %d", req, m.StatusCode, n.StatusCode)
	}
}
