package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestErrorPageRangeAsNGINX: NGINX's range and not-modified filters act
// on a response whose status is 200, whatever served it, so the client's
// Range and validators go with an error_page's redirect. A page that
// keeps the error's status ("error_page 404 /x") goes whole; one whose
// status is 200 ("=200", or "=" and a target that answers 200, a named
// location too) is cut to the range (206) or answered 304. A proxied
// target gets the client's Range, as any proxied request does. mosaic
// dropped those fields before the redirect, so "=" pages went whole.
func TestErrorPageRangeAsNGINX(t *testing.T) {
	nginxPath(t)
	content := []byte("0123456789abcdefghijklmnopqrstuvwxyz")
	mod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"fb"`)
		http.ServeContent(w, r, "fallback.bin", mod, bytes.NewReader(content))
	}))
	t.Cleanup(origin.Close)
	dir := t.TempDir()
	for _, who := range []string{"nginx", "mosaic"} {
		writeFile(t, filepath.Join(dir, who, "site/fallback.bin"), string(content))
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		site := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], "site")
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s;
			location /plain/ { error_page 404 /fallback.bin; }
			location /ok/ { error_page 404 =200 /fallback.bin; }
			location /same/ { error_page 404 = /fallback.bin; }
			location /named/ { error_page 404 = @file; }
			location @file { try_files /fallback.bin =404; }
			location /p-plain/ { error_page 404 /up/fallback.bin; }
			location /p-ok/ { error_page 404 =200 /up/fallback.bin; }
			location /p-same/ { error_page 404 = /up/fallback.bin; }
			location /p-named/ { error_page 404 = @up; }
			location /up/ { proxy_pass http://%[3]s; }
			location @up { proxy_pass http://%[3]s; } }`, port, site, origin.Listener.Addr())
	})
	for _, loc := range []string{"plain", "ok", "same", "named", "p-plain", "p-ok", "p-same", "p-named"} {
		for _, hdr := range []string{
			"Range: bytes=2-5",
			"Range: bytes=2-5\r\nIf-Range: \"fb\"",
			"Range: bytes=100-",
			"If-None-Match: *",
			"If-Match: \"other\"",
			"If-Modified-Since: Thu, 01 Jan 2099 00:00:00 GMT",
		} {
			req := fmt.Sprintf("GET /%s/missing HTTP/1.1\r\nHost: a.test\r\n%s\r\nConnection: close\r\n\r\n", loc, hdr)
			m, n := sendUntilClosed(t, mport, req), sendUntilClosed(t, nport, req)
			if ms, ns := rangeAnswer(m), rangeAnswer(n); ms != ns {
				t.Errorf("/%s/ %q:\nmosaic %s\nNGINX  %s", loc, hdr, ms, ns)
			}
		}
	}
}

// rangeAnswer is a response's status, Content-Range and body; the body
// of an error page of the server's own is only "(page)": the servers
// sign theirs differently.
func rangeAnswer(raw string) string {
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw)), nil)
	if err != nil {
		return fmt.Sprintf("unreadable %q", raw)
	}
	body, _ := io.ReadAll(resp.Body)
	if bytes.Contains(body, []byte("<html>")) {
		body = []byte("(page)")
	}
	return fmt.Sprintf("%d Content-Range=%q body=%q", resp.StatusCode, resp.Header.Get("Content-Range"), body)
}
