package main

import (
	"fmt"
	"os"
	"testing"
)

// Nested locations are searched as NGINX searches them: whether a level's
// regexes are tried depends on the prefix matched at that level ("^~"), not
// on what its nested locations matched; an exact or regex match among them
// ends the search, a nested prefix one (even "^~") does not. Nextcloud's
// "location ^~ /.well-known { location /.well-known/acme-challenge {...} }"
// next to "location ~ ^/(?:\.|...)" depends on it. Inside a regex
// location only the nested regexes are searched: NGINX builds no tree of
// the exact and prefix locations there (ngx_http_init_static_location_trees
// skips the regex ones), so they load but never serve, and a "^~" among
// them stops nothing. Compared with Debian's NGINX when present.
func TestNestedLocationsMatchNGINX(t *testing.T) {
	site := func(listen string) string {
		return fmt.Sprintf(`access_log off;
			server { listen %s;
				location ^~ /w { location /w/a { return 200 "w-a"; } return 200 "w"; }
				location /p {
					location ^~ /p/q { return 200 "p-q"; }
					location ~ /p/r$ { return 200 "p-r"; }
					location = /p/e { return 200 "p-e"; }
					return 200 "p";
				}
				location ~ \.x$ { return 200 "re-x"; }
				location ~ ^/w/ { return 200 "re-w"; }
				location ~ /rx/ {
					location = /rx/e { return 200 "rx-e"; }
					location ^~ /rx/n { location ~ /rx/n { return 200 "rx-n-in"; } return 200 "rx-n"; }
					location /rx/p { return 200 "rx-p"; }
					location ~ /rx/(n\w*) { return 200 "rx-re-$1"; }
					return 200 "rx";
				}
			}`, listen)
	}
	cases := map[string]string{
		"/w/a/b.x": "w-a", "/w/z.x": "w", "/p/q/z.x": "re-x", "/p/q/z": "p-q",
		"/p/r": "p-r", "/p/e": "p-e", "/p/z.x": "re-x", "/p/z": "p",
		"/rx/e": "rx", "/rx/nab": "rx-re-nab", "/rx/p": "rx", "/rx/z": "rx",
	}
	check := func(name string, port int) {
		for path, want := range cases {
			if _, body := httpGet(t, fmt.Sprintf("http://127.0.0.1:%d%s", port, path)); body != want {
				t.Errorf("%s %s: %q, want %q", name, path, body, want)
			}
		}
	}
	port := freePort(t)
	startMosaic(t, t.TempDir(), "http { "+site("127.0.0.1:{port}")+" }", port)
	check("mosaic", port)
	if _, err := os.Stat("/usr/sbin/nginx"); err != nil {
		return
	}
	nport := freePort(t)
	startNGINX(t, t.TempDir(), site(fmt.Sprintf("127.0.0.1:%d", nport)), nport)
	check("nginx", nport)
}
