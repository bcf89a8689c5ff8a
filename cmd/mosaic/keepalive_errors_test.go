package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestErrorPageKeepaliveAsNGINX: after a page of its own NGINX keeps the
// connection for the next pipelined request, but for 400, 413, 414,
// 495-497, 500 and 501 (ngx_http_special_response_handler): a POST to a
// static file (405, its small body discarded) is followed by the next
// request, a "return 500" is not. The special response turns keepalive
// off before it looks for an error_page, so a page caught for those codes
// closes too, whatever status it goes with; a "return 500 text" and an
// upstream's 500 relayed are no special response and keep it, an
// upstream's 500 that proxy_intercept_errors hands to error_page does
// not. The status lines and their "Connection: close" on one connection
// are compared, the last request asking to close.
func TestErrorPageKeepaliveAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	for _, who := range []string{"mosaic", "nginx"} {
		writeFile(t, filepath.Join(dir, who, "www", "a.txt"), "hi\n")
		writeFile(t, filepath.Join(dir, who, "www", "err.html"), "sorry\n")
	}
	oports := map[string]int{"m": freePort(t), "n": freePort(t)}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		return fmt.Sprintf(`access_log off;
		server { listen 127.0.0.1:%[3]d; return 500 "origin"; }
		server { listen 127.0.0.1:%[1]d; root %[2]s;
			location = /fail { return 500; }
			location = /todo { return 501; }
			location = /bad { return 400; }
			location = /large { return 413; }
			location = /long { return 414; }
			location = /https { return 497; }
			location = /toolarge { return 494; }
			location = /https2 { error_page 497 /err.html; return 497; }
			location = /gone { return 404; }
			location = /text { return 500 "text"; }
			location = /caught { error_page 500 /err.html; return 500; }
			location = /caught200 { error_page 501 =200 /a.txt; return 501; }
			location = /caught404 { error_page 404 /fail; return 404; }
			location = /nokey { set $memcached_key ""; memcached_pass 127.0.0.1:%[3]d; }
			location = /relayed { proxy_pass http://127.0.0.1:%[3]d; }
			location = /intercepted { proxy_intercept_errors on; error_page 500 /err.html; proxy_pass http://127.0.0.1:%[3]d; }
		}`, port, filepath.Join(dir, sub, "www"), oports[who])
	})
	last := "GET /a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
	heads := regexp.MustCompile(`(?s)HTTP/1\.1 (\d{3}).*?\r\n\r\n`)
	for _, c := range []struct{ first, want string }{
		{"POST /a.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc", "405 200 close"},
		{"DELETE /a.txt HTTP/1.1\r\nHost: x\r\n\r\n", "405 200 close"},
		{"GET /gone HTTP/1.1\r\nHost: x\r\n\r\n", "404 200 close"},
		{"GET /fail HTTP/1.1\r\nHost: x\r\n\r\n", "500 close"},
		{"GET /todo HTTP/1.1\r\nHost: x\r\n\r\n", "501 close"},
		{"GET /bad HTTP/1.1\r\nHost: x\r\n\r\n", "400 close"},
		{"GET /large HTTP/1.1\r\nHost: x\r\n\r\n", "413 close"},
		{"GET /long HTTP/1.1\r\nHost: x\r\n\r\n", "414 close"},
		{"GET /https HTTP/1.1\r\nHost: x\r\n\r\n", "400 close"},
		{"GET /toolarge HTTP/1.1\r\nHost: x\r\n\r\n", "400 200 close"},
		{"GET /https2 HTTP/1.1\r\nHost: x\r\n\r\n", "400 close"},
		{"GET /text HTTP/1.1\r\nHost: x\r\n\r\n", "500 200 close"},
		{"GET /caught HTTP/1.1\r\nHost: x\r\n\r\n", "500 close"},
		{"GET /caught200 HTTP/1.1\r\nHost: x\r\n\r\n", "200 close"},
		{"GET /caught404 HTTP/1.1\r\nHost: x\r\n\r\n", "500 close"},
		{"GET /nokey HTTP/1.1\r\nHost: x\r\n\r\n", "500 close"},
		{"GET /relayed HTTP/1.1\r\nHost: x\r\n\r\n", "500 200 close"},
		{"GET /intercepted HTTP/1.1\r\nHost: x\r\n\r\n", "500 close"},
	} {
		var got [2]string
		for i, port := range []int{mport, nport} {
			var codes []string
			for _, m := range heads.FindAllStringSubmatch(sendUntilClosed(t, port, c.first+last), -1) {
				codes = append(codes, m[1])
				if strings.Contains(m[0], "\r\nConnection: close\r\n") {
					codes = append(codes, "close")
				}
			}
			got[i] = strings.Join(codes, " ")
		}
		line := strings.SplitN(c.first, "\r\n", 2)[0]
		if got[1] != c.want {
			t.Errorf("%q then a GET: nginx answered %q, the test expects %q", line, got[1], c.want)
		}
		if got[0] != got[1] {
			t.Errorf("%q then a GET: mosaic answered %q, nginx %q", line, got[0], got[1])
		}
	}
}

// TestRefusalPostActionStatusAsNGINX: a "return 497" is a special
// response like any other, so a post_action's status does not replace the
// 400 in the access log's $status (nor after an error_page that leads to
// it); a "return 500" beside it for comparison.
func TestRefusalPostActionStatusAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		return fmt.Sprintf(`log_format st "$request_uri $status"; access_log %[2]s/access.log st;
		server { listen 127.0.0.1:%[1]d;
			location = /r497 { post_action /pa; return 497; }
			location = /r500 { post_action /pa; return 500; }
			location = /pa { return 204; }
			location = /ep { error_page 404 = /r497; return 404; }
		}`, port, filepath.Join(dir, sub))
	})
	targets := []string{"/r497", "/r500", "/ep"}
	for _, port := range []int{mport, nport} {
		for _, target := range targets {
			sendUntilClosed(t, port, "GET "+target+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		}
	}
	// Sorted: a line is written once the post action ends, which may be
	// after the client saw the connection close.
	logged := func(who string) string {
		return strings.Join(slices.Sorted(slices.Values(waitLog(t, filepath.Join(dir, who, "access.log"), len(targets)))), "|")
	}
	want := "/ep 400|/r497 400|/r500 500"
	m, n := logged("mosaic"), logged("nginx")
	if n != want {
		t.Errorf("nginx logged %q, the test expects %q", n, want)
	}
	if m != n {
		t.Errorf("mosaic logged %q, nginx %q", m, n)
	}
}
