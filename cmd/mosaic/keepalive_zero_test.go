package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"testing"
	"time"
)

// TestKeepaliveRequestsZeroAsNGINX (audit6): "keepalive_requests 0"
// leaves no request to keep a connection for. NGINX closes when the
// connection's count of requests reaches the value (requests >= 0 holds
// at the first), so every response says "Connection: close" and the
// connection ends after it; mosaic read 0 as "no limit" and kept every
// connection open for as many requests as a client sent.
func TestKeepaliveRequestsZeroAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`keepalive_requests 0;
			server { listen 127.0.0.1:%d; location / { return 200 "ok"; } }`, port)
	})
	outcome := func(port int) string {
		c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		br := bufio.NewReader(c)
		resp := exchange(t, c, br, "GET / HTTP/1.1\r\nHost: t\r\n\r\n")
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err = br.ReadByte()
		return fmt.Sprintf("close=%v then %v", resp.Close, err)
	}
	want := fmt.Sprintf("close=true then %v", io.EOF)
	if m, n := outcome(mport), outcome(nport); m != want || n != want {
		t.Errorf("HTTP/1.1: mosaic %q, nginx %q, want %q", m, n, want)
	}
}

// TestH2KeepaliveRequestsZero (audit6): over HTTP/2, "keepalive_requests
// 0" ends the connection with GOAWAY at its first stream, which is
// answered. NGINX 1.22.1 sends that GOAWAY naming stream 0 as the last
// it will process, so the stream is never answered (curl reports an
// empty reply); mosaic answers it, as for keepalive_requests 1.
func TestH2KeepaliveRequestsZero(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http { keepalive_requests 0; ssl_certificate %s; ssl_certificate_key %s;
		server { listen 127.0.0.1:{port} ssl http2; return 200 "ok"; } }`, cert, key), port)
	o := h2Streams(t, port, "", "a", "y")
	if got, want := o.closedBy(time.Now().Add(3*time.Second)), "200 ok goaway closed"; got != want {
		t.Errorf("streams: %q, want %q", got, want)
	}
}
