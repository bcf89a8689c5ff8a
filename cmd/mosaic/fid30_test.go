package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/scgi"
	"github.com/mosaic-edge/mosaic/uwsgi"
)

// TestGatewayFieldSpellingAsNGINX: NGINX relays a FastCGI, uwsgi or SCGI
// application's field names as the application wrote them (php-fpm's
// header('x-thing: 1'), "X_A", "X-UPPER"), each line of a name written
// in two spellings under its own, and a cache hit as the answer it
// stored; Content-Type and Content-Length under its own names. mosaic's
// gateways made every name canonical ("X-Thing", "X_a", "X-Upper"),
// on a miss and on a hit (fid30). Compared as sameSpelling compares.
func TestGatewayFieldSpellingAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "s.php"), `<?php
header('x-thing: 1'); header('X_A: 2'); header('X-UPPER: 3'); header('X-Dup: 1'); header('x-dup: 2', false);
header('content-TYPE: text/plain'); header('Cache-Control: max-age=60'); echo "ok";`)
	fpm := startFPM(t, filepath.Join(dir, "fpm"), "127.0.0.1:"+strconv.Itoa(freePort(t)), 2)
	const fields = "x-thing: 1\r\nX_A: 2\r\nX-UPPER: 3\r\nX-Dup: 1\r\nx-dup: 2\r\nCache-Control: max-age=60\r\n" +
		"content-type: text/plain\r\nCONTENT-length: 2\r\n\r\nok"
	uw := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		c.SetDeadline(time.Now().Add(20 * time.Second))
		if _, err := uwsgi.ReadRequest(br); err == nil {
			io.WriteString(c, "HTTP/1.1 200 OK\r\n"+fields)
		}
	}).Addr()
	sc := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		c.SetDeadline(time.Now().Add(20 * time.Second))
		if _, err := scgi.ReadRequest(br, 0); err == nil {
			io.WriteString(c, "Status: 200 OK\r\n"+fields)
		}
	}).Addr()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`fastcgi_cache_path %[1]s/%[2]s-f keys_zone=f:1m;
			uwsgi_cache_path %[1]s/%[2]s-u keys_zone=u:1m;
			scgi_cache_path %[1]s/%[2]s-s keys_zone=s:1m;
			server { listen 127.0.0.1:%[3]d; access_log off;
			location /f/ { include /etc/nginx/fastcgi_params; fastcgi_param SCRIPT_FILENAME %[1]s/www/s.php;
				fastcgi_pass %[4]s; }
			location /fc/ { include /etc/nginx/fastcgi_params; fastcgi_param SCRIPT_FILENAME %[1]s/www/s.php;
				fastcgi_pass %[4]s; fastcgi_cache f; fastcgi_cache_key $uri; }
			location /u/ { include /etc/nginx/uwsgi_params; uwsgi_pass %[5]s; }
			location /uc/ { include /etc/nginx/uwsgi_params; uwsgi_pass %[5]s; uwsgi_cache u; uwsgi_cache_key $uri; }
			location /s/ { include /etc/nginx/scgi_params; scgi_pass %[6]s; }
			location /sc/ { include /etc/nginx/scgi_params; scgi_pass %[6]s; scgi_cache s; scgi_cache_key $uri; } }`,
			dir, who, port, fpm.addr, uw, sc)
	})
	// Each cached path twice: the miss, then the hit.
	sameSpelling(t, mport, nport, "/f/a", "/fc/a", "/fc/a", "/u/a", "/uc/a", "/uc/a", "/s/a", "/sc/a", "/sc/a")
}
