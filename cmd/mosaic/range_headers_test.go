package main

import (
	"bufio"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestRangeHeadersAsNGINX: NGINX's range filter cuts or refuses a range
// after add_header and expires acted on the 200, so their values see
// $status 200 in a 206 as in a 416; its error page runs them again for
// the 416, so a 416 of a static file keeps the 200's headers and expires
// and carries the "always" ones twice. mosaic's 416 had only the
// "always" ones, once, and its values saw 206 or 416.
func TestRangeHeadersAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	for _, who := range []string{"nginx", "mosaic"} {
		writeFile(t, filepath.Join(dir, who, "site/a.txt"), "0123456789")
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		site := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], "site")
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s;
			location / { add_header X-A a; add_header X-B b always;
				add_header X-S $status; add_header X-T $status always;
				expires 1h; } }`, port, site)
	})
	for _, rng := range []string{"bytes=100-", "bytes=20-30,40-50", "bytes=1-2", "bytes=1-2,4-5"} {
		req := fmt.Sprintf("GET /a.txt HTTP/1.1\r\nHost: a.test\r\nRange: %s\r\nConnection: close\r\n\r\n", rng)
		m, n := headerAnswer(t, sendUntilClosed(t, mport, req)), headerAnswer(t, sendUntilClosed(t, nport, req))
		if m != n {
			t.Errorf("Range: %s\nmosaic %s\nNGINX  %s", rng, m, n)
		}
	}
}

// headerAnswer is a response's status and the fields add_header and
// expires act on (answerFields).
func headerAnswer(t *testing.T, raw string) string {
	t.Helper()
	return answerFields(t, raw, "X-A", "X-B", "X-S", "X-T", "Cache-Control", "Content-Range", "Etag", "Last-Modified")
}

// answerFields is a response's status and its fields keys, each with all
// its values; Expires only as present or not, its date being the
// servers' clocks'.
func answerFields(t *testing.T, raw string, keys ...string) string {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw)), nil)
	if err != nil {
		t.Fatalf("unreadable %q", raw)
	}
	resp.Body.Close()
	b := fmt.Sprintf("%d", resp.StatusCode)
	for _, k := range keys {
		b += fmt.Sprintf(" %s=%q", k, resp.Header.Values(k))
	}
	return b + fmt.Sprintf(" Expires=%d", len(resp.Header.Values("Expires")))
}
