package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// proxyProtoHTTP: two plain listeners and a TLS one that expect a PROXY
// protocol header; the first and the TLS one take the client's address
// from it (real_ip_header proxy_protocol), the second only shows it. A
// plain HTTP request on the TLS one is answered (497) before realip runs.
func proxyProtoHTTP(dir, cert, key string, ports [3]int) string {
	const show = `"$remote_addr|$remote_port|$realip_remote_addr|$proxy_protocol_addr|$proxy_protocol_port|$proxy_protocol_server_addr|$proxy_protocol_server_port"`
	return fmt.Sprintf(`
		access_log %[1]s/access.log;
		client_header_timeout 1s;
		server {
			listen 127.0.0.1:%[4]d proxy_protocol;
			listen 127.0.0.1:%[6]d ssl proxy_protocol;
			ssl_certificate %[2]s; ssl_certificate_key %[3]s;
			set_real_ip_from 127.0.0.1;
			real_ip_header proxy_protocol;
			error_page 497 =200 /;
			location / { return 200 %[7]s; }
		}
		server {
			listen 127.0.0.1:%[5]d proxy_protocol;
			location / { return 200 %[7]s; }
		}`, dir, cert, key, ports[0], ports[1], ports[2], show)
}

func v2Header(src, dst [4]byte, sport, dport uint16) string {
	b := []byte("\r\n\r\n\x00\r\nQUIT\n\x21\x11\x00\x0c")
	b = append(b, src[:]...)
	b = append(b, dst[:]...)
	b = append(b, byte(sport>>8), byte(sport), byte(dport>>8), byte(dport))
	return string(b)
}

var proxyProtoCases = []struct {
	srv    int // 0, 1: plain listeners; 2: TLS; 3: TLS, spoken to in plain HTTP
	header string
	want   string // "" : the connection is closed without an answer
}{
	{0, "PROXY TCP4 1.2.3.4 5.6.7.8 1111 80\r\n", "1.2.3.4|1111|127.0.0.1|1.2.3.4|1111|5.6.7.8|80"},
	{0, "PROXY TCP6 2001:db8::1 ::1 2222 443\r\n", "2001:db8::1|2222|127.0.0.1|2001:db8::1|2222|::1|443"},
	{0, v2Header([4]byte{9, 8, 7, 6}, [4]byte{10, 0, 0, 1}, 3333, 8080), "9.8.7.6|3333|127.0.0.1|9.8.7.6|3333|10.0.0.1|8080"},
	{0, "PROXY UNKNOWN\r\n", "127.0.0.1|PORT|127.0.0.1||||"},
	{0, "", ""},
	{0, "PROXY TCP4 1.2.3.4 5.6.7.8 99999 80\r\n", ""},
	{1, "PROXY TCP4 1.2.3.4 5.6.7.8 1111 80\r\n", "127.0.0.1|PORT|127.0.0.1|1.2.3.4|1111|5.6.7.8|80"},
	{2, "PROXY TCP4 4.4.4.4 5.6.7.8 4444 443\r\n", "4.4.4.4|4444|127.0.0.1|4.4.4.4|4444|5.6.7.8|443"},
	{2, v2Header([4]byte{9, 8, 7, 6}, [4]byte{10, 0, 0, 1}, 3333, 443), "9.8.7.6|3333|127.0.0.1|9.8.7.6|3333|10.0.0.1|443"},
	{3, "PROXY TCP4 4.4.4.4 5.6.7.8 4444 443\r\n", "127.0.0.1|PORT|127.0.0.1|4.4.4.4|4444|5.6.7.8|443"},
}

// proxyProtoExchange sends header, then a request (over TLS for the TLS
// listener), and returns the body of the answer, or "" when the server
// closed the connection without one.
func proxyProtoExchange(t *testing.T, port int, useTLS bool, header string) string {
	t.Helper()
	c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, header); err != nil {
		t.Fatal(err)
	}
	var conn net.Conn = c
	if useTLS {
		tc := tls.Client(c, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
		if err := tc.Handshake(); err != nil {
			return ""
		}
		conn = tc
	}
	io.WriteString(conn, "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
	resp, _ := io.ReadAll(conn)
	_, body, ok := strings.Cut(string(resp), "\r\n\r\n")
	if !ok {
		return ""
	}
	return body
}

func checkProxyProto(t *testing.T, who string, ports [3]int) {
	t.Helper()
	for _, c := range proxyProtoCases {
		got := proxyProtoExchange(t, ports[min(c.srv, 2)], c.srv == 2, c.header)
		if parts := strings.Split(got, "|"); len(parts) == 7 && strings.Contains(c.want, "PORT") {
			got = strings.Replace(got, "|"+parts[1]+"|", "|PORT|", 1)
		}
		if got != c.want {
			t.Errorf("%s: listener %d, header %q: %q, want %q", who, c.srv, c.header, got, c.want)
		}
	}
}

func proxyProtoSite(t *testing.T) (dir, conf string, ports [3]int) {
	dir = t.TempDir()
	cert, key := selfSigned(t, dir)
	ports = [3]int{freePort(t), freePort(t), freePort(t)}
	return dir, proxyProtoHTTP(dir, cert, key, ports), ports
}

func TestProxyProtocolMatchesNGINX(t *testing.T) {
	nginxPath(t)
	dir, conf, ports := proxyProtoSite(t)
	ndir := filepath.Join(dir, "nginx")
	if err := os.MkdirAll(ndir, 0o755); err != nil {
		t.Fatal(err)
	}
	startNGINX(t, ndir, conf, ports[0])
	checkProxyProto(t, "nginx", ports)
}

func TestProxyProtocolThroughBinary(t *testing.T) {
	dir, conf, ports := proxyProtoSite(t)
	p := startMosaic(t, dir, "http {"+conf+"}", ports[0])
	checkProxyProto(t, "mosaic", ports)
	// A header that stalls is cut off by client_header_timeout; one
	// longer than 107 bytes without its end is refused at once.
	for header, within := range map[string]time.Duration{
		"PROXY TCP4 ":                            3 * time.Second,
		"PROXY TCP4 " + strings.Repeat("1", 120): 500 * time.Millisecond,
	} {
		c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", ports[0]))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_ = c.SetDeadline(start.Add(10 * time.Second))
		io.WriteString(c, header)
		n, _ := c.Read(make([]byte, 1))
		c.Close()
		if d := time.Since(start); n != 0 || d > within {
			t.Errorf("header %q: connection closed after %v (%d bytes), want within %v", header, d, n, within)
		}
	}
	if !strings.Contains(p.out.String(), "broken header") {
		t.Errorf("no \"broken header\" in the error log:\n%s", p.out.String())
	}
}
