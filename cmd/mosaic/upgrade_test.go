package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
)

// echoOrigin switches to protocol "echo" and then sends each line back in
// upper case, times times, until the client closes.
func echoOrigin(t *testing.T, times int) *testorigin.Raw {
	return testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		req, err := http.ReadRequest(br)
		if err != nil || !strings.EqualFold(req.Header.Get("Upgrade"), "echo") {
			fmt.Fprint(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
			return
		}
		fmt.Fprint(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			fmt.Fprint(c, strings.Repeat(strings.ToUpper(line), times))
		}
	})
}

// upgradeToEcho asks the server on port for /ws upgraded to echoOrigin's
// protocol and returns the tunnel's client end, 101 checked, closed when
// the test ends, with 10 s for all it does.
func upgradeToEcho(t *testing.T, port int) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprint(c, "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("port %d: %v", port, err)
	}
	if resp.StatusCode != 101 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("port %d: status %d %q", port, resp.StatusCode, b)
	}
	return c, br
}

// An upgrade configured as NGINX needs it tunnels bytes both ways.
func TestWebSocketUpgradeThroughBinary(t *testing.T) {
	origin := echoOrigin(t, 1)
	dir := t.TempDir()
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http { server { listen 127.0.0.1:{port};
		location /ws { proxy_pass http://%s; proxy_http_version 1.1;
			proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection "upgrade"; } } }`, origin.Addr()), port)

	c, br := upgradeToEcho(t, port)
	for _, msg := range []string{"hello\n", "second line\n"} {
		fmt.Fprint(c, msg)
		got, err := br.ReadString('\n')
		if err != nil || got != strings.ToUpper(msg) {
			t.Fatalf("echo %q: %q %v", msg, got, err)
		}
	}
}

// $upstream_bytes_sent and $upstream_bytes_received count what went
// through the tunnel after the switch, as NGINX counts it, and
// $body_bytes_sent what the tunnel sent the client (NGINX counts the
// connection's bytes after the 101 header as the body).
func TestUpgradeBytesMatchNGINX(t *testing.T) {
	nginxPath(t)
	origin := echoOrigin(t, 2)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`log_format up '$status|$body_bytes_sent|$upstream_bytes_sent|$upstream_bytes_received';
		access_log %s/%s-up.log up;
		server { listen 127.0.0.1:%d;
			location /ws { proxy_pass http://%s; proxy_http_version 1.1;
				proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection "upgrade"; } }`,
			dir, who, port, origin.Addr())
	})
	for _, port := range []int{mport, nport} {
		c, br := upgradeToEcho(t, port)
		for _, msg := range []string{"hello\n", "second line\n"} {
			fmt.Fprint(c, msg)
			for range 2 {
				if got, err := br.ReadString('\n'); err != nil || got != strings.ToUpper(msg) {
					t.Fatalf("port %d, echo %q: %q %v", port, msg, got, err)
				}
			}
		}
		c.Close()
	}
	m := waitLog(t, filepath.Join(dir, "m-up.log"), 1)
	n := waitLog(t, filepath.Join(dir, "n-up.log"), 1)
	if m[0] != n[0] {
		t.Errorf("$status|$body_bytes_sent|$upstream_bytes_sent|$upstream_bytes_received: %q, NGINX %q", m[0], n[0])
	}
}

// A tunnel's message sent after proxy_send_timeout has passed since the
// upgrade request reaches the origin behind both servers: the send
// timeout limits a write that waits, counted from that write.
func TestUpgradeLateMessageAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	origin := echoOrigin(t, 1)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			location /ws { proxy_pass http://%s; proxy_http_version 1.1; proxy_send_timeout 1s;
				proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection "upgrade"; } }`,
			port, origin.Addr())
	})
	ports := []int{mport, nport}
	conns := make([]net.Conn, len(ports))
	readers := make([]*bufio.Reader, len(ports))
	for i, port := range ports {
		conns[i], readers[i] = upgradeToEcho(t, port)
	}
	time.Sleep(1500 * time.Millisecond)
	for i, c := range conns {
		fmt.Fprint(c, "late\n")
		if got, err := readers[i].ReadString('\n'); err != nil || got != "LATE\n" {
			t.Errorf("%s: %q %v, want \"LATE\\n\"", [2]string{"mosaic", "nginx"}[i], got, err)
		}
	}
}

// TestUpgradeRequestGzipAsNGINX: NGINX's gzip filter does not look at a
// request's Upgrade: a plain 200 to a WebSocket handshake (a file, or
// Nextcloud's front controller) is compressed and gets gzip_vary's Vary
// as any other, where mosaic's filter left such requests alone. A 101
// from the upstream still goes through as a tunnel, without either.
func TestUpgradeRequestGzipAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := echoOrigin(t, 1)
	dir := t.TempDir()
	for _, who := range []string{"nginx", "mosaic"} {
		writeFile(t, filepath.Join(dir, who, "site/a.html"), strings.Repeat("<p>hello</p>\n", 40))
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		site := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], "site")
		return fmt.Sprintf(`gzip on; gzip_vary on;
			server { listen 127.0.0.1:%d; root %s;
				location /ws { proxy_pass http://%s; proxy_http_version 1.1;
					proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection "upgrade"; } }`,
			port, site, origin.Addr())
	})
	req := "GET /a.html HTTP/1.1\r\nHost: a.test\r\nUpgrade: websocket\r\nConnection: Upgrade, close\r\nAccept-Encoding: gzip\r\n\r\n"
	fields := []string{"Content-Encoding", "Vary"}
	m := answerFields(t, sendUntilClosed(t, mport, req), fields...)
	n := answerFields(t, sendUntilClosed(t, nport, req), fields...)
	if m != n {
		t.Errorf("plain 200 to an upgrade request\nmosaic %s\nNGINX  %s", m, n)
	}
	c, br := upgradeToEcho(t, mport)
	fmt.Fprint(c, "hello\n")
	if got, err := br.ReadString('\n'); err != nil || got != "HELLO\n" {
		t.Errorf("tunnel under gzip: %q %v", got, err)
	}
}
