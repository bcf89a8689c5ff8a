package main

import (
	"fmt"
	"testing"
)

// TestHeaderValueBytesAsNGINX: NGINX's HTTP/1 header parser refuses only
// NUL, and a CR or LF inside a value (ngx_http_parse_header_line); it
// serves a value with any other control byte, a DEL (a browser's Cookie
// may hold one) or a byte above 0x7f, and $http_* holds it as sent.
// mosaic answered 400 to each control byte and DEL.
func TestHeaderValueBytesAsNGINX(t *testing.T) {
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; access_log off;
			location / { return 200 "[$http_cookie]"; } }`, port)
	})
	for c := range 256 {
		if c == '\r' || c == '\n' {
			continue // they end the line
		}
		req := fmt.Sprintf("GET / HTTP/1.1\r\nHost: a.test\r\nCookie: a=b%cc\r\nConnection: close\r\n\r\n", c)
		m, mb, _ := rawResponse(t, mport, req)
		n, nb, _ := rawResponse(t, nport, req)
		if m.StatusCode != n.StatusCode || n.StatusCode == 200 && mb != nb {
			t.Errorf("byte %#x: mosaic %s %q, NGINX %s %q", c, m.Status, mb, n.Status, nb)
		}
	}
}
