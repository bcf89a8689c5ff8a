package fastcgimod_test

import (
	"bufio"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/server/servertest"
)

// A client that leaves while the application works on its request ends
// the exchange: the gateway closes its connection to the application
// (which php-fpm notices as the end of the script's output), as NGINX
// does without fastcgi_ignore_client_abort. The request's context tells
// the gateway through its end hook (internal/endhook).
func TestClientGoneClosesApplicationConnection(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "app.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	received, closed := make(chan struct{}), make(chan struct{})
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		if _, err := readRequest(br); err != nil {
			return
		}
		close(received)
		// No answer: the next read ends when the gateway closes.
		io.Copy(io.Discard, br)
		close(closed)
	}()
	base := servertest.Start(t, `http { access_log off;
		upstream app { server unix:`+sock+`; keepalive 4; }
		server { listen 127.0.0.1:0;
			location / { include fastcgi_params; fastcgi_keep_conn on; fastcgi_pass app; } } }`)
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "GET /slow.php HTTP/1.1\r\nHost: x\r\n\r\n")
	select {
	case <-received:
	case <-time.After(5 * time.Second):
		t.Fatal("the request did not reach the application")
	}
	c.Close()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the connection to the application is still open after the client left")
	}
}
