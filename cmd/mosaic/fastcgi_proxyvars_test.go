package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// $proxy_port and $proxy_host belong to the proxy module: in a FastCGI
// location NGINX has neither (its proxy context is not there), whether
// fastcgi_pass names a group or an address: the application gets empty
// parameters, add_header empty values.
// Nor has it one after an internal redirect from a proxied location
// (error_page to a FastCGI one): NGINX forgets the proxy's context with
// the location, and the port and host the proxy had are not passed on.
// (Four workers: each server keeps one connection, which holds one.)
func TestFastCGIProxyPortAsNGINX(t *testing.T) {
	nginxPath(t)
	fpmPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "p.php"), `<?php echo '[', $_SERVER['P_PORT'], '|', $_SERVER['P_HOST'], "]\n";`)
	port := freePort(t)
	closed := refusedPort(t) // the proxied location's server
	fpm := startFPM(t, filepath.Join(dir, "fpm"), "127.0.0.1:"+strconv.Itoa(port), 4)
	shipFastCGIFile(t, dir, "fastcgi.conf")
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`upstream php_%s { server %s; keepalive 2; }
			server { listen 127.0.0.1:%d; root %s/www; add_header X-Host "[$proxy_host]" always;
			location /group { include %s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/p.php;
				fastcgi_param P_PORT $proxy_port; fastcgi_param P_HOST $proxy_host; fastcgi_keep_conn on; fastcgi_pass php_%s; }
			location /addr { include %s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/p.php;
				fastcgi_param P_PORT $proxy_port; fastcgi_param P_HOST $proxy_host; fastcgi_pass %s; }
			location /proxied { proxy_pass http://127.0.0.1:%d; error_page 502 = /addr; } }`,
			who, fpm.addr, port, dir, dir, who, dir, fpm.addr, closed)
	})
	for _, path := range []string{"/group", "/addr", "/group", "/proxied"} {
		var bodies [2]string
		for i, port := range []int{mport, nport} {
			req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
			resp, body := doRequest(t, req)
			bodies[i] = resp.Header.Get("X-Host") + body
		}
		if bodies[1] != "[][|]\n" {
			t.Fatalf("%s: NGINX's answer is not the script's: %q", path, bodies[1])
		}
		if bodies[0] != bodies[1] {
			t.Errorf("%s: mosaic %q, nginx %q", path, bodies[0], bodies[1])
		}
	}
}

// TestFastCGIMaxRequestsAsNGINX: a php-fpm worker that has served its
// pm.max_requests exits, closing the connection the server keeps, just
// after its last answer; the next request on that connection, whether
// the close has come in before it (the idle check) or after its write
// (the request written by the read of its answer), goes to a new
// connection, and no client sees an error, as with NGINX. (Two workers:
// a worker serves one kept connection, each server's, until it exits.)
func TestFastCGIMaxRequestsAsNGINX(t *testing.T) {
	nginxPath(t)
	fpmPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "p.php"), `<?php echo "hello\n";`)
	fpm := startFPM(t, filepath.Join(dir, "fpm"), filepath.Join(dir, "php.sock"), 2, "pm.max_requests = 2")
	shipFastCGIFile(t, dir, "fastcgi.conf")
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`upstream php_%s { server %s; keepalive 2; }
			server { listen 127.0.0.1:%d; root %s/www; add_header X-Host "[$proxy_host]" always;
			location / { include %s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/p.php;
				fastcgi_keep_conn on; fastcgi_pass php_%s; } }`,
			who, fpm.addr, port, dir, dir, who)
	})
	for i := range 12 {
		for j, port := range []int{mport, nport} {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			req, _ := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("http://127.0.0.1:%d/r%d", port, i), nil)
			resp, body := doRequest(t, req)
			cancel()
			if resp.StatusCode != 200 || body != "hello\n" {
				t.Errorf("request %d to %s: %d %q", i, [2]string{"mosaic", "nginx"}[j], resp.StatusCode, body)
			}
		}
	}
}
