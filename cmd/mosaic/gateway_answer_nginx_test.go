package main

import (
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// Two answers of a FastCGI application that NGINX 1.22.1 relays and
// mosaic refuses with 502, kept so (server/README.md, Security): a
// Status below 100, which ngx_http_fastcgi_process_header takes with
// ngx_atoi and copies into the status line, and two Content-Length
// fields that disagree, of which ngx_http_upstream_process_content_length
// keeps the last. RFC 9110 (section 15) leaves codes outside 100-599 no
// meaning, and a client that reads a code below 200 as one without a body
// takes the body for the next answer; RFC 9112 (section 6.3) has a proxy
// answer 502 to lengths that disagree, since either may be the one the
// body has. The test pins both servers' answers, so a change on either
// side shows.
func TestGatewayAnswersBesideNGINX(t *testing.T) {
	nginxPath(t)
	answers := map[string]string{
		"/status099":  "Status: 099\r\nContent-Type: text/plain\r\n\r\nbody",
		"/two-length": "Content-Type: text/plain\r\nContent-Length: 5\r\nContent-Length: 3\r\n\r\nabcde",
	}
	app := fastcgiApp(t, func(names, values []string) string {
		for i, n := range names {
			if n == "REQUEST_URI" {
				return answers[values[i]]
			}
		}
		return "Status: 404\r\n\r\n"
	})
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; location / {
			fastcgi_param REQUEST_URI $request_uri; fastcgi_pass %s; } }`, port, app)
	})
	head := func(port int, path string) string {
		c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", path)
		b, _ := io.ReadAll(c)
		// The status line, the length and the body: the rest (Date,
		// Server) differs by design.
		var keep []string
		h, body, _ := strings.Cut(string(b), "\r\n\r\n")
		for i, line := range strings.Split(h, "\r\n") {
			if i == 0 || strings.HasPrefix(line, "Content-Length:") {
				keep = append(keep, line)
			}
		}
		if strings.HasPrefix(keep[0], "HTTP/1.1 502") {
			body = "" // the error page
		}
		return strings.Join(keep, "|") + "|" + body
	}
	for _, c := range []struct{ path, mosaic, nginx string }{
		{"/status099", "HTTP/1.1 502 Bad Gateway|", "HTTP/1.1 099|body"},
		{"/two-length", "HTTP/1.1 502 Bad Gateway|", "HTTP/1.1 200 OK|Content-Length: 3|abc"},
	} {
		if got := head(mport, c.path); !strings.HasPrefix(got, c.mosaic) {
			t.Errorf("%s: mosaic %q, want %q", c.path, got, c.mosaic)
		}
		if got := head(nport, c.path); got != c.nginx {
			t.Errorf("%s: NGINX %q, want %q", c.path, got, c.nginx)
		}
	}
}
