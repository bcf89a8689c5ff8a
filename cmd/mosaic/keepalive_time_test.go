package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"
)

// keepaliveTimeAnswers sends three requests on one connection, the third
// after the connection has lived past keepalive_time, and reports whether
// each response said it closes the connection, and whether it did.
func keepaliveTimeAnswers(t *testing.T, port int) (conn []bool, closed bool) {
	t.Helper()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	for i := range 3 {
		if i == 2 {
			time.Sleep(1200 * time.Millisecond)
		}
		if _, err := io.WriteString(c, "GET /k HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		conn = append(conn, resp.Close)
	}
	_, err = br.ReadByte()
	return conn, err != nil
}

// keepalive_time ends a connection that has served requests for longer
// than it: the response after that says "Connection: close" and the
// connection closes, as NGINX does (compared with Debian's when present).
func TestKeepaliveTime(t *testing.T) {
	t.Parallel()
	check := func(name string, conn []bool, closed bool) {
		t.Helper()
		if conn[0] || conn[1] || !conn[2] || !closed {
			t.Errorf("%s: Connection: close %v, closed %v; want kept twice, then closed", name, conn, closed)
		}
	}
	dir := t.TempDir()
	port := freePort(t)
	startMosaic(t, dir, `http { access_log off; keepalive_time 1s;
		server { listen 127.0.0.1:{port}; location /k { return 200 "k\n"; } } }`, port)
	conn, closed := keepaliveTimeAnswers(t, port)
	check("mosaic", conn, closed)

	if _, err := os.Stat("/usr/sbin/nginx"); err != nil {
		return
	}
	ndir, nport := t.TempDir(), freePort(t)
	startNGINX(t, ndir, fmt.Sprintf(`access_log off; keepalive_time 1s;
		server { listen 127.0.0.1:%d; location /k { return 200 "k\n"; } }`, nport), nport)
	conn, closed = keepaliveTimeAnswers(t, nport)
	check("nginx", conn, closed)
}
