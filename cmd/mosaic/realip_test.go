package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// realipHTTP is an http block of the realip module, run by mosaic and by
// NGINX alike: a server that trusts loopback and 10/8 for
// X-Forwarded-For, recursively, at the server level (so its "if" sees the
// new address), and a server whose locations each choose a field.
func realipHTTP(dir string, port1, port2 int) string {
	return fmt.Sprintf(`
		log_format ip "$remote_addr $realip_remote_addr $uri";
		access_log %[1]s/access.log ip;
		server {
			listen 127.0.0.1:%[2]d;
			set_real_ip_from 127.0.0.1;
			set_real_ip_from 10.0.0.0/8;
			real_ip_header X-Forwarded-For;
			real_ip_recursive on;
			if ($remote_addr = 9.9.9.9) { return 403 "refused by the server's if"; }
			location / { return 200 "$remote_addr|$remote_port|$realip_remote_addr"; }
			location /norec { real_ip_recursive off; return 200 "$remote_addr|$remote_port|$realip_remote_addr"; }
		}
		server {
			listen 127.0.0.1:%[3]d;
			root %[1]s/www;
			add_header X-IP "$remote_addr|$remote_port|$realip_remote_addr";
			location /xreal { set_real_ip_from 127.0.0.1; }
			location /cf    { set_real_ip_from 127.0.0.0/8; real_ip_header CF-Connecting-IP; }
			location /untrusted { set_real_ip_from 10.0.0.0/8; }
			location /v6    { set_real_ip_from 127.0.0.1; set_real_ip_from ::1; real_ip_header X-Forwarded-For; }
			location /ret   { set_real_ip_from 127.0.0.1; return 200 "$remote_addr|$remote_port|$realip_remote_addr"; }
			location /none  { }
			location /sub   { set_real_ip_from 127.0.0.1; auth_request /subauth;
				auth_request_set $conn "$remote_addr|$realip_remote_port|$realip_remote_addr";
				add_header X-IP $conn; }
			location = /subauth { return 204; }
		}`, dir, port1, port2)
}

// realipCases: which server (0 or 1), the request line and fields, and
// the status and body expected.
var realipCases = []struct {
	srv    int
	req    string
	status int
	body   string
}{
	{0, "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 1.2.3.4", 200, "1.2.3.4||127.0.0.1"},
	{0, "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 1.2.3.4, 10.0.0.1", 200, "1.2.3.4||127.0.0.1"},
	{0, "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 8.8.8.8,1.2.3.4:8080 ,  10.1.2.3:99,", 200, "1.2.3.4|8080|127.0.0.1"},
	{0, "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 5.6.7.8, 10.0.0.2\r\nX-Forwarded-For: 10.0.0.3", 200, "5.6.7.8||127.0.0.1"},
	{0, "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 10.0.0.2\r\nX-Forwarded-For: 10.0.0.3", 200, "10.0.0.2||127.0.0.1"},
	{0, "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: junk, 10.0.0.3", 200, "10.0.0.3||127.0.0.1"},
	{0, "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: junk", 200, "127.0.0.1|PORT|127.0.0.1"},
	{0, "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: [2001:db8::1]:443", 200, "2001:db8::1|443|127.0.0.1"},
	{0, "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 010.0.0.1", 200, "10.0.0.1||127.0.0.1"},
	// NGINX's IPv4 parser takes an empty number for 0 and refuses
	// 255.255.255.255, its error value.
	{0, "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 1.2.3.", 200, "1.2.3.0||127.0.0.1"},
	{0, "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 5.6.7.8, 10..0.1:80", 200, "5.6.7.8||127.0.0.1"},
	{0, "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 255.255.255.255", 200, "127.0.0.1|PORT|127.0.0.1"},
	{0, "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 5.6.7.8, 255.255.255.255", 200, "127.0.0.1|PORT|127.0.0.1"},
	{0, "GET / HTTP/1.1\r\nHost: a\r\nX-Real-IP: 1.2.3.4", 200, "127.0.0.1|PORT|127.0.0.1"},
	{0, "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 9.9.9.9", 403, "refused by the server's if"},
	// The server level replaced the address already: the location's
	// real_ip_recursive off does not run again.
	{0, "GET /norec HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 1.2.3.4, 10.0.0.1", 200, "1.2.3.4||127.0.0.1"},
	{1, "GET /xreal HTTP/1.1\r\nHost: a\r\nX-Real-IP: 1.2.3.4\r\nX-Real-IP: 5.6.7.8", 200, "1.2.3.4||127.0.0.1"},
	{1, "GET /xreal HTTP/1.1\r\nHost: a\r\nX-Real-IP: 1.2.3.4, 5.6.7.8", 200, "5.6.7.8||127.0.0.1"},
	{1, "GET /xreal HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 1.2.3.4", 200, "127.0.0.1|PORT|127.0.0.1"},
	{1, "GET /cf HTTP/1.1\r\nHost: a\r\nCF-Connecting-IP: 2001:db8::7", 200, "2001:db8::7||127.0.0.1"},
	{1, "GET /untrusted HTTP/1.1\r\nHost: a\r\nX-Real-IP: 1.2.3.4", 200, "127.0.0.1|PORT|127.0.0.1"},
	{1, "GET /v6 HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: ::ffff:1.2.3.4", 200, "::ffff:1.2.3.4||127.0.0.1"},
	// A return answers in the rewrite phase, before the location's
	// realip step runs, in NGINX as in mosaic.
	{1, "GET /ret HTTP/1.1\r\nHost: a\r\nX-Real-IP: 1.2.3.4", 200, "127.0.0.1|PORT|127.0.0.1"},
	{1, "GET /none HTTP/1.1\r\nHost: a\r\nX-Real-IP: 1.2.3.4", 200, "127.0.0.1|PORT|127.0.0.1"},
	// A subrequest (auth_request's, whose variables auth_request_set
	// reads) sees the client found and the connection's own address.
	{1, "GET /sub HTTP/1.1\r\nHost: a\r\nX-Real-IP: 1.2.3.4", 200, "1.2.3.4|PORT|127.0.0.1"},
}

func checkRealip(t *testing.T, who string, ports [2]int) {
	t.Helper()
	for _, c := range realipCases {
		addr := fmt.Sprintf("127.0.0.1:%d", ports[c.srv])
		resp, body := testclient.Raw(t, addr, c.req+"\r\nConnection: close\r\n\r\n")
		line, _, _ := strings.Cut(c.req, "\r\n")
		want := c.body
		if ip := resp.Header.Get("X-IP"); ip != "" {
			body = ip // a file, with the variables in a header
		}
		if strings.Contains(want, "PORT") {
			// The client's own port: any number.
			parts := strings.Split(body, "|")
			if len(parts) == 3 && parts[1] != "" && parts[1] != "0" {
				body = strings.Replace(body, "|"+parts[1]+"|", "|PORT|", 1)
			}
		}
		if resp.StatusCode != c.status || body != want {
			t.Errorf("%s: %s %q: %d %q, want %d %q", who, line, c.req, resp.StatusCode, body, c.status, want)
		}
	}
}

func realipFiles(t *testing.T) (string, [2]int) {
	dir := t.TempDir()
	for _, f := range []string{"xreal", "cf", "untrusted", "v6", "none", "sub"} {
		writeFile(t, filepath.Join(dir, "www", f), "file")
	}
	return dir, [2]int{freePort(t), freePort(t)}
}

func TestRealipMatchNGINX(t *testing.T) {
	nginxPath(t)
	dir, ports := realipFiles(t)
	startNGINX(t, dir, realipHTTP(dir, ports[0], ports[1]), ports[0])
	checkRealip(t, "nginx", ports)
}

func TestRealipThroughBinary(t *testing.T) {
	dir, ports := realipFiles(t)
	startMosaic(t, dir, "http {"+realipHTTP(dir, ports[0], ports[1])+"}", ports[0])
	checkRealip(t, "mosaic", ports)
	// The access log, outside the location's steps, logs the address
	// that a location's settings found.
	testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", ports[1]), "GET /cf HTTP/1.1\r\nHost: a\r\nCF-Connecting-IP: 4.3.2.1\r\nConnection: close\r\n\r\n")
	var log []byte
	for range 100 {
		log, _ = os.ReadFile(filepath.Join(dir, "access.log"))
		if strings.Contains(string(log), "4.3.2.1") {
			break
		}
	}
	if !strings.Contains(string(log), "4.3.2.1 127.0.0.1 /cf\n") {
		t.Errorf("access log:\n%s", log)
	}
}
