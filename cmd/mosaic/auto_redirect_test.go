package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestAutoRedirectAsNGINX: a prefix or exact location whose name ends
// with "/" and that a gateway serves (proxy_pass, fastcgi_pass,
// memcached_pass, ...) answers its name without the slash with a 301 to
// the name, the arguments kept, as NGINX's auto_redirect does: before
// nested and regex locations are tried, unless an exact or prefix
// location has that very name. Locations served otherwise, and a
// proxy_pass inside "if", redirect nothing. The Location follows the
// location's absolute_redirect; the name is escaped. The location's
// internal and client_max_body_size are checked first, limit_except's
// access rules never (the redirect comes before the access phase).
// An internal redirect (rewrite ... last, try_files, error_page) and an
// SSI include search the locations again and are redirected the same way,
// even to an internal location. HTTP/2 redirects the same way.
func TestAutoRedirectAsNGINX(t *testing.T) {
	nginxPath(t)
	dead := strconv.Itoa(freePort(t)) // no one listens: a pass answers 502
	h2 := map[string]int{"m": freePort(t), "n": freePort(t)}
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`access_log off;
		server { listen 127.0.0.1:%[1]d; listen 127.0.0.1:%[3]d http2;
			location / { return 200 "root"; }
			location /app/ { proxy_pass http://127.0.0.1:%[2]s/; }
			location /php/ { fastcgi_pass 127.0.0.1:%[2]s; }
			location /mc/ { set $memcached_key $uri; memcached_pass 127.0.0.1:%[2]s; }
			location = /eq/ { uwsgi_pass 127.0.0.1:%[2]s; }
			location /plain/ { return 200 "plain"; }
			location ~ ^/re { return 200 "regex"; }
			location /re/ { proxy_pass http://127.0.0.1:%[2]s; }
			location = /ex { return 200 "exact"; }
			location /ex/ { proxy_pass http://127.0.0.1:%[2]s; }
			location /pf { return 200 "prefix"; }
			location /pf/ { proxy_pass http://127.0.0.1:%[2]s; }
			location ^~ /ca { return 200 "ca"; }
			location /cat/ { proxy_pass http://127.0.0.1:%[2]s; }
			location /n/ { location /n/app/ { proxy_pass http://127.0.0.1:%[2]s; } return 200 "n"; }
			location /na { location /na/ { proxy_pass http://127.0.0.1:%[2]s; } return 200 "na"; }
			location /if/ { if ($arg_x) { proxy_pass http://127.0.0.1:%[2]s; } return 200 "if"; }
			location /rel/ { absolute_redirect off; proxy_pass http://127.0.0.1:%[2]s; }
			location "/sp ace/" { proxy_pass http://127.0.0.1:%[2]s; }
			location /in/ { internal; proxy_pass http://127.0.0.1:%[2]s; }
			location /lim/ { limit_except GET { deny all; } proxy_pass http://127.0.0.1:%[2]s; }
			location /small/ { client_max_body_size 1; proxy_pass http://127.0.0.1:%[2]s; }
			location /rw/ { rewrite ^ /plain/ last; proxy_pass http://127.0.0.1:%[2]s; }
			location "/p%%/" { proxy_pass http://127.0.0.1:%[2]s; }
			location = /to-app { rewrite ^ /app last; }
			location = /to-in { rewrite ^ /in last; }
			location = /tf { try_files /nothing /app; }
			location = /ep { error_page 404 /app; return 404; }
			location = /ssi { ssi on; ssi_types *; return 200 'a<!--# include virtual="/app?q" -->b'; }
		}`, port, dead, h2[who])
	})
	for _, c := range []struct{ method, target, want string }{
		{"GET", "/app", "301"},
		{"GET", "/app?a=1&b=%20c", "301"},
		{"HEAD", "/app", "301"},
		{"GET", "/app/", "502"},
		{"GET", "/apps", "root"},
		{"GET", "/php", "301"},
		{"GET", "/mc?k", "301"},
		{"GET", "/eq", "301"},
		{"GET", "/plain", "root"},
		{"GET", "/re", "301"},
		{"GET", "/rex", "regex"},
		{"GET", "/ex", "exact"},
		{"GET", "/pf", "prefix"},
		{"GET", "/cat", "301"},
		{"GET", "/n/app", "301"},
		{"GET", "/na", "301"}, // the nested level has no "/na" of its own
		{"GET", "/nax", "na"},
		{"GET", "/if?x=1", "root"},
		{"GET", "/rel?q", "301"},
		{"GET", "/sp%20ace", "301"},
		{"GET", "/in", "404"},
		{"GET", "/rw", "301"},
		{"POST", "/lim", "301"},
		{"POST", "/small", "413"},
		{"GET", "/p%25", "301"},
		{"GET", "/to-app?x=1", "301"},
		{"GET", "/to-in", "301"},
		{"GET", "/tf?y", "301"},
		{"HEAD", "/ep?z", "301"},
		{"GET", "/ssi", "<301 page>"},
	} {
		req := c.method + " " + c.target + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		if c.method == "POST" {
			req = c.method + " " + c.target + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello"
		}
		m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
		n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
		nb = strings.ReplaceAll(nb, "nginx/1.22.1", "mosaic")
		mloc := strings.Replace(m.Header.Get("Location"), strconv.Itoa(mport), "PORT", 1)
		nloc := strings.Replace(n.Header.Get("Location"), strconv.Itoa(nport), "PORT", 1)
		got := strconv.Itoa(n.StatusCode)
		if n.StatusCode == 200 {
			got = nb
			if strings.HasPrefix(nb, "a<html>\r\n<head><title>301 Moved Permanently</title>") {
				got = "<301 page>" // the SSI include's answer in the page
			}
		}
		if got != c.want {
			t.Errorf("%s %s: nginx answers %s, the test expects %s", c.method, c.target, got, c.want)
		}
		if m.StatusCode != n.StatusCode || mloc != nloc || mb != nb {
			t.Errorf("%s %s: mosaic %d %q %q, nginx %d %q %q", c.method, c.target, m.StatusCode, mloc, mb, n.StatusCode, nloc, nb)
		}
	}
	for _, path := range []string{"/app?a=1", "/n/app", "/ex"} {
		var got [2]string
		for i, who := range []string{"m", "n"} {
			c := dialH2C(t, h2[who])
			c.headers(t, 1, true, h2cGet(path)...)
			// The page's length differs by the server's name in it.
			fields := slices.DeleteFunc(c.responseFields(1), func(f string) bool { return strings.HasPrefix(f, "content-length: ") })
			got[i] = strings.Replace(strings.Join(fields, "\n"), strconv.Itoa(h2[who]), "PORT", 1)
		}
		if !strings.Contains(got[1], "location: ") && path != "/ex" {
			t.Errorf("HTTP/2 %s: nginx sent no Location:\n%s", path, got[1])
		}
		if got[0] != got[1] {
			t.Errorf("HTTP/2 %s: mosaic\n%s\nnginx\n%s", path, got[0], got[1])
		}
	}
}
