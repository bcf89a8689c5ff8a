package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestRangeSentContentTypeAsNGINX: the H5BP construct, maps of
// $sent_http_content_type feeding add_header and expires. NGINX's header
// filters run for the 200 before its range filter refuses the range
// (416, an HTML error page) or retypes it (a multipart 206): the maps see
// the file's type, text/css, and keep those values for the request, so
// the 416's second pass of the "always" fields reads them again. mosaic
// evaluated them with the 416's text/html (X-Frame-Options "DENY" twice,
// Cache-Control "no-cache") and the 206's multipart type (no
// Referrer-Policy). An add_header of Content-Type adds its line to the
// 206 beside the file's type, and to the 416 beside the page's.
func TestRangeSentContentTypeAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	for _, who := range []string{"nginx", "mosaic"} {
		writeFile(t, filepath.Join(dir, who, "site/a.css"), "body{color:red}\n")
		writeFile(t, filepath.Join(dir, who, "site/t/a.css"), "body{color:red}\n")
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		site := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], "site")
		return fmt.Sprintf(`
			map $sent_http_content_type $xfo { ~*text/html DENY; }
			map $sent_http_content_type $ref { ~*text/(css|html) "strict-origin"; }
			map $sent_http_content_type $exp { default 1y; ~*text/html epoch; }
			types { text/css css; }
			server { listen 127.0.0.1:%d; root %s;
				add_header X-Frame-Options $xfo always;
				add_header Referrer-Policy $ref always;
				add_header X-Type $sent_http_content_type;
				expires $exp;
				location /t/ { add_header Content-Type text/x-added; } }`, port, site)
	})
	for _, rng := range []string{"bytes=100-", "bytes=0-1,4-5", "bytes=1-2"} {
		req := fmt.Sprintf("GET /a.css HTTP/1.1\r\nHost: a.test\r\nRange: %s\r\nConnection: close\r\n\r\n", rng)
		fields := []string{"X-Frame-Options", "Referrer-Policy", "X-Type", "Cache-Control"}
		m := answerFields(t, sendUntilClosed(t, mport, req), fields...)
		n := answerFields(t, sendUntilClosed(t, nport, req), fields...)
		if m != n {
			t.Errorf("Range: %s\nmosaic %s\nNGINX  %s", rng, m, n)
		}
	}
	// add_header's own Content-Type line follows the file's on NGINX's
	// 206, whose type its range filter leaves, and the page's on its
	// 416, whose special response keeps add_header's fields; mosaic put
	// the answer's own type back over both once the 200's pass was done
	// (rd2).
	for _, rng := range []string{"bytes=1-2", "bytes=100-"} {
		req := fmt.Sprintf("GET /t/a.css HTTP/1.1\r\nHost: a.test\r\nRange: %s\r\nConnection: close\r\n\r\n", rng)
		m := answerFields(t, sendUntilClosed(t, mport, req), "Content-Type")
		n := answerFields(t, sendUntilClosed(t, nport, req), "Content-Type")
		if m != n {
			t.Errorf("/t/a.css, Range: %s\nmosaic %s\nNGINX  %s", rng, m, n)
		}
	}
}
