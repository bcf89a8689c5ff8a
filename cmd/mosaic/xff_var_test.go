package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestProxyAddXForwardedForOutsideProxyAsNGINX: NGINX computes
// $proxy_add_x_forwarded_for in any request, proxied or not: the client's
// X-Forwarded-For with $remote_addr added, or $remote_addr alone. A
// location that answers itself reads it, and so does its access log.
func TestProxyAddXForwardedForOutsideProxyAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		logs := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who])
		return fmt.Sprintf(`log_format d '[$proxy_add_x_forwarded_for]';
			server { listen 127.0.0.1:%[1]d; access_log %[2]s/access.log d;
				location / { return 200 "[$proxy_add_x_forwarded_for]"; } }`, port, logs)
	})
	for _, req := range []string{"GET / HTTP/1.1\r\nHost: a.test", "GET / HTTP/1.1\r\nHost: a.test\r\nX-Forwarded-For: 192.0.2.1"} {
		sameAnswer(t, mport, nport, req, "")
	}
	sameAccessLogs(t, dir, 2)
}

// TestProxyAddXForwardedForUnixAsNGINX: over a Unix-domain socket
// $remote_addr is "unix:", and $proxy_add_x_forwarded_for adds it as it
// is.
func TestProxyAddXForwardedForUnixAsNGINX(t *testing.T) {
	sameUnixLogs(t, "[$proxy_add_x_forwarded_for]", "GET / HTTP/1.0\r\nX-Forwarded-For: 192.0.2.1\r\n\r\n")
}
