package proxy_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/proxy"
)

// echoUpgradeOrigin switches to a line echo protocol (upper-casing what it
// gets) after answering 101 to a request with "Upgrade: echo".
func echoUpgradeOrigin(t *testing.T) *testorigin.Raw {
	return testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		if req.Header.Get("Upgrade") != "echo" {
			io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
			return
		}
		io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\nX-Origin: yes\r\n\r\n")
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				return
			}
			if string(line) == "quiet\n" {
				continue
			}
			if _, err := c.Write(bytes.ToUpper(line)); err != nil {
				return
			}
		}
	})
}

var upgradeHeaders = []proxy.Header{
	{Name: "Upgrade", Value: func(r *http.Request) string { return r.Header.Get("Upgrade") }},
	proxy.Static("Connection", "upgrade"),
}

// dialUpgrade sends an upgrade request (and extra bytes right behind it)
// and returns the connection after the 101.
func dialUpgrade(t *testing.T, addr, extra string) (net.Conn, *bufio.Reader, *http.Response) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	io.WriteString(c, "GET /ws HTTP/1.1\r\nHost: front\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n"+extra)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c, br, resp
}

func TestUpgradeTunnel(t *testing.T) {
	o := echoUpgradeOrigin(t)
	f := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{HTTPVersion: "1.1", SetHeaders: upgradeHeaders}))
	c, br, resp := dialUpgrade(t, hostOf(f.Server), "early\n")
	if resp.StatusCode != 101 || resp.Header.Get("Upgrade") != "echo" || !strings.EqualFold(resp.Header.Get("Connection"), "upgrade") || resp.Header.Get("X-Origin") != "yes" {
		t.Fatalf("response %d %v", resp.StatusCode, resp.Header)
	}
	for _, msg := range []string{"", "hello", "world"} {
		want := "EARLY\n"
		if msg != "" {
			io.WriteString(c, msg+"\n")
			want = strings.ToUpper(msg) + "\n"
		}
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		line, err := br.ReadString('\n')
		if err != nil || line != want {
			t.Fatalf("got %q, %v; want %q", line, err, want)
		}
	}
	c.Close()
	// The proxy reports the switch.
	if got := f.waitVar("upstream_status", "101"); got != "101" {
		t.Errorf("$upstream_status %q", got)
	}
}

// echoTunnel opens a tunnel through a proxy with opts (an HTTP/1.1
// upstream and the upgrade headers added) to echoUpgradeOrigin, and
// returns the client's end.
func echoTunnel(t *testing.T, opts proxy.Options) (net.Conn, *bufio.Reader) {
	t.Helper()
	o := echoUpgradeOrigin(t)
	opts.HTTPVersion, opts.SetHeaders = "1.1", upgradeHeaders
	f := newFront(t, proxyTo(t, "http://"+o.Addr(), opts))
	c, br, resp := dialUpgrade(t, hostOf(f.Server), "")
	if resp.StatusCode != 101 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	return c, br
}

func TestUpgradeTunnelIdleTimeout(t *testing.T) {
	c, br := echoTunnel(t, proxy.Options{ReadTimeout: 200 * time.Millisecond})
	io.WriteString(c, "quiet\n") // the origin answers nothing
	start := time.Now()
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	_, err := br.ReadByte()
	if err != io.EOF {
		t.Errorf("read: %v, want EOF once the tunnel idles out", err)
	}
	if waited := time.Since(start); waited < 150*time.Millisecond || waited > 2*time.Second {
		t.Errorf("tunnel closed after %v, want about the 200ms read timeout", waited)
	}
}

// TestUpgradeTunnelKeptByClientTraffic: the idle limit counts the
// client's bytes too (NGINX re-arms its read timer on every event of the
// tunnel): a client that talks every 100ms to an origin that stays silent
// keeps a tunnel with a 300ms read timeout, and the origin's later answer
// arrives.
func TestUpgradeTunnelKeptByClientTraffic(t *testing.T) {
	c, br := echoTunnel(t, proxy.Options{ReadTimeout: 300 * time.Millisecond})
	for range 8 {
		if _, err := io.WriteString(c, "quiet\n"); err != nil {
			t.Fatalf("client write: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	io.WriteString(c, "hello\n")
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if line, err := br.ReadString('\n'); line != "HELLO\n" {
		t.Errorf("after 800ms of the client's traffic: got %q, %v; want \"HELLO\\n\"", line, err)
	}
}

// TestUpgradeTunnelSendTimeoutFromWrite: the tunnel's first write to the
// origin gets proxy_send_timeout from when it is made, not from when the
// request began: the upgrade request, without a body, is written by the
// read of its answer, which sets no write deadline, and the clock its
// ordinary write would have taken must not be left for the tunnel's.
func TestUpgradeTunnelSendTimeoutFromWrite(t *testing.T) {
	c, br := echoTunnel(t, proxy.Options{SendTimeout: 200 * time.Millisecond})
	time.Sleep(400 * time.Millisecond) // past the send timeout from the request's start
	io.WriteString(c, "hello\n")
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if line, err := br.ReadString('\n'); line != "HELLO\n" {
		t.Errorf("a message 400ms after the switch: got %q, %v; want \"HELLO\\n\"", line, err)
	}
}

func TestUpgradeNotForwardedByDefault(t *testing.T) {
	// Without the Upgrade header configured the origin never sees one.
	o := echoUpgradeOrigin(t)
	f := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{}))
	_, _, resp := dialUpgrade(t, hostOf(f.Server), "")
	if resp.StatusCode != 400 {
		t.Errorf("status %d, want the origin's 400", resp.StatusCode)
	}
}

func TestSwitchWithoutUpgradeRequest(t *testing.T) {
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		http.ReadRequest(br)
		io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\n\r\n")
	})
	f := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{}))
	if status, _, _ := get(t, f.URL+"/"); status != 502 {
		t.Errorf("status %d, want 502", status)
	}
}
