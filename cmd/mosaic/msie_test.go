package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// msieServer answers errors and redirects of its own, with msie_padding
// and msie_refresh in their default and other states.
const msieServer = `server { listen 127.0.0.1:{port}; server_tokens off;
	location / { return 404; }
	location /e500 { return 500; }
	location /e403 { return 403; }
	location /off { msie_padding off; return 404; }
	location /r302 { return 302 /target; }
	location /refresh302 { msie_refresh on; return 302 "/t?a=b c'd<e>f^g{h}i|j~k%41"; }
	location /refresh301 { msie_refresh on; return 301 http://example.com/p; }
	location /refresh307 { msie_refresh on; return 307 /p; }
	location /refreshoff { msie_refresh on; msie_padding off; return 404; }
	location /files/ { msie_refresh on; root {root}; }
}`

// TestMSIEPaddingAndRefreshMatchNGINX: the pages NGINX answers its own
// errors with (400 and up) carry msie_padding's comment lines for MSIE and
// Chrome, unless it is off, and msie_refresh turns a 301 or 302 for MSIE
// into a 200 page with a meta refresh, as Debian's NGINX does.
func TestMSIEPaddingAndRefreshMatchNGINX(t *testing.T) {
	nginxPath(t)
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "files", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return strings.NewReplacer("{port}", fmt.Sprint(port), "{root}", root).Replace(msieServer)
	})
	agents := map[string]string{
		"msie8":   "Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 6.1; Trident/4.0)",
		"chrome":  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
		"firefox": "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0",
		"opera":   "Opera/9.80 (compatible; MSIE 6.0) Presto/2.12",
		"none":    "",
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(port int, path, ua string) string {
		t.Helper()
		req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
		req.Header.Set("User-Agent", ua)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s (%s): %v", path, ua, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if cl := resp.Header.Get("Content-Length"); cl != fmt.Sprint(len(body)) {
			t.Errorf("%s (%s): Content-Length %s for %d bytes", path, ua, cl, len(body))
		}
		page := strings.ReplaceAll(string(body), "<center>nginx</center>", "<center>mosaic</center>")
		loc := resp.Header.Get("Location")
		if i := strings.Index(loc, fmt.Sprint(port)); i >= 0 {
			loc = loc[:i] + "PORT" + loc[i+len(fmt.Sprint(port)):]
		}
		return fmt.Sprintf("%d type=%s location=%q\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), loc, page)
	}
	padded, refreshed := 0, 0
	for _, path := range []string{"/", "/e500", "/e403", "/off", "/r302", "/refresh302", "/refresh301", "/refresh307", "/refreshoff", "/files/sub"} {
		for name, ua := range agents {
			m, n := get(mport, path, ua), get(nport, path, ua)
			if m != n {
				t.Errorf("%s as %s:\nmosaic %s\nNGINX  %s", path, name, m, n)
			}
			if strings.Contains(n, "a padding to disable MSIE") {
				padded++
			}
			if strings.Contains(n, `http-equiv="Refresh"`) {
				refreshed++
			}
		}
	}
	// What the cases hold of NGINX: the three error pages with the default
	// msie_padding, each for MSIE and for Chrome.
	if padded != 6 {
		t.Errorf("NGINX padded %d pages, want 6", padded)
	}
	// And the 301 and 302 of msie_refresh, the directory's 301 among
	// them, as refresh pages for MSIE.
	if refreshed != 3 {
		t.Errorf("NGINX refreshed %d times, want 3", refreshed)
	}
}
