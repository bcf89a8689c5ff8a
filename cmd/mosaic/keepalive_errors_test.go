package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestErrorPageKeepaliveAsNGINX: after a page of its own NGINX keeps the
// connection for the next pipelined request, but for 400, 413, 414,
// 495-497, 500 and 501 (ngx_http_special_response_handler): a POST to a
// static file (405, its small body discarded) is followed by the next
// request, a "return 500" is not. The status lines on one connection
// are compared, the last request asking to close.
func TestErrorPageKeepaliveAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	for _, who := range []string{"mosaic", "nginx"} {
		writeFile(t, filepath.Join(dir, who, "www", "a.txt"), "hi\n")
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s;
			location = /fail { return 500; }
			location = /todo { return 501; }
			location = /gone { return 404; } }`, port, filepath.Join(dir, sub, "www"))
	})
	last := "GET /a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
	statuses := regexp.MustCompile(`(?m)^HTTP/1\.1 (\d{3})`)
	for _, first := range []string{
		"POST /a.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc",
		"DELETE /a.txt HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /gone HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /fail HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /todo HTTP/1.1\r\nHost: x\r\n\r\n",
	} {
		var got [2]string
		for i, port := range []int{mport, nport} {
			var codes []string
			for _, m := range statuses.FindAllStringSubmatch(sendUntilClosed(t, port, first+last), -1) {
				codes = append(codes, m[1])
			}
			got[i] = strings.Join(codes, " ")
		}
		if got[0] != got[1] {
			t.Errorf("%q then a GET: mosaic answered %q, nginx %q", strings.SplitN(first, "\r\n", 2)[0], got[0], got[1])
		}
	}
}
