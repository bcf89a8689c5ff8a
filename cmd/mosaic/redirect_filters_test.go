package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// After an internal redirect NGINX sends the response with the output
// filters of the location the redirect reached: r->loc_conf is switched,
// and add_header, expires and gzip read it as the header goes out. The
// first location's filters do not touch the response. The cases: a
// try_files fallback to an exact location (a single-page site's
// index.html with its Content-Security-Policy), error_page to a named
// location and to a URI (with and without "always"), an index file, gzip
// and SSI on in the first location and off in the target, and the
// reverse, SSI in a subrequest that is redirected, and charset.
func TestInternalRedirectSendsWithTargetFilters(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("compressible text line\n", 200)
	for _, sub := range []string{"nginx", "mosaic"} {
		www := filepath.Join(dir, sub, "www")
		writeFile(t, filepath.Join(www, "index.html"), "spa")
		writeFile(t, filepath.Join(www, "page.html"), "error page")
		writeFile(t, filepath.Join(www, "dir/idx.html"), "index file")
		writeFile(t, filepath.Join(www, "plain/big.txt"), big)
		writeFile(t, filepath.Join(www, "zipped/big.txt"), big)
		writeFile(t, filepath.Join(www, "raw/r.html"), `<!--# echo var="uri" -->`)
		writeFile(t, filepath.Join(www, "cooked/c.html"), `<!--# echo var="uri" -->`)
		writeFile(t, filepath.Join(www, "ssi/page.html"), `[<!--# include virtual="/inc/x" -->]`)
		writeFile(t, filepath.Join(www, "cs/c.txt"), "text")
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		return fmt.Sprintf(`types { text/html html; text/plain txt; }
		gzip_types text/plain; gzip_min_length 1;
		server {
			listen 127.0.0.1:%d; root %s/www;
			location / { add_header X-Loc root always; expires 1h; try_files $uri /index.html; }
			location = /index.html { add_header Content-Security-Policy "frame-ancestors 'none'" always; }
			location /e/ { add_header X-Loc e always; error_page 404 = @page; }
			location @page { add_header X-Frame-Options DENY always; return 200 "page"; }
			location /ep/ { add_header X-Loc ep always; error_page 404 /page.html; }
			location = /page.html { add_header X-Page-Always yes always; add_header X-Page-Ok yes; }
			location /dir/ { add_header X-Loc dir always; index idx.html; }
			location = /dir/idx.html { add_header X-Index yes; }
			location /gz/ { gzip on; gzip_vary on; add_header X-Loc gz; try_files $uri /plain/big.txt; }
			location /plain/ { gzip off; }
			location /nogz/ { gzip off; try_files $uri /zipped/big.txt; }
			location /zipped/ { gzip on; gzip_vary on; add_header X-Zipped yes; }
			location /s1/ { ssi on; try_files $uri /raw/r.html; }
			location /raw/ { ssi off; }
			location /s2/ { ssi off; try_files $uri /cooked/c.html; }
			location /cooked/ { ssi on; }
			location /ssi/ { ssi on; }
			location /inc/ { ssi off; try_files $uri /cooked/c.html; }
			location /c1/ { charset koi8-r; try_files $uri /plain/big.txt; }
			location /c2/ { try_files $uri /cs/c.txt; }
			location /cs/ { charset utf-8; }
			location /tfe/ { add_header X-Loc tfe always; error_page 404 /page.html; try_files $uri /bare/missing.html; }
			location /bare/ { gzip on; add_header X-Bare yes always; }
		}`, port, filepath.Join(dir, sub))
	})
	compare := []string{"Content-Security-Policy", "X-Loc", "X-Frame-Options", "X-Page-Always", "X-Page-Ok",
		"X-Index", "X-Zipped", "X-Bare", "Content-Encoding", "Vary", "Cache-Control", "Content-Type"}
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/some/route", "spa"},
		{"HEAD", "/some/route", ""},
		{"GET", "/e/missing", "page"},
		{"GET", "/ep/missing", "error page"},
		{"GET", "/dir/", "index file"},
		{"GET", "/gz/missing", big},
		{"GET", "/nogz/missing", big},
		{"GET", "/s1/missing", `<!--# echo var="uri" -->`},
		{"GET", "/s2/missing", "/cooked/c.html"},
		{"GET", "/ssi/page.html", "[/cooked/c.html]"},
		{"GET", "/c1/missing", big},
		{"GET", "/c2/missing", "text"},
		// The target's own error_page decides, not the first location's.
		{"GET", "/tfe/missing", "*"},
	} {
		mr, mb := getEncoded(t, c.method, mport, c.path)
		nr, nb := getEncoded(t, c.method, nport, c.path)
		if mr.StatusCode != nr.StatusCode {
			t.Errorf("%s %s: status mosaic %d, nginx %d", c.method, c.path, mr.StatusCode, nr.StatusCode)
		}
		for _, h := range compare {
			if mv, nv := mr.Header.Values(h), nr.Header.Values(h); strings.Join(mv, ", ") != strings.Join(nv, ", ") {
				t.Errorf("%s %s: %s: mosaic %q, nginx %q", c.method, c.path, h, mv, nv)
			}
		}
		if c.body == "*" {
			if !strings.Contains(mb, "404") || !strings.Contains(nb, "404") {
				t.Errorf("%s %s: body mosaic %q, nginx %q, want a 404 page", c.method, c.path, mb, nb)
			}
		} else if mb != c.body || nb != c.body {
			t.Errorf("%s %s: body mosaic %.40q (%d bytes), nginx %.40q (%d bytes), want %.40q",
				c.method, c.path, mb, len(mb), nb, len(nb), c.body)
		}
	}
}

// getEncoded sends a request that accepts gzip and returns the response
// with its body decoded.
func getEncoded(t *testing.T, method string, port int, path string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "gzip")
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s %s: gzip body: %v", method, path, err)
		}
		if raw, err = io.ReadAll(zr); err != nil {
			t.Fatalf("%s %s: gzip body: %v", method, path, err)
		}
	}
	return resp, string(raw)
}

// TestESIReplayThenRedirect: ESI runs a location's content again when an
// upstream answered a Range request with a slice of the document; when
// that second run redirects (X-Accel-Redirect), the target's response
// reaches the client through the target's filters.
func TestESIReplayThenRedirect(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.Header.Get("Range") != "" {
			w.Header().Set("Content-Range", "bytes 0-3/20")
			w.WriteHeader(http.StatusPartialContent)
			io.WriteString(w, "<b>x")
			return
		}
		w.Header().Set("X-Accel-Redirect", "/t/page.html")
	}))
	t.Cleanup(origin.Close)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/t/page.html"), "target page")
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http {
		types { text/html html; }
		server {
			listen 127.0.0.1:%d; root %s/www;
			location /e/ { esi on; proxy_pass http://%s; }
			location /t/ { internal; add_header X-T yes; }
		}
	}`, port, dir, origin.Listener.Addr().String()), port)
	req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d/e/x", port), nil)
	req.Header.Set("Range", "bytes=0-3")
	resp, body := doRequest(t, req)
	if resp.StatusCode != 200 || body != "target page" || resp.Header.Get("X-T") != "yes" {
		t.Errorf("got %d %q X-T=%q, want 200 %q X-T=yes", resp.StatusCode, body, resp.Header.Get("X-T"), "target page")
	}
}

// TestAccessLogOfRedirectTargetAsNGINX: a request is logged with the
// access_log of the location it ends in (NGINX's log phase reads the
// configuration the request ended with): a try_files fallback from a
// location that logs elsewhere, or not at all, goes to the target's log.
func TestAccessLogOfRedirectTargetAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	for _, who := range []string{"nginx", "mosaic"} {
		writeFile(t, filepath.Join(dir, who, "www/t/x.html"), "target")
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		logs := filepath.Join(dir, sub)
		return fmt.Sprintf(`log_format short "$uri $status";
		server {
			listen 127.0.0.1:%d; root %s/www;
			location /a/ { access_log %[3]s/a.log short; try_files $uri /t/x.html; }
			location /off/ { access_log off; try_files $uri /t/x.html; }
			location /t/ { access_log %[3]s/t.log short; }
		}`, port, filepath.Join(dir, sub), logs)
	})
	for _, port := range []int{mport, nport} {
		for _, path := range []string{"/a/missing", "/off/missing"} {
			if resp, body := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), "GET "+path+" HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"); resp.StatusCode != 200 {
				t.Fatalf("%s: %d %q", path, resp.StatusCode, body)
			}
		}
	}
	for _, name := range []string{"a.log", "t.log"} {
		var got [2]string
		for i, who := range []string{"mosaic", "nginx"} {
			for range 50 { // NGINX writes after the response
				b, _ := os.ReadFile(filepath.Join(dir, who, name))
				if got[i] = string(b); strings.Count(got[i], "\n") >= 2 || name == "a.log" {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		if got[0] != got[1] {
			t.Errorf("%s: mosaic %q, nginx %q", name, got[0], got[1])
		}
	}
}

// TestLogSubrequestOfRedirectTargetAsNGINX: whether a subrequest is
// logged (log_subrequest) and where (access_log) are read in the
// location it ended in, as NGINX reads both there: an SSI include that a
// try_files fallback moves from a location with log_subrequest off to
// one with it on is logged, and the other way round it is not.
func TestLogSubrequestOfRedirectTargetAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	for _, who := range []string{"nginx", "mosaic"} {
		writeFile(t, filepath.Join(dir, who, "www/page.html"), `A<!--# include virtual="/off/a" -->B<!--# include virtual="/on/a" -->C`)
		writeFile(t, filepath.Join(dir, who, "www/logged/a"), "logged")
		writeFile(t, filepath.Join(dir, who, "www/quiet/a"), "quiet")
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who])
		return fmt.Sprintf(`log_format short "$uri $status";
		server {
			listen 127.0.0.1:%d; root %s/www;
			location = /page.html { ssi on; access_log off; }
			location /off/ { log_subrequest off; access_log %[2]s/off.log short; try_files /none /logged/a; }
			location /logged/ { log_subrequest on; access_log %[2]s/logged.log short; }
			location /on/ { log_subrequest on; access_log %[2]s/on.log short; try_files /none /quiet/a; }
			location /quiet/ { log_subrequest off; access_log %[2]s/quiet.log short; }
		}`, port, sub)
	})
	for _, port := range []int{mport, nport} {
		if resp, body := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), "GET /page.html HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"); resp.StatusCode != 200 || body != "AloggedBquietC" {
			t.Fatalf("page: %d %q", resp.StatusCode, body)
		}
	}
	time.Sleep(100 * time.Millisecond) // NGINX writes after the response
	for _, name := range []string{"off.log", "logged.log", "on.log", "quiet.log"} {
		m, _ := os.ReadFile(filepath.Join(dir, "mosaic", name))
		n, _ := os.ReadFile(filepath.Join(dir, "nginx", name))
		if string(m) != string(n) {
			t.Errorf("%s: mosaic %q, nginx %q", name, m, n)
		}
	}
}
