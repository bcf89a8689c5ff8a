package server

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testpki"
)

// tlsH1 is a raw TLS connection that chose HTTP/1.1 by ALPN.
type tlsH1 struct {
	*tls.Conn
	br *bufio.Reader
}

func dialH1(t *testing.T, addr string) *tlsH1 {
	t.Helper()
	c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, ServerName: "tls.test", NextProtos: []string{"http/1.1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	return &tlsH1{c, bufio.NewReader(c)}
}

// read reads one response and its body.
func (c *tlsH1) read(t *testing.T) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// closed reports whether the server closed the connection without
// sending anything more.
func (c *tlsH1) closed() bool {
	n, err := c.br.Read(make([]byte, 1))
	return n == 0 && err == io.EOF
}

// A TLS listener serves HTTP/1.1 with http1, under the address's
// connection limits (which a reload changes on the kept socket), and
// HTTP/2 with Go's server; Shutdown closes the idle connections of both
// and returns.
func TestTLSListenerProtocols(t *testing.T) {
	dir := t.TempDir()
	cert, key := testpki.WriteKeyPair(t, dir, "tls", testpki.SelfSigned(t, "tls.test"))
	conf := func(requests int) *Config {
		return mustLoadNoCleanup(t, fmt.Sprintf(`http { keepalive_requests %d;
			server { listen 127.0.0.1:0 ssl; ssl_certificate %s; ssl_certificate_key %s;
				location / { return 200 "$scheme $https $server_protocol"; } } }`, requests, cert, key))
	}
	rt := NewRuntime()
	if err := rt.Apply(conf(2)); err != nil {
		t.Fatal(err)
	}
	shut := false
	t.Cleanup(func() {
		if !shut {
			_ = rt.Shutdown(context.Background())
		}
	})
	addr := rt.Addrs()[0].String()
	h2 := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, ServerName: "tls.test"}, ForceAttemptHTTP2: true,
	}}
	getH2 := func() {
		t.Helper()
		resp, err := h2.Get("https://" + addr + "/")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.ProtoMajor != 2 || string(b) != "https on HTTP/2.0" {
			t.Fatalf("h2: %s %q", resp.Proto, b)
		}
	}

	// Two pipelined requests on one connection, the second its last
	// (keepalive_requests 2).
	c := dialH1(t, addr)
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		resp, body := c.read(t)
		if body != "https on HTTP/1.1" || resp.Close != (i == 1) {
			t.Fatalf("response %d: %q, close %v", i, body, resp.Close)
		}
	}
	if !c.closed() {
		t.Fatal("the connection stays open past keepalive_requests")
	}
	getH2()

	// The reload keeps the socket; HTTP/1.1 takes the new limit.
	if err := rt.Apply(conf(1)); err != nil {
		t.Fatal(err)
	}
	if got := rt.Addrs()[0].String(); got != addr {
		t.Fatalf("the reload replaced the socket: %s, then %s", addr, got)
	}
	c = dialH1(t, addr)
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: a\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if resp, _ := c.read(t); !resp.Close {
		t.Fatal("after the reload to keepalive_requests 1, the first response keeps the connection")
	}
	getH2()

	// Idle connections of both protocols close on Shutdown.
	idle := dialH1(t, addr)
	if _, err := io.WriteString(idle, "GET / HTTP/1.1\r\nHost: a\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if resp, _ := idle.read(t); resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	shut = true
	if err := rt.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Shutdown took %v with idle connections only", d)
	}
	if !idle.closed() {
		t.Fatal("an idle HTTP/1.1 connection outlived Shutdown")
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Fatal("still accepting after Shutdown")
	}
}
