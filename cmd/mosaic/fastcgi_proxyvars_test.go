package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
)

// $proxy_port belongs to the proxy module: in a FastCGI location NGINX
// has none (its proxy context is not there), whether fastcgi_pass names
// a group or an address, and the application gets an empty parameter.
// Nor has it one after an internal redirect from a proxied location
// (error_page to a FastCGI one): NGINX forgets the proxy's context with
// the location, and the port the proxy had is not passed on.
// (Four workers: each server keeps one connection, which holds one.)
func TestFastCGIProxyPortAsNGINX(t *testing.T) {
	nginxPath(t)
	fpmPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "p.php"), `<?php echo '[', $_SERVER['P_PORT'], "]\n";`)
	port := freePort(t)
	closed := freePort(t) // the proxied location's server: none listens
	fpm := startFPM(t, filepath.Join(dir, "fpm"), "127.0.0.1:"+strconv.Itoa(port), 4)
	shipFastCGIFile(t, dir, "fastcgi.conf")
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`upstream php_%s { server %s; keepalive 2; }
			server { listen 127.0.0.1:%d; root %s/www;
			location /group { include %s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/p.php;
				fastcgi_param P_PORT $proxy_port; fastcgi_keep_conn on; fastcgi_pass php_%s; }
			location /addr { include %s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/p.php;
				fastcgi_param P_PORT $proxy_port; fastcgi_pass %s; }
			location /proxied { proxy_pass http://127.0.0.1:%d; error_page 502 = /addr; } }`,
			who, fpm.addr, port, dir, dir, who, dir, fpm.addr, closed)
	})
	for _, path := range []string{"/group", "/addr", "/group", "/proxied"} {
		var bodies [2]string
		for i, port := range []int{mport, nport} {
			req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
			_, bodies[i] = doRequest(t, req)
		}
		if bodies[1] != "[]\n" {
			t.Fatalf("%s: NGINX's answer is not the script's: %q", path, bodies[1])
		}
		if bodies[0] != bodies[1] {
			t.Errorf("%s: mosaic %q, nginx %q", path, bodies[0], bodies[1])
		}
	}
}
