package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestListenIPv6AsNGINX (fidelity16): "listen [::1]:PORT", "listen
// [::]:PORT ipv6only=on" and "listen [::]:PORT" (ipv6only is on by
// default) load and serve as NGINX: $server_addr and $remote_addr are
// written without brackets, $server_port is the listener's, $host drops
// the port of "Host: [::1]:PORT" and keeps its brackets, and a
// directory's redirect puts the host back in brackets with the port. An
// IPv6-only wildcard refuses IPv4 clients. One difference is kept: a
// redirect for a request without a Host names the server's address, and
// NGINX writes it without brackets (ngx_connection_local_sockaddr with
// no port: "http://::1:8080/d/", which no client can parse), where
// mosaic writes "http://[::1]:8080/d/" (server README, listen). Each server also listens on
// 127.0.0.1, which the helpers wait for; the IPv6 listeners, opened at
// the same time, are polled here.
func TestListenIPv6AsNGINX(t *testing.T) {
	nginxPath(t)
	if !hasIPv6() {
		t.Skip("no IPv6 loopback here")
	}
	dir := t.TempDir()
	root := filepath.Join(dir, "www")
	if err := os.MkdirAll(filepath.Join(root, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	ports := map[string][3]int{}
	for _, who := range []string{"m", "n"} {
		ports[who] = [3]int{freePort(t), freePort(t), freePort(t)}
	}
	startBoth(t, dir, func(who string, port int) string {
		p := ports[who]
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; listen [::1]:%d; listen [::]:%d ipv6only=on; listen [::]:%d;
			root %s;
			location = /v { return 200 "$server_addr|$remote_addr|$server_port|$host|$http_host|$binary_remote_addr\n"; } }`,
			port, p[0], p[1], p[2], root)
	})
	for _, who := range []string{"m", "n"} {
		for _, p := range ports[who] {
			waitTCP(t, net.JoinHostPort("::1", fmt.Sprint(p)))
		}
	}
	reqs := []string{
		"GET /v HTTP/1.1\r\nHost: [::1]:%d\r\nConnection: close\r\n\r\n",
		"GET /v HTTP/1.1\r\nHost: [::1]\r\nConnection: close\r\n\r\n",
		"GET /v HTTP/1.0\r\n\r\n",
		"GET /d HTTP/1.1\r\nHost: [::1]:%d\r\nConnection: close\r\n\r\n",
		"GET /d HTTP/1.0\r\n\r\n",
	}
	for i := range 3 {
		for _, req := range reqs {
			answer := func(who string) string {
				port := ports[who][i]
				text := req
				if strings.Contains(req, "%d") {
					text = fmt.Sprintf(req, port)
				}
				r, b := testclient.Raw(t, net.JoinHostPort("::1", fmt.Sprint(port)), text)
				loc := strings.ReplaceAll(r.Header.Get("Location"), fmt.Sprint(port), "PORT")
				if r.StatusCode != 200 {
					b = "" // an error page, signed by each server
				}
				return fmt.Sprintf("%d %q %q", r.StatusCode, loc, strings.ReplaceAll(b, fmt.Sprint(port), "PORT"))
			}
			m, n := answer("m"), answer("n")
			if req == "GET /d HTTP/1.0\r\n\r\n" {
				if want := `301 "http://[::1]:PORT/d/" ""`; m != want || n != `301 "http://::1:PORT/d/" ""` {
					t.Errorf("listener %d, no Host: mosaic %s (want %s), nginx %s", i, m, want, n)
				}
				continue
			}
			if m != n || !strings.HasPrefix(req, "GET /d") && !strings.HasPrefix(m, "200") {
				t.Errorf("listener %d, %q:\nmosaic %s\nnginx  %s", i, req, m, n)
			} else {
				t.Logf("listener %d, %q: %s", i, req, m)
			}
		}
	}
	// The IPv6-only wildcards take no IPv4 client.
	for _, who := range []string{"m", "n"} {
		for _, p := range []int{ports[who][1], ports[who][2]} {
			if c, err := net.DialTimeout("tcp4", fmt.Sprintf("127.0.0.1:%d", p), time.Second); err == nil {
				c.Close()
				t.Errorf("%s: 127.0.0.1:%d accepted on an ipv6only wildcard", who, p)
			}
		}
	}
}

// waitTCP waits until addr accepts a connection, for a listener the
// helpers do not wait for.
func waitTCP(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not accept: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
