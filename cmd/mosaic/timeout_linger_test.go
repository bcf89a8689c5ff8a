package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// After send_timeout NGINX closes the connection at once, with no
// lingering close, whatever the client sent that it did not read: the
// kernel then resets the connection, and the client reading what came
// gets "connection reset by peer" rather than an end of file. mosaic
// lingered there, and its client saw a clean end.
func TestSendTimeoutClosesWithoutLingerAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "www")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	// Larger than the socket buffers of both ends can hold.
	writeFile(t, filepath.Join(root, "big"), strings.Repeat("0123456789abcdef", 1<<20))
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`send_timeout 300ms; lingering_close on;
			server { listen 127.0.0.1:%d; root %s; }`, port, root)
	})
	dialEach(t, mport, nport, func(t *testing.T, c net.Conn) {
		_ = c.(*net.TCPConn).SetReadBuffer(64 << 10)
		fmt.Fprint(c, "GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
		// The second request comes while the server writes the
		// first response, so it waits in the socket, unread.
		time.Sleep(100 * time.Millisecond)
		fmt.Fprint(c, "GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
		time.Sleep(1500 * time.Millisecond) // past send_timeout
		n, err := io.Copy(io.Discard, c)
		if !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("after %d bytes the read ended with %v; want a reset, the server closing with the request unread", n, err)
		}
	})
}

// dialEach runs f in a subtest for mosaic and one for NGINX, each with a
// new connection to its server that gives up after 10 s.
func dialEach(t *testing.T, mport, nport int, f func(t *testing.T, c net.Conn)) {
	for _, s := range []struct {
		name string
		port int
	}{{"mosaic", mport}, {"NGINX", nport}} {
		t.Run(s.name, func(t *testing.T) {
			c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", s.port))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			f(t, c)
		})
	}
}
