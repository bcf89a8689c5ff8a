package main

import (
	"fmt"
	"testing"
)

// TestH2PathFormsAsNGINX: an HTTP/2 :path that is not a path is answered
// 400 on its stream, as NGINX answers it, when Go's HTTP/2 server passes
// it on ("*" with any method, a scheme, an absolute URI); a :path that Go's
// server cannot parse as a request target (empty, "x", "?a", "a/b") it
// resets (PROTOCOL_ERROR, as RFC 9113 §8.1.1 asks of a malformed
// request) before any hook of mosaic runs, where NGINX answers 400
// (server/README.md, HTTP/2). Either way the connection goes on: the
// next stream is served. "//a" is a path, served by both.
func TestH2PathFormsAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d http2; location / { return 200 "ok"; } }`, port)
	})
	reset := map[string]bool{"": true, "x": true, "?a": true, "a/b": true}
	for _, path := range []string{"*", "x:y", "http://a/b", "//a", "", "x", "?a", "a/b"} {
		for _, method := range []string{"GET", "OPTIONS"} {
			got := map[string][2]string{}
			for who, port := range map[string]int{"mosaic": mport, "nginx": nport} {
				h := dialH2C(t, port)
				h.headers(t, 1, true, ":method", method, ":scheme", "http", ":authority", "a.example", ":path", path)
				first := h.status(1)
				h.headers(t, 3, true, h2cGet("/")...)
				got[who] = [2]string{first, h.status(3)}
			}
			m, n := got["mosaic"], got["nginx"]
			want := n
			if reset[path] && n[0] == "400" {
				want[0] = "reset PROTOCOL_ERROR" // Go's server, documented
			}
			if m != want {
				t.Errorf("%s %q: mosaic %q, want %q (nginx %q)", method, path, m, want, n)
			}
		}
	}
}
