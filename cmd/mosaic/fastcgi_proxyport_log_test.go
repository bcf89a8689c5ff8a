package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
)

// A $proxy_port that a FastCGI request blanked (a proxied location left
// it before error_page) reads as one never set, as NGINX has none there:
// "-" in the access log, and no parameter with if_not_empty (the script
// sees none, not an empty one). Nor has a static location that an
// error_page of a proxied one goes to a $proxy_port.
func TestFastCGIBlankedProxyPortAsUnset(t *testing.T) {
	nginxPath(t)
	fpmPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "s.txt"), "static\n")
	writeFile(t, filepath.Join(dir, "www", "p.php"), `<?php echo '[', isset($_SERVER['P_PORT']) ? 'set:'.$_SERVER['P_PORT'] : 'unset', "]\n";`)
	port := freePort(t)
	closed := refusedPort(t)
	fpm := startFPM(t, filepath.Join(dir, "fpm"), "127.0.0.1:"+strconv.Itoa(port), 4)
	shipFastCGIFile(t, dir, "fastcgi.conf")
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`log_format l "$uri [$proxy_port] $status";
			server { listen 127.0.0.1:%d; root %s/www; access_log %s/%s/access.log l;
			location /addr { include %s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/p.php;
				fastcgi_param P_PORT $proxy_port if_not_empty; fastcgi_pass %s; }
			location /proxied { proxy_pass http://127.0.0.1:%d; error_page 502 = /addr; }
			location /tostatic { proxy_pass http://127.0.0.1:%[7]d; error_page 502 = /s.txt; } }`,
			port, dir, dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], dir, fpm.addr, closed)
	})
	for _, path := range []string{"/addr", "/proxied", "/tostatic"} {
		var bodies [2]string
		for i, port := range []int{mport, nport} {
			req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
			_, bodies[i] = doRequest(t, req)
		}
		if want := map[bool]string{false: "[unset]\n", true: "static\n"}[path == "/tostatic"]; bodies[1] != want {
			t.Fatalf("%s: NGINX's answer is not the script's: %q", path, bodies[1])
		}
		if bodies[0] != bodies[1] {
			t.Errorf("%s: mosaic %q, nginx %q", path, bodies[0], bodies[1])
		}
	}
	sameAccessLogs(t, dir, 3)
}
