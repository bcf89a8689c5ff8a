package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorPageRangeLoggedAsNGINX: "error_page 416 =200 /page" sends the
// page with the client's Range, which NGINX's range filter refuses again
// where the page is too short: the answer is its own 416, and NGINX's
// special response makes 416 the request's $status (err_status). mosaic
// logged the 200 the page was to go with. A page long enough goes as a
// 206 and is logged 200, the status error_page set, in both; a page that
// is missing is a 404 logged 404. $body_bytes_sent is what each sent of
// the body (the servers sign their own pages differently). GET and HEAD.
func TestErrorPageRangeLoggedAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "site/a.txt"), "0123456789")
	writeFile(t, filepath.Join(dir, "site/page.html"), "page\n")
	writeFile(t, filepath.Join(dir, "site/long.html"), strings.Repeat("L", 300))
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`log_format f "$status $body_bytes_sent";
			server { listen 127.0.0.1:%d; root %[2]s/site; access_log %[2]s/%[3]s.log f;
			location /p/ { alias %[2]s/site/; error_page 416 =200 /page.html; }
			location /l/ { alias %[2]s/site/; error_page 416 =200 /long.html; }
			location /q/ { alias %[2]s/site/; error_page 416 = /page.html; }
			location /s/ { alias %[2]s/site/; error_page 416 /page.html; }
			location /m/ { alias %[2]s/site/; error_page 416 =200 /nope.html; }
		}`, port, dir, who)
	})
	n := 0
	for _, path := range []string{"/p/a.txt", "/l/a.txt", "/q/a.txt", "/s/a.txt", "/m/a.txt"} {
		for _, method := range []string{"GET", "HEAD"} {
			req := method + " " + path + " HTTP/1.1\r\nHost: a.test\r\nRange: bytes=100-\r\nConnection: close\r\n\r\n"
			m, nx := loggedAnswer(t, sendUntilClosed(t, mport, req)), loggedAnswer(t, sendUntilClosed(t, nport, req))
			n++
			ml, nl := waitLog(t, filepath.Join(dir, "m.log"), n)[n-1], waitLog(t, filepath.Join(dir, "n.log"), n)[n-1]
			if ml != m || nl != nx || strings.Fields(m)[0] != strings.Fields(nx)[0] {
				t.Errorf("%s %s: mosaic sent %s, logged %s; NGINX sent %s, logged %s", method, path, m, ml, nx, nl)
			}
		}
	}
}

// loggedAnswer is what an access log of "$status $body_bytes_sent" would
// say of an answer that went as it should: the status (a 206 with the
// 200 that error_page set) and the body's length.
func loggedAnswer(t *testing.T, raw string) string {
	t.Helper()
	resp, body := readAnswer(t, raw)
	code := resp.StatusCode
	if code == http.StatusPartialContent {
		code = http.StatusOK
	}
	return fmt.Sprintf("%d %d", code, len(body))
}

// readAnswer parses a whole answer as sendUntilClosed returns it.
func readAnswer(t *testing.T, raw string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw)), nil)
	if err != nil {
		t.Fatalf("unreadable %q", raw)
	}
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}
