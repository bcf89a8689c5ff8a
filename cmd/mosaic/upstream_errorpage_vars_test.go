package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// The $upstream_* values and $proxy_host that add_header ... always shows
// on the proxy's own error page and after error_page moves a request from
// one location to another, against NGINX: the 502 page of a refused
// connection shows its try's times, error_page between two proxied
// locations lists the first's tries, then " : " and the second's (a
// refused one's timings too: they were missing), and a
// static location reached from a proxied one has no $proxy_host (NGINX's
// is the location's, empty where it has no proxy_pass). Times are
// compared by their shape (digits as N), addresses by the port's place.
func TestUpstreamVarsAcrossErrorPageAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			w.WriteHeader(http.StatusNotFound)
		}
		fmt.Fprintf(w, "origin %s\n", r.URL.Path)
	}))
	t.Cleanup(origin.Close)
	dead := fmt.Sprintf("127.0.0.1:%d", refusedPort(t))
	const show = `"rt=$upstream_response_time ct=$upstream_connect_time ht=$upstream_header_time st=$upstream_status ph=$proxy_host"`
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`log_format up %[4]s;
			access_log %[5]s/%[6]s.log up;
			server { listen 127.0.0.1:%[1]d;
			add_header X-Up %[4]s always;
			location /dead { proxy_pass http://%[3]s; }
			location /deadthen { error_page 502 = /second; proxy_pass http://%[3]s; }
			location /missing { proxy_intercept_errors on; error_page 404 = /second; proxy_pass http://%[2]s; }
			location /second { proxy_pass http://%[2]s; }
			location /tostatic { proxy_intercept_errors on; error_page 404 = /static; proxy_pass http://%[2]s/missing; }
			location /static { return 200 "static\n"; }
		}`, port, origin.Listener.Addr(), dead, show, dir, who)
	})
	digits := regexp.MustCompile(`[0-9]+`)
	paths := []string{"/dead", "/deadthen", "/missing", "/tostatic"}
	for _, p := range paths {
		req := "GET " + p + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
		m, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
		n, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
		mv := digits.ReplaceAllString(m.Header.Get("X-Up"), "N")
		nv := digits.ReplaceAllString(n.Header.Get("X-Up"), "N")
		if m.StatusCode != n.StatusCode || mv != nv {
			t.Errorf("%s: mosaic %d %q, nginx %d %q", p, m.StatusCode, mv, n.StatusCode, nv)
		}
	}
	// The access log, once the tries have ended.
	ml, nl := waitLog(t, filepath.Join(dir, "m.log"), len(paths)), waitLog(t, filepath.Join(dir, "n.log"), len(paths))
	for i, p := range paths {
		if mv, nv := digits.ReplaceAllString(ml[i], "N"), digits.ReplaceAllString(nl[i], "N"); mv != nv {
			t.Errorf("%s logged: mosaic %q, nginx %q", p, mv, nv)
		}
	}
}
