package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRangeErrorPageHeadersAsNGINX: NGINX's add_header and expires act
// on the 200 before its range filter refuses the range, and the
// error_page for the 416 (a URI, "=" and a URI, a named location) is an
// internal redirect that keeps the header list they filled: the page
// goes out with the 200's add_header fields (their $status 200) and
// expires, Content-Language among them. mosaic's page had only its own
// location's.
func TestRangeErrorPageHeadersAsNGINX(t *testing.T) {
	mport, nport := startBothSite(t, t.TempDir(), func(sub string, port, _ int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %[2]s/site;
			add_header X-A a; add_header X-B b always; add_header X-S $status always; expires 1h;
			add_header Content-Language de;
			location /p/ { alias %[2]s/site/; error_page 416 /x.html; }
			location /e/ { alias %[2]s/site/; error_page 416 = /x.html; }
			location /n/ { alias %[2]s/site/; error_page 416 @x; }
			location @x { add_header X-P named always; return 416 "named\n"; }
			location = /x.html { add_header X-P page always; } }`, port, sub)
	})
	for _, path := range []string{"/p/a.txt", "/e/a.txt", "/n/a.txt"} {
		req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: a.test\r\nRange: bytes=100-\r\nConnection: close\r\n\r\n", path)
		// With "=" the page's own range is refused again: that 416
		// keeps the Content-Language the first gave it, as NGINX's
		// special response does (server.clearRepresentation).
		keys := []string{"X-A", "X-B", "X-S", "X-P", "Cache-Control", "Content-Language"}
		m, n := answerFields(t, sendUntilClosed(t, mport, req), keys...), answerFields(t, sendUntilClosed(t, nport, req), keys...)
		if m != n {
			t.Errorf("%s\nmosaic %s\nNGINX  %s", path, m, n)
		}
	}
}

// TestRangeRefusedKeepsLanguageAsNGINX: NGINX's special response for a
// refused range clears only Accept-Ranges, Last-Modified and ETag of the
// 200 (and replaces its length and type), so a Content-Language or
// Content-Disposition that an upstream sent, that the cache stored, or
// that add_header gave stays on the 416 and on its error_page. mosaic's
// server.Error dropped them with the failed representation's fields: the
// cache's Content-Disposition, and add_header's Content-Language from a
// page whose own range was refused again ("error_page 416 = URI").
// The cache's own refusal (byterange.SetHeader, shared with the proxy
// and slice) keeps them too. Left: NGINX's second 416 keeps the first's
// Content-Range beside its own; not compared.
func TestRangeRefusedKeepsLanguageAsNGINX(t *testing.T) {
	mport, nport := startBothSite(t, t.TempDir(), func(sub string, port, bport int) string {
		return fmt.Sprintf(`proxy_cache_path %[1]s/cache keys_zone=z:1m;
			server { listen 127.0.0.1:%[3]d; root %[1]s/site;
				add_header Content-Language fr; add_header Content-Disposition inline; }
			server { listen 127.0.0.1:%[2]d; root %[1]s/site;
				location /f/ { proxy_pass http://127.0.0.1:%[3]d/; proxy_force_ranges on; }
				location /c/ { proxy_pass http://127.0.0.1:%[3]d/; proxy_cache z; proxy_cache_valid 1h; }
				location /ce/ { proxy_pass http://127.0.0.1:%[3]d/; proxy_cache z; proxy_cache_valid 1h;
					error_page 416 /x.html; }
				location /s/ { alias %[1]s/site/; add_header Content-Language de; error_page 416 = /x.html; }
				location = /x.html { } }`, sub, port, bport)
	})
	// The cached paths twice: a miss, then a hit.
	for _, path := range []string{"/f/a.txt", "/c/a.txt", "/c/a.txt", "/ce/a.txt", "/ce/a.txt", "/s/a.txt"} {
		req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: a.test\r\nRange: bytes=100-\r\nConnection: close\r\n\r\n", path)
		keys := []string{"Content-Disposition", "Content-Type", "Content-Language"}
		m, n := answerFields(t, sendUntilClosed(t, mport, req), keys...), answerFields(t, sendUntilClosed(t, nport, req), keys...)
		if m != n {
			t.Errorf("%s\nmosaic %s\nNGINX  %s", path, m, n)
		}
	}
}

// TestRangeExpiresModifiedAsNGINX: "expires modified" acts on the 200
// before NGINX's range filter refuses its range, so the 416 expires an
// hour after the file's modification time, as its 200 would; mosaic's
// 416, without Last-Modified, counted the hour from now.
func TestRangeExpiresModifiedAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	past := time.Now().Add(-30 * time.Minute)
	for _, who := range []string{"nginx", "mosaic"} {
		file := filepath.Join(dir, who, "site/a.txt")
		writeFile(t, file, "0123456789")
		if err := os.Chtimes(file, past, past); err != nil {
			t.Fatal(err)
		}
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		site := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], "site")
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s; expires modified +1h;
			location /p/ { alias %[2]s/; error_page 416 @x; }
			location @x { return 416 "named\n"; } }`, port, site)
	})
	for _, path := range []string{"/a.txt", "/p/a.txt"} {
		req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: a.test\r\nRange: bytes=100-\r\nConnection: close\r\n\r\n", path)
		m, n := refusedMaxAge(t, sendUntilClosed(t, mport, req)), refusedMaxAge(t, sendUntilClosed(t, nport, req))
		// Both count to the same time from their own clocks' now: a few
		// seconds apart at most.
		if n < 1700 || n > 1800 || m < n-5 || m > n+5 {
			t.Errorf("%s: mosaic max-age=%d, NGINX max-age=%d", path, m, n)
		}
	}
}

// refusedMaxAge is a 416's Cache-Control max-age.
func refusedMaxAge(t *testing.T, raw string) int {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw)), nil)
	if err != nil {
		t.Fatalf("unreadable %q", raw)
	}
	resp.Body.Close()
	cc := resp.Header.Get("Cache-Control")
	n, err := strconv.Atoi(strings.TrimPrefix(cc, "max-age="))
	if resp.StatusCode != http.StatusRequestedRangeNotSatisfiable || err != nil {
		t.Fatalf("%d with Cache-Control %q", resp.StatusCode, cc)
	}
	return n
}
