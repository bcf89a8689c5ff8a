package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyArgsLoggedAsNGINX: $args and $query_string emptied by "set
// $args" or by a rewrite ending in "?" are logged empty, not "-", as
// NGINX empties them by their length; a request that never had
// arguments logs "-", and so does one whose "?" has nothing after it.
// $is_args is empty for all of them. An internal redirect to a URI with
// a "?" (try_files, error_page) leaves an empty value too, as NGINX
// splits the arguments off there; error_page's URI without one leaves
// none.
func TestEmptyArgsLoggedAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"n": "nginx", "m": "mosaic"}[who]
		return fmt.Sprintf(`log_format args '$request_uri|$args|$query_string|$is_args|$uri';
		server {
			listen 127.0.0.1:%[1]d;
			access_log %[2]s/%[3]s/access.log args;
			location /set/ { set $args ""; return 204; }
			location /setv/ { set $args "a=1"; return 204; }
			location /rw/ { rewrite ^/rw/(.*) /done/$1? last; }
			location /rwkeep/ { rewrite ^/rwkeep/(.*) /done/$1 last; }
			location /rwnew/ { rewrite ^/rwnew/(.*) /done/$1?b=2? last; }
			location /tf/ { try_files $uri /done/t?$args; }
			location /ep/ { error_page 404 /done/e?$args; return 404; }
			location /epbare/ { error_page 404 /done/e; return 404; }
			location /done/ { return 204; }
			location /plain/ { return 204; }
		}`, port, dir, sub)
	})
	paths := []string{"/set/x?a=1", "/set/x", "/setv/x", "/rw/x?a=1", "/rw/x", "/rw/x?", "/rwkeep/x?a=1",
		"/rwnew/x?a=1", "/plain/x", "/plain/x?", "/plain/x?a=1", "/tf/x", "/tf/x?a=1", "/ep/x", "/epbare/x?a=1"}
	for _, p := range paths {
		for _, port := range []int{mport, nport} {
			sendUntilClosed(t, port, "GET "+p+" HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
		}
	}
	mlog := refusedLines(t, filepath.Join(dir, "mosaic/access.log"), len(paths))
	nlog := refusedLines(t, filepath.Join(dir, "nginx/access.log"), len(paths))
	if strings.Join(mlog, "\n") != strings.Join(nlog, "\n") {
		t.Errorf("access log:\nmosaic %q\n nginx %q", mlog, nlog)
	}
}
