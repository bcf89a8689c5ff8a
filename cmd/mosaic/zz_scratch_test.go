package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var _ = time.Now

type halfCloser struct{ net.Conn }

func (h halfCloser) Write(b []byte) (int, error) {
	n, err := h.Conn.Write(b)
	switch c := h.Conn.(type) {
	case *net.TCPConn:
		c.CloseWrite()
	case *tls.Conn:
		c.CloseWrite()
	}
	return n, err
}

func TestScratchRefusal(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	for _, who := range []string{"nginx", "mosaic"} {
		for _, name := range []string{"a", "b"} {
			writeFile(t, filepath.Join(dir, who, name, "e.html"), "page of "+name+"\n")
		}
	}
	tlsPort := map[string]int{"m": freePort(t), "n": freePort(t)}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		srv := func(name string) string {
			return fmt.Sprintf(`server { listen 127.0.0.1:%[3]d; listen 127.0.0.1:%[4]d ssl; server_name %[5]s;
				ssl_certificate %[6]s; ssl_certificate_key %[7]s; root %[1]s/%[2]s/%[5]s;
				add_header X-Server %[5]s always; error_page 400 /e.html; }`,
				dir, sub, port, tlsPort[who], name, cert, key)
		}
		return fmt.Sprintf(`log_format st '$server_name|$host|$http_host|$http_x_a|$status|$request_method|$scheme';
			access_log %[1]s/%[2]s/access.log st;
			large_client_header_buffers 2 1k;
			%[3]s %[4]s`, dir, sub, srv("a"), srv("b"))
	})
	big := "X-Big: " + strings.Repeat("b", 1300) + "\r\n"
	big9 := strings.Repeat("z", 900)
	requests := []string{
		"GET / HTTP/1.1\r\nHost: b\r\n\r\nGET / HTTP/1.1\r\nX-A: 1\r\nBad Name: y\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: b\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\nBad Name: y\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nX-A: 5\r\n\r\n",
		"GET / HTTP/1.1\r\n" + big + "Host: b\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: b\r\nX-A: 1\r\nX-1: " + big9 + "\r\nX-2: " + big9 + "\r\nX-3: " + big9 + "\r\n\r\n",
		"GET / HTTP/1.1\r\nX-A: 1\r\nX-1: " + big9 + "\r\nHost: b\r\nX-2: " + big9 + "\r\nX-3: " + big9 + "\r\n\r\n",
		"GET / HTTP/1.0\r\nHost: b\r\nTransfer-Encoding: chunked\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: b\r\nTransfer-Encoding: gzip\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: \r\nBad Name: y\r\n\r\n",
		"GET /../x HTTP/1.1\r\nHost: b\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: b\r\nX-A: 1\r\n",
	}
	// The status line, the server's field and its page, or the built-in
	// page's title.
	answer := func(raw string) string {
		head, body, _ := strings.Cut(raw, "\r\n\r\n")
		status, fields, _ := strings.Cut(head, "\r\n")
		server := ""
		for _, f := range strings.Split(fields, "\r\n") {
			if strings.HasPrefix(f, "X-Server:") {
				server = f
			}
		}
		if !strings.HasPrefix(body, "page of") {
			body, _, _ = strings.Cut(body, "</title>")
		}
		return status + " " + server + " " + strings.TrimSpace(body)
	}
	dials := []struct {
		name string
		dial func(port int) (net.Conn, error)
	}{
		{"plain", func(port int) (net.Conn, error) { return net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)) }},
		{"TLS without a name", func(port int) (net.Conn, error) {
			return tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port), &tls.Config{InsecureSkipVerify: true})
		}},
		{"TLS for zz", func(port int) (net.Conn, error) {
			return tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port), &tls.Config{InsecureSkipVerify: true, ServerName: "zz"})
		}},
		{"TLS for b", func(port int) (net.Conn, error) {
			return tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port), &tls.Config{InsecureSkipVerify: true, ServerName: "b"})
		}},
	}
	n := 0
	for _, d := range dials {
		ports := [2]int{mport, nport}
		if d.name != "plain" {
			ports = [2]int{tlsPort["m"], tlsPort["n"]}
		}
		for _, req := range requests {
			var got [2]string
			for i, port := range ports {
				got[i] = answer(sendUntilClosedOn(t, req, func() (net.Conn, error) {
					c, err := d.dial(port)
					if err == nil && strings.HasSuffix(req, "X-A: 1\r\n") {
						return halfCloser{c}, nil
					}
					return c, err
				}))
			}
			if got[0] != got[1] {
				t.Errorf("%s, %.50q: mosaic %q, nginx %q", d.name, req, got[0], got[1])
			}
			n++
		}
	}
	sameAccessLogs(t, dir, n)
}
