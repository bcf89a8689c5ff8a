package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FastCGI requests over TLS listeners, TCP and Unix-domain, with HTTP/1.1
// keep-alive and with several HTTP/2 streams on one connection: the
// connection's addresses, kept per connection under the TLS socket's
// wrapper, and whether $tcpinfo_rtt reaches the socket under TLS, are
// what NGINX gives PHP. The client's and the server's TCP ports, which
// differ between the two servers, are compared as their names.
func TestFastCGITLSConnAddrsAsNGINX(t *testing.T) {
	nginxPath(t)
	fpmPath(t)
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	writeFile(t, filepath.Join(dir, "www", "e.php"), `<?php foreach (['REMOTE_ADDR', 'REMOTE_PORT', 'SERVER_ADDR', 'SERVER_PORT', 'HTTPS', 'SERVER_PROTOCOL'] as $k) {
	echo $k, '=', $_SERVER[$k] ?? '(none)', "\n"; }
echo 'RTT=', ($_SERVER['RTT'] ?? '') === '' ? 'empty' : 'set', "\n";`)
	port := freePort(t)
	fpm := startFPM(t, filepath.Join(dir, "fpm"), "127.0.0.1:"+strconv.Itoa(port), 2)
	shipFastCGIFile(t, dir, "fastcgi.conf")
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`log_format a "$remote_addr|$remote_port|$server_protocol";
			server { listen 127.0.0.1:%[1]d ssl http2; listen unix:%[2]s/%[3]s.sock ssl http2;
			ssl_certificate %[4]s; ssl_certificate_key %[5]s; root %[2]s/www; access_log %[2]s/%[6]s/access.log a;
			location ~ \.php$ { include %[2]s/fastcgi.conf; fastcgi_param RTT $tcpinfo_rtt; fastcgi_pass %[7]s; } }`,
			port, dir, who, cert, key, map[string]string{"m": "mosaic", "n": "nginx"}[who], fpm.addr)
	})
	type target struct {
		network, addr string
		port          int
	}
	// names replaces the connection's ports with their names.
	names := func(s string, c net.Conn, port int) string {
		if _, cport, err := net.SplitHostPort(c.LocalAddr().String()); err == nil {
			s = strings.ReplaceAll(s, "REMOTE_PORT="+cport+"\n", "REMOTE_PORT=CPORT\n")
		}
		s = strings.NewReplacer("/m.sock\n", "/X.sock\n", "/n.sock\n", "/X.sock\n").Replace(s)
		return strings.ReplaceAll(s, "SERVER_PORT="+strconv.Itoa(port)+"\n", "SERVER_PORT=SPORT\n")
	}
	// h1 sends three requests on one HTTP/1.1 connection.
	h1 := func(tg target) (out []string) {
		c, err := tls.Dial(tg.network, tg.addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(20 * time.Second))
		br := bufio.NewReader(c)
		for i := range 3 {
			fmt.Fprintf(c, "GET /e.php?n=%d HTTP/1.1\r\nHost: a\r\n\r\n", i)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("%s: %v", tg.addr, err)
			}
			body, _ := io.ReadAll(resp.Body)
			out = append(out, names(resp.Status+"\n"+string(body), c, tg.port))
		}
		return out
	}
	// h2 sends three requests, two of them at once, on one HTTP/2
	// connection.
	h2 := func(tg target) (out []string) {
		var conns []net.Conn
		tr := &http.Transport{ForceAttemptHTTP2: true, DialTLSContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}}}
			c, err := d.DialContext(ctx, tg.network, tg.addr)
			if err == nil {
				conns = append(conns, c)
			}
			return c, err
		}}
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr, Timeout: 20 * time.Second}
		get := func(i int) string {
			resp, err := client.Get(fmt.Sprintf("https://a/e.php?n=%d", i))
			if err != nil {
				t.Errorf("%s: %v", tg.addr, err)
				return ""
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			return resp.Status + "\n" + string(body)
		}
		out = append(out, get(0)) // the connection, made alone
		done := make(chan string)
		for i := 1; i <= 2; i++ {
			go func() { done <- get(i) }()
		}
		a, b := <-done, <-done
		if a > b {
			a, b = b, a
		}
		out = append(out, a, b)
		if len(conns) != 1 {
			t.Errorf("%s: %d connections for the streams", tg.addr, len(conns))
		}
		for i := range out {
			out[i] = names(out[i], conns[0], tg.port)
		}
		return out
	}
	tcpM, tcpN := target{"tcp", "127.0.0.1:" + strconv.Itoa(mport), mport}, target{"tcp", "127.0.0.1:" + strconv.Itoa(nport), nport}
	unixM, unixN := target{"unix", filepath.Join(dir, "m.sock"), 0}, target{"unix", filepath.Join(dir, "n.sock"), 0}
	for _, c := range []struct {
		name string
		run  func(target) []string
		m, n target
	}{{"h1 tcp", h1, tcpM, tcpN}, {"h1 unix", h1, unixM, unixN}, {"h2 tcp", h2, tcpM, tcpN}, {"h2 unix", h2, unixM, unixN}} {
		m, n := c.run(c.m), c.run(c.n)
		if len(n) != 3 || !strings.Contains(n[0], "HTTPS=on") {
			t.Fatalf("%s: NGINX's answers are not as expected: %q", c.name, n)
		}
		for i := range n {
			if i >= len(m) || m[i] != n[i] {
				t.Errorf("%s, request %d: mosaic\n%q\nnginx\n%q", c.name, i, m, n[i])
				break
			}
		}
	}
	// The access log's clients, the Unix-domain ones' and HTTP/2's
	// included; the TCP ports as digits.
	read := func(who string) string {
		lines := refusedLines(t, filepath.Join(dir, who, "access.log"), 12)
		return regexp.MustCompile(`[0-9]{2,}`).ReplaceAllString(strings.Join(lines, "\n"), "N")
	}
	if m, n := read("mosaic"), read("nginx"); m != n {
		t.Errorf("access log: mosaic\n%s\nnginx\n%s", m, n)
	}
}

// FastCGI requests over a PROXY protocol listener with realip taking the
// header's address, on HTTP/1.1 keep-alive and on HTTP/2 with prior
// knowledge: REMOTE_ADDR and REMOTE_PORT are the header's, SERVER_ADDR
// and SERVER_PORT the socket's, for every request of the connection, as
// NGINX gives them.
func TestFastCGIProxyProtocolAddrsAsNGINX(t *testing.T) {
	nginxPath(t)
	fpmPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "e.php"), `<?php foreach (['REMOTE_ADDR', 'REMOTE_PORT', 'SERVER_ADDR', 'SERVER_PORT', 'PP', 'SERVER_PROTOCOL'] as $k) {
	echo $k, '=', $_SERVER[$k] ?? '(none)', "\n"; }`)
	port := freePort(t)
	fpm := startFPM(t, filepath.Join(dir, "fpm"), "127.0.0.1:"+strconv.Itoa(port), 2)
	shipFastCGIFile(t, dir, "fastcgi.conf")
	// NGINX 1.22's "listen ... http2" on a plain socket takes HTTP/2
	// alone: each server has a second port for it.
	h2port := map[string]int{"m": freePort(t), "n": freePort(t)}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d proxy_protocol; listen 127.0.0.1:%d http2 proxy_protocol; root %s/www;
			set_real_ip_from 127.0.0.1; real_ip_header proxy_protocol;
			location ~ \.php$ { include %s/fastcgi.conf; fastcgi_param PP "$proxy_protocol_addr:$proxy_protocol_port|$realip_remote_addr";
				fastcgi_pass %s; } }`, port, h2port[who], dir, dir, fpm.addr)
	})
	const header = "PROXY TCP4 192.0.2.7 198.51.100.1 40001 443\r\n"
	dial := func(port int) net.Conn {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(20 * time.Second))
		io.WriteString(c, header)
		return c
	}
	h1 := func(port int) (out []string) {
		c := dial(port)
		defer c.Close()
		br := bufio.NewReader(c)
		for i := range 2 {
			fmt.Fprintf(c, "GET /e.php?n=%d HTTP/1.1\r\nHost: a\r\n\r\n", i)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("%d: %v", port, err)
			}
			body, _ := io.ReadAll(resp.Body)
			out = append(out, strings.ReplaceAll(resp.Status+"\n"+string(body), "="+strconv.Itoa(port)+"\n", "=SPORT\n"))
		}
		return out
	}
	h2 := func(port int) (out []string) {
		var protos http.Protocols
		protos.SetUnencryptedHTTP2(true)
		dials := 0
		tr := &http.Transport{Protocols: &protos, DialContext: func(context.Context, string, string) (net.Conn, error) {
			dials++
			return dial(port), nil
		}}
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr, Timeout: 20 * time.Second}
		for i := range 2 {
			resp, err := client.Get(fmt.Sprintf("http://a/e.php?n=%d", i))
			if err != nil {
				t.Fatalf("%d: %v", port, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			out = append(out, strings.ReplaceAll(resp.Status+"\n"+string(body), "="+strconv.Itoa(port)+"\n", "=SPORT\n"))
		}
		if dials != 1 {
			t.Errorf("%d: %d connections", port, dials)
		}
		return out
	}
	for _, c := range []struct {
		name string
		run  func(int) []string
		m, n int
	}{{"h1", h1, mport, nport}, {"h2", h2, h2port["m"], h2port["n"]}} {
		m, n := c.run(c.m), c.run(c.n)
		if !strings.Contains(n[0], "REMOTE_ADDR=192.0.2.7\n") {
			t.Fatalf("%s: NGINX's answers are not as expected: %q", c.name, n)
		}
		if fmt.Sprint(m) != fmt.Sprint(n) {
			t.Errorf("%s: mosaic\n%q\nnginx\n%q", c.name, m, n)
		}
	}
}
