package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestProxyValueBytesAsNGINX: a client's field value holding a control
// byte other than NUL, CR and LF, or a DEL, which the HTTP/1 parser now
// serves as NGINX does, goes upstream as sent, as NGINX passes it; so
// does proxy_set_header's value made of it. mosaic's proxy dropped such
// lines, so a browser's Cookie with a DEL reached the upstream as no
// Cookie at all.
func TestProxyValueBytesAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := headEchoOrigin(t, "")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; access_log off;
			location / { proxy_pass http://%s; proxy_set_header X-Copy $http_x_a; } }`, port, origin)
	})
	for _, c := range []byte{0x01, '\t', 0x1b, 0x1f, 0x7f, 0x80} {
		req := fmt.Sprintf("GET /a HTTP/1.1\r\nHost: a.test\r\nX-A: a%cb\r\nCookie: k=%c\r\nConnection: close\r\n\r\n", c, c)
		_, mb, _ := rawResponse(t, mport, req)
		_, nb, _ := rawResponse(t, nport, req)
		if !strings.Contains(nb, "Cookie: k=") {
			t.Fatalf("byte %#x: NGINX did not pass Cookie:\n%q", c, nb)
		}
		if mb != nb {
			t.Errorf("byte %#x:\nmosaic sent %q\nnginx sent  %q", c, mb, nb)
		}
	}
}
