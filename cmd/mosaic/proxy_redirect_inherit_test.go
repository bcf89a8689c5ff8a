package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestProxyRedirectInheritedAsNGINX: a level inside a location (a nested
// location, an "if" block) with no proxy_redirect line of its own takes
// the default line of the location around it, built from that
// location's proxy_pass, whatever its own proxy_pass, as NGINX's merge
// gives it; only a location whose proxy_pass has variables passes
// nothing on, and then the inner level builds its own. Found by
// internal/nginxdiff/proxypass: mosaic rewrote with the inner level's
// own default, or, for a proxy_pass with variables, not at all.
func TestProxyRedirectInheritedAsNGINX(t *testing.T) {
	nginxPath(t)
	// The origin answers with the Location and Refresh that ?to= names
	// on its own address.
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		to := "http://" + r.Host + r.URL.Query().Get("to")
		w.Header().Set("Location", to)
		w.Header().Set("Refresh", "0; url="+to)
		w.WriteHeader(302)
	}))
	t.Cleanup(origin.Close)
	o := origin.Listener.Addr().String()
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%[1]d;
			location /a/ {
				proxy_pass http://%[2]s;
				location /a/n/ { proxy_pass http://%[2]s/x/; }
				if ($arg_v) { set $p /v$uri; proxy_pass http://%[2]s$p$is_args$args; }
			}
			location /b/ {
				proxy_pass http://%[2]s/u/;
				location /b/n/ { proxy_pass http://%[2]s; }
			}
			location /c/ {
				proxy_pass http://%[2]s$request_uri;
				location /c/n/ { proxy_pass http://%[2]s/x/; }
			}
			location /d/ {
				proxy_pass http://%[2]s/u/; proxy_redirect off;
				location /d/n/ { proxy_pass http://%[2]s; }
			}
			# An explicit default is built from the level's own
			# proxy_pass and prefix; a level between passes the line on;
			# a limit_except block inherits it as a nested location; a
			# named location inherits the server's, not its caller's.
			location /e/ {
				proxy_pass http://%[2]s/u/;
				location /e/n/ { proxy_pass http://%[2]s/x/; proxy_redirect default; }
			}
			location /f/ {
				proxy_pass http://%[2]s/u/;
				location /f/m/ { location /f/m/n/ { proxy_pass http://%[2]s; } }
			}
			location /g/ {
				proxy_pass http://%[2]s/u/;
				limit_except POST { proxy_pass http://%[2]s; }
			}
			location /i/ { proxy_pass http://%[2]s/u/; error_page 418 = @n; if ($arg_n) { return 418; } }
			location @n { proxy_pass http://%[2]s; }
		}`, port, o)
	})
	for _, p := range []string{"/a/n/k?to=/x/k", "/a/n/k?to=/k", "/a/k?v=1&to=/k", "/a/k?v=1&to=/x/k",
		"/b/n/k?to=/u/k", "/b/n/k?to=/k", "/c/n/k?to=/x/k", "/c/n/k?to=/k", "/d/n/k?to=/k",
		"/e/n/k?to=/x/k", "/e/n/k?to=/u/k", "/f/m/n/k?to=/u/k", "/f/m/n/k?to=/k", "/g/k?to=/u/k", "/g/k?to=/k",
		"/i/k?n=1&to=/u/k", "/i/k?n=1&to=/k"} {
		raw := "GET " + p + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		var got [2]string
		for i, port := range []int{nport, mport} {
			resp, _ := testclient.Raw(t, "127.0.0.1:"+strconv.Itoa(port), raw)
			// A Location made a path becomes absolute, on each server's
			// own port.
			got[i] = strings.ReplaceAll(resp.Header.Get("Location")+" | "+resp.Header.Get("Refresh"),
				":"+strconv.Itoa(port), ":PORT")
		}
		if got[0] != got[1] {
			t.Errorf("%s: nginx %q, mosaic %q", p, got[0], got[1])
		}
	}
}
