package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// A client that stalls while sending headers or a body is cut off after
// client_header_timeout / client_body_timeout, not held forever.
func TestSlowClientsAreCut(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, "read %d %v", n, err)
	}))
	defer origin.Close()
	dir := t.TempDir()
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http { client_header_timeout 300ms; client_body_timeout 300ms;
		server { listen 127.0.0.1:{port}; location / { proxy_pass %s; } } }`, origin.URL), port)
	addr := fmt.Sprintf("127.0.0.1:%d", port)

	// Headers never finished.
	c, err := net.Dial("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprint(c, "GET / HTTP/1.1\r\nHost: x\r\n")
	start := time.Now()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	io.ReadAll(c) // ends when the server closes
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("header stall held for %v", d)
	}

	// A body that stops half way.
	c2, err := net.Dial("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	fmt.Fprint(c2, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789")
	start = time.Now()
	c2.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c2), nil)
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Fatalf("stalled body answered %d", resp.StatusCode)
		}
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("body stall held for %v", d)
	}
}
