package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestFastCGIScriptNameFollowsLocationAsNGINX: $fastcgi_script_name and
// $fastcgi_path_info take fastcgi_index and fastcgi_split_path_info from
// the location serving the request at the time they are read, after a
// rewrite's internal redirect and an error page's redirect to a named
// location too, as NGINX reads them from r->loc_conf (the module reads
// that location from the State, where $document_root reads it). The
// access log reads them with the location that served the request last.
func TestFastCGIScriptNameFollowsLocationAsNGINX(t *testing.T) {
	nginxPath(t)
	root, dir := t.TempDir(), t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`log_format sn '$uri [$fastcgi_script_name] [$fastcgi_path_info]';
		server { listen 127.0.0.1:%d; root %s; access_log %s/%s/access.log sn;
			fastcgi_index srv.php;
			location /a/ { fastcgi_index a.php; rewrite ^/a/(.*)$ /b/$1 last; }
			location /b/ {
				fastcgi_index b.php; fastcgi_split_path_info ^(/b/.+?\.php)(/.*)$;
				return 200 "b [$fastcgi_script_name] [$fastcgi_path_info] [$document_root$fastcgi_script_name]";
			}
			location /e/ { fastcgi_index e.php; error_page 404 = @n; return 404; }
			location @n { fastcgi_index n.php; return 200 "n [$fastcgi_script_name] [$fastcgi_path_info]"; }
			location /s/ { return 200 "s [$fastcgi_script_name]"; }
		}`, port, root, dir, map[string]string{"n": "nginx", "m": "mosaic"}[who])
	})
	paths := []string{"/a/", "/a/x/", "/a/y.php/p/q", "/b/z.php/i", "/b/d/", "/e/", "/e/f.php/g", "/s/", "/s/t.php"}
	for _, path := range paths {
		sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test", "")
	}
	mlog := refusedLines(t, filepath.Join(dir, "mosaic/access.log"), len(paths))
	nlog := refusedLines(t, filepath.Join(dir, "nginx/access.log"), len(paths))
	if strings.Join(mlog, "\n") != strings.Join(nlog, "\n") {
		t.Errorf("access log:\nmosaic %q\n nginx %q", mlog, nlog)
	}
}
