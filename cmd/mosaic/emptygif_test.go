package main

import (
	"fmt"
	"testing"

	"github.com/mosaic-edge/mosaic/emptygif"
	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestEmptyGIFMatchesNGINX compares empty_gif with Debian's NGINX: the
// image byte for byte, HEAD, other methods (405), the conditional
// requests that NGINX's not-modified filter answers (If-Modified-Since
// as if_modified_since says, If-Unmodified-Since, If-None-Match: *),
// a Range it ignores, an "if" block inside the location and a nested
// location that does not inherit it.
func TestEmptyGIFMatchesNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%d; root %s;
			location /g { empty_gif; if ($arg_x) { add_header X-If 1; } location /g/nested { return 200 "nested"; } }
			location /before { if_modified_since before; empty_gif; }
			location /off { if_modified_since off; empty_gif; }
		}`, port, dir)
	})
	lm := "Mon, 28 Sep 1970 06:00:00 GMT"
	for _, head := range []string{
		"GET /g HTTP/1.1", "HEAD /g HTTP/1.1", "POST /g HTTP/1.1\r\nContent-Length: 0", "DELETE /g HTTP/1.1",
		"GET /g?x=1 HTTP/1.1", "GET /g/nested HTTP/1.1",
		"GET /g HTTP/1.1\r\nIf-Modified-Since: " + lm,
		"GET /g HTTP/1.1\r\nIf-Modified-Since: Mon, 28 Sep 1980 06:00:00 GMT",
		"GET /before HTTP/1.1\r\nIf-Modified-Since: Mon, 28 Sep 1980 06:00:00 GMT",
		"GET /off HTTP/1.1\r\nIf-Modified-Since: " + lm,
		"GET /g HTTP/1.1\r\nIf-Unmodified-Since: Mon, 28 Sep 1970 05:00:00 GMT",
		"GET /g HTTP/1.1\r\nIf-None-Match: *",
		"GET /g HTTP/1.1\r\nRange: bytes=0-5",
	} {
		sameAnswer(t, mport, nport, head+"\r\nHost: a.test", "")
	}
	for _, port := range []int{mport, nport} {
		resp, body := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), "GET /g HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
		if body != string(emptygif.GIF[:]) || resp.Header.Get("Content-Type") != "image/gif" || resp.Header.Get("Last-Modified") != lm {
			t.Errorf("port %d: %q %v", port, body, resp.Header)
		}
	}
	resp, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), "GET /g?x=1 HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
	if resp.Header.Get("X-If") != "1" {
		t.Errorf("if block: %v", resp.Header)
	}
}
