package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestH2RewrittenRequestSendsNoLengthAsNGINX: an HTTP/2 GET whose HEADERS
// end the stream has no body; once a rewrite (or try_files' named
// location after one) changed its URI, mosaic's proxy took its zero
// length for an unknown one and sent the upstream "Content-Length: 0",
// and FastCGI's CONTENT_LENGTH ($content_length) was "0", where the same
// request over HTTP/1.1, and NGINX's either way, has no length at all.
// Found by the real-world run over HTTP/2 (PeerTube's
// /static/thumbnails/, Nextcloud's front controller; server README).
func TestH2RewrittenRequestSendsNoLengthAsNGINX(t *testing.T) {
	nginxPath(t)
	o := startBodyRecorder(t)
	app := fastcgiApp(t, func(names, values []string) string {
		cl := "none"
		if i := slices.Index(names, "CONTENT_LENGTH"); i >= 0 {
			cl = fmt.Sprintf("%q", values[i])
		}
		return "Content-Type: text/plain\r\nX-CL: " + cl + "\r\nContent-Length: 2\r\n\r\nok"
	})
	h2 := map[string]int{"m": freePort(t), "n": freePort(t)}
	startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; listen 127.0.0.1:%d http2;
			proxy_set_header X-Who %s;
			location /r/ { rewrite ^/r/(.*)$ /$1 break; proxy_pass http://%s; }
			location /t/ { rewrite ^/t/(.*)$ /$1 break; try_files $uri @up; }
			location @up { proxy_pass http://%[4]s; }
			location /f/ { rewrite ^/f/(.*)$ /$1 break;
				fastcgi_param CONTENT_LENGTH $content_length; fastcgi_pass %s; } }`,
			port, h2[who], who, o.Addr(), app)
	})
	answer := func(who, path string) string {
		c := dialH2C(t, h2[who])
		c.headers(t, 1, true, h2cGet(path)...)
		return strings.Join(c.responseFields(1), "\n")
	}
	for _, c := range []struct{ path, sent string }{{"/r/a", "/a"}, {"/t/b", "/b"}} {
		for _, who := range []string{"m", "n"} {
			if a := answer(who, c.path); !strings.Contains(a, "content-length") {
				t.Errorf("%s %s: no answer from the upstream: %q", who, c.path, a)
			}
		}
		if m, n := o.take("m", c.sent), o.take("n", c.sent); m != n || n == "" {
			t.Errorf("GET %s over HTTP/2: %s was sent\n  by mosaic: %s\n  by NGINX:  %s", c.path, c.sent, m, n)
		}
	}
	if m, n := answer("m", "/f/c"), answer("n", "/f/c"); m != n || !strings.Contains(n, "x-cl:") {
		t.Errorf("GET /f/c over HTTP/2, FastCGI's answer:\n  mosaic: %q\n  NGINX:  %q", m, n)
	}
}
