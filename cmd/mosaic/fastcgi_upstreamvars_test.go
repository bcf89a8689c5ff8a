package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Every $upstream_* value of FastCGI requests, in the access log after
// the response, as NGINX's: one server, two of a group (the first
// refused: ", "), and an error_page from a proxied location whose server
// refused to a FastCGI one (NGINX keeps one list of tries per request:
// " : " between the locations), or to a static file (the proxy's tries
// stay). The timings' and the bytes sent's digits are not compared: the
// clock's and each server's own parameters'. Nor is
// $upstream_response_length: NGINX counts the FastCGI records that
// follow the answer's header (20 for PHP's 4-byte body here), mosaic the
// body (fastcgi/README.md).
func TestFastCGIUpstreamVarsLoggedAsNGINX(t *testing.T) {
	nginxPath(t)
	fpmPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "s.txt"), "static\n")
	writeFile(t, filepath.Join(dir, "www", "p.php"), `<?php echo "php\n";`)
	port := freePort(t)
	closed := refusedPort(t) // a server that refuses
	fpm := startFPM(t, filepath.Join(dir, "fpm"), "127.0.0.1:"+strconv.Itoa(port), 4)
	shipFastCGIFile(t, dir, "fastcgi.conf")
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`log_format up "$uri|$status|$upstream_addr|$upstream_status|$upstream_bytes_received|$upstream_cache_status|$upstream_response_time|$upstream_connect_time|$upstream_header_time|$upstream_bytes_sent";
			upstream two_%[1]s { server 127.0.0.1:%[6]d; server %[5]s; }
			server { listen 127.0.0.1:%[2]d; root %[3]s/www; access_log %[3]s/%[4]s/access.log up;
			location /php { include %[3]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/p.php; fastcgi_pass %[5]s; }
			location /two { include %[3]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/p.php; fastcgi_pass two_%[1]s; }
			location /proxied { proxy_pass http://127.0.0.1:%[6]d; error_page 502 = /php; }
			location /tostatic { proxy_pass http://127.0.0.1:%[6]d; error_page 502 = /s.txt; } }`,
			who, port, dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], fpm.addr, closed)
	})
	paths := []string{"/php", "/two", "/proxied", "/tostatic"}
	for _, path := range paths {
		var bodies [2]string
		for i, port := range []int{mport, nport} {
			req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
			_, bodies[i] = doRequest(t, req)
		}
		if want := map[bool]string{false: "php\n", true: "static\n"}[path == "/tostatic"]; bodies[1] != want {
			t.Fatalf("%s: NGINX's answer is not the script's: %q", path, bodies[1])
		}
		if bodies[0] != bodies[1] {
			t.Errorf("%s: mosaic %q, nginx %q", path, bodies[0], bodies[1])
		}
	}
	digits := regexp.MustCompile(`[0-9]`)
	read := func(who string) []string {
		lines := refusedLines(t, filepath.Join(dir, who, "access.log"), len(paths))
		for i, l := range lines {
			f := strings.Split(l, "|")
			if len(f) != 10 {
				t.Fatalf("%s: %q has %d fields", who, l, len(f))
			}
			for j := 6; j < len(f); j++ {
				f[j] = digits.ReplaceAllString(f[j], "N")
			}
			lines[i] = strings.Join(f, "|")
		}
		return lines
	}
	m, n := read("mosaic"), read("nginx")
	if len(n) != len(paths) || !strings.Contains(n[2], " : ") {
		t.Fatalf("NGINX's log is not as expected: %q", n)
	}
	for i := range n {
		if i >= len(m) || m[i] != n[i] {
			t.Errorf("mosaic %q\nnginx  %q", m, n)
			break
		}
	}
}
