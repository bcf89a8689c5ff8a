package main

import (
	"fmt"
	"testing"
)

// TestRangeErrorPageReturnAsNGINX: "error_page 416 =200 @x" where @x
// returns a text. NGINX's request keeps the file's leave to cut ranges
// (r->allow_ranges), so its range filter refuses the text's range as
// well and the answer is its 416 page with both Content-Range fields:
// the "=200" the site asked for is lost. mosaic sends the 200 asked for,
// without the file's refused Content-Range, which it used to keep; a
// page without "=" and a range the text can give agree with NGINX.
func TestRangeErrorPageReturnAsNGINX(t *testing.T) {
	mport, nport := startBothSite(t, t.TempDir(), func(sub string, port, _ int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s/site;
			location / { error_page 416 =200 @x; }
			location /s/ { alias %[2]s/site/; error_page 416 @x; }
			location @x { return 200 "text\n"; } }`, port, sub)
	})
	keys := []string{"Content-Range", "Content-Type", "Content-Length"}
	for _, path := range []string{"/a.txt", "/s/a.txt"} {
		for _, rng := range []string{"bytes=100-", "bytes=1-2"} {
			req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: a.test\r\nRange: %s\r\nConnection: close\r\n\r\n", path, rng)
			m, n := answerFields(t, sendUntilClosed(t, mport, req), keys...), answerFields(t, sendUntilClosed(t, nport, req), keys...)
			if path == "/a.txt" && rng == "bytes=100-" {
				// The documented difference: NGINX's 416 page, mosaic's 200.
				n = `416 Content-Range=["bytes */10" "bytes */5"] Content-Type=["text/html"] Content-Length=["197"] Expires=0`
				if got := answerFields(t, sendUntilClosed(t, nport, req), keys...); got != n {
					t.Errorf("NGINX changed: %s", got)
				}
				n = `200 Content-Range=[] Content-Type=["text/plain"] Content-Length=["5"] Expires=0`
			}
			if m != n {
				t.Errorf("%s Range: %s\nmosaic %s\nwant   %s", path, rng, m, n)
			}
		}
	}
}
