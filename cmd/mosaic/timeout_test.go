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

// A client that stops reading a proxied response is cut off after
// send_timeout; one that keeps reading gets all of it.
func TestSendTimeoutCutsStalledClient(t *testing.T) {
	const size = 16 << 20
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(size))
		chunk := make([]byte, 64<<10)
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer origin.Close()
	dir := t.TempDir()
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http { send_timeout 300ms;
		server { listen 127.0.0.1:{port}; location / { proxy_pass %s; } } }`, origin.URL), port)
	addr := fmt.Sprintf("127.0.0.1:%d", port)

	read := func(stall time.Duration) int64 {
		c, err := net.Dial("tcp4", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.(*net.TCPConn).SetReadBuffer(64 << 10)
		_ = c.SetDeadline(time.Now().Add(20 * time.Second))
		fmt.Fprintf(c, "GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
		time.Sleep(stall)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return 0
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		return n
	}
	if n := read(0); n != size {
		t.Fatalf("a reading client got %d of %d bytes", n, size)
	}
	if n := read(1500 * time.Millisecond); n >= size {
		t.Errorf("a client that stalled for 1.5 s got all %d bytes; send_timeout 300ms should have cut it", n)
	}
}
