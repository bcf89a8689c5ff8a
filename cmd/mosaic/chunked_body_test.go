package main

import (
	"fmt"
	"testing"
)

// TestChunkedBodiesAsNGINX sends chunked request bodies to both servers
// in front of an origin that echoes the body it gets.
func TestChunkedBodiesAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := methodOrigin(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%d;
			client_max_body_size 8;
			client_body_timeout 3s;
			location / { proxy_pass http://%s; }
		}`, port, origin)
	})
	head := "POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked"
	for _, body := range []string{
		// Whitespace before an extension (RFC 9112's BWS).
		"3 ;x=y\r\nabc\r\n0\r\n\r\n",
		"3\t;x\r\nabc\r\n0 ;y\r\n\r\n",
		// A chunk that takes the body past client_max_body_size is 413
		// at once, though the rest of its data never comes (NGINX checks
		// the size when the chunk's first byte is there).
		"3\r\nabc\r\n6\r\na",
		"3\r\nabc\r\n5\r\nabcde\r\n0\r\n\r\n",
	} {
		sameAnswer(t, mport, nport, head, body)
	}
}
