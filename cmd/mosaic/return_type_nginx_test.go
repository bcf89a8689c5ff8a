package main

import (
	"fmt"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestReturnTypeAsNGINX: a "return" with a text (or a 2xx/3xx without one)
// is typed by the extension of $uri, as NGINX's ngx_http_send_response
// leaves it to ngx_http_set_content_type: the robots.txt that many
// shipped configurations answer with "return 200" is text/plain, a
// fallback reached through error_page keeps the missing file's extension,
// a rewrite's new URI gives its own, and a URI without a known extension
// gets default_type. A 200 also passes NGINX's not-modified filter with
// neither ETag nor Last-Modified: If-None-Match "*" gets a 304,
// If-Unmodified-Since or an If-Match but "*" a 412, the other conditions
// the 200. Every answer's status and Content-Type, and the body below 400
// (NGINX's error pages name it), are compared with Debian's NGINX on the
// same configuration.
func TestReturnTypeAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`
			types { text/plain txt; text/css css; application/json json; text/html html; }
			default_type application/x-default;
			server { listen 127.0.0.1:%d; root %s/none; charset utf-8;
				error_page 404 = @fallback;
				location @fallback { return 200 "fallback\n"; }
				location = /robots.txt { return 200 "User-agent: *\nDisallow: /\n"; }
				location /ret/ { return 200 "ret\n"; }
				location /empty/ { return 200; }
				location /moved/ { rewrite ^ /new/page.json; return 200 "moved\n"; }
				location /status/ { return 201 "made\n"; }
			}`, port, dir)
	})
	paths := []string{
		"/robots.txt", "/robots.txt?x=1", "/ret/a.css", "/ret/A.JSON", "/ret/noext",
		"/ret/dir.css/", "/ret/a.unknown", "/ret/a%2Ecss", "/empty/x.txt",
		"/moved/x.txt", "/status/s.css", "/missing.json", "/ret/.css", "/ret/a.",
	}
	conditions := []string{"", "If-None-Match: *\r\n", "If-None-Match: \"x\"\r\n",
		"If-Match: \"x\"\r\n", "If-Match: *\r\n",
		"If-Unmodified-Since: Mon, 01 Jan 2035 00:00:00 GMT\r\n",
		"If-Modified-Since: Mon, 01 Jan 2001 00:00:00 GMT\r\n",
		"If-None-Match: *\r\nIf-Modified-Since: Mon, 01 Jan 2001 00:00:00 GMT\r\n"}
	for _, path := range paths {
		for _, method := range []string{"GET", "HEAD"} {
			for _, cond := range conditions {
				req := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: a\r\n%sConnection: close\r\n\r\n", method, path, cond)
				answer := func(port int) string {
					resp, body := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), req)
					if resp.StatusCode >= 400 {
						body = "(error page)"
					}
					return fmt.Sprintf("%d %q %q", resp.StatusCode, resp.Header.Values("Content-Type"), body)
				}
				if m, n := answer(mport), answer(nport); m != n {
					t.Errorf("%s %s %q: mosaic %s, nginx %s", method, path, cond, m, n)
				}
			}
		}
	}
}
