package main

import (
	"fmt"
	"testing"
)

// TestFastCGIScriptNameFollowsLocationAsNGINX: $fastcgi_script_name and
// $fastcgi_path_info take fastcgi_index and fastcgi_split_path_info from
// the location serving the request at the time they are read, after a
// rewrite's internal redirect and an error page's redirect to a named
// location too, as NGINX reads them from r->loc_conf (the module reads
// that location from the State, where $document_root reads it).
func TestFastCGIScriptNameFollowsLocationAsNGINX(t *testing.T) {
	nginxPath(t)
	root := t.TempDir()
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s;
			fastcgi_index srv.php;
			location /a/ { fastcgi_index a.php; rewrite ^/a/(.*)$ /b/$1 last; }
			location /b/ {
				fastcgi_index b.php; fastcgi_split_path_info ^(/b/.+?\.php)(/.*)$;
				return 200 "b [$fastcgi_script_name] [$fastcgi_path_info] [$document_root$fastcgi_script_name]";
			}
			location /e/ { fastcgi_index e.php; error_page 404 = @n; return 404; }
			location @n { fastcgi_index n.php; return 200 "n [$fastcgi_script_name] [$fastcgi_path_info]"; }
			location /s/ { return 200 "s [$fastcgi_script_name]"; }
		}`, port, root)
	})
	for _, path := range []string{"/a/", "/a/x/", "/a/y.php/p/q", "/b/z.php/i", "/b/d/", "/e/", "/e/f.php/g", "/s/", "/s/t.php"} {
		sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test", "")
	}
}
