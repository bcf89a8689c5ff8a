package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// An error page served from a file goes out, as NGINX's, without the
// file's Last-Modified when its status is not 200, 206 or 304 (NGINX's
// header filter drops it), and without Accept-Ranges unless it is a 200
// (NGINX's range filter offers ranges in a 200 only); its ETag stays. A
// page that error_page turns into a 200 keeps them all. A proxied 404
// keeps both, as NGINX passes them from an upstream (not cached).
func TestErrorPageFieldsAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Last-Modified"] = []string{"Mon, 02 Jan 2006 15:04:05 GMT"}
		w.Header()["Accept-Ranges"] = []string{"bytes"}
		w.WriteHeader(map[string]int{"/p/404": 404, "/p/200": 200}[r.URL.Path])
		fmt.Fprintln(w, "origin")
	}))
	defer origin.Close()
	dir := t.TempDir()
	for _, who := range []string{"nginx", "mosaic"} {
		writeFile(t, filepath.Join(dir, who, "www/e.html"), "error page\n")
		writeFile(t, filepath.Join(dir, who, "www/ok.html"), "fine\n")
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		return fmt.Sprintf(`server { listen 127.0.0.1:%[3]d; root %[1]s/%[2]s/www;
			location /a/ { error_page 404 /e.html; }
			location /b/ { error_page 404 =200 /e.html; }
			location /c/ { error_page 404 =410 /e.html; }
			location /d/ { error_page 403 /e.html; return 403; }
			location /f/ { error_page 500 502 503 /e.html; return 503; }
			location /g/ { error_page 404 = /ok.html; }
			location /h/ { error_page 404 =301 /e.html; }
			location /p/ { proxy_pass %[4]s; }
		}`, dir, sub, port, origin.URL)
	})
	fields := []string{"Last-Modified", "Accept-Ranges", "Etag", "Content-Type", "Content-Length"}
	answer := func(port int, req string) string {
		raw := sendUntilClosed(t, port, req)
		head, body, _ := strings.Cut(raw, "\r\n\r\n")
		lines := strings.Split(head, "\r\n")
		var out []string
		for _, l := range lines[1:] {
			name, _, _ := strings.Cut(l, ":")
			for _, f := range fields {
				if strings.EqualFold(name, f) {
					// The dates and tags are the files' own, which differ.
					if f == "Etag" {
						l = f + ": (set)"
					}
					out = append(out, f+l[len(name):])
				}
			}
		}
		sort.Strings(out)
		return lines[0] + " " + strings.Join(out, "; ") + " " + body
	}
	for _, path := range []string{"/a/x", "/b/x", "/c/x", "/d/x", "/f/x", "/g/x", "/h/x", "/ok.html", "/p/404", "/p/200"} {
		for _, method := range []string{"GET", "HEAD"} {
			req := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", method, path)
			if m, n := answer(mport, req), answer(nport, req); m != n {
				t.Errorf("%s %s:\nmosaic %q\nnginx  %q", method, path, m, n)
			}
		}
	}
}
