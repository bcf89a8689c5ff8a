package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
)

// TestRedirectedURIProxiedAsNGINX: the request line a proxy_pass without
// a URI part sends after an internal redirect. A rewrite "last" and an
// error_page to a URI clear NGINX's valid_unparsed_uri: the decoded URI
// goes escaped again (NGX_ESCAPE_URI), so that what the upstream decodes
// is the path that chose the location ("%2F" goes as "/", "%3F" stays
// escaped, "%28" goes as "(", which net/url would escape). A jump to a named location (try_files, error_page "@x")
// keeps the client's target as it came.
func TestRedirectedURIProxiedAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	got := make(chan string, 1)
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		line, _ := br.ReadString('\n')
		for {
			if l, err := br.ReadString('\n'); err != nil || l == "\r\n" {
				break
			}
		}
		got <- strings.TrimRight(line, "\r\n")
		io.WriteString(c, "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok")
	})
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%[1]d;
			location /rl/ { rewrite ^/rl/(.*)$ /in/$1 last; }
			location /in/ { proxy_pass http://%[2]s; }
			location /tf/ { try_files /nonexistent @named; }
			location /ep/ { error_page 418 = @named; return 418; }
			location /er/ { error_page 418 = /in/e%%3F; return 418; }
			location @named { proxy_pass http://%[2]s; }
		}`, port, o.Addr())
	})
	for _, p := range []string{"/rl/a%3Fb?q", "/rl/a%23b", "/rl/a%25b", "/rl/a%C3%A9", "/rl/\xc3\xa9",
		"/rl/a%22b%7C%7B%5C%5E%60%3C%3E", "/rl/a%2Fb", "/rl/a%2E%2E/b", "/rl/a%20b", "/rl/a+b;c&d=e",
		"/rl/a%28b%29%21%2A%27%5B%5D",
		"/tf/a%2Fb?x=1", "/tf/a%41", "/ep/a%41?x", "/er/a%41?z"} {
		var line [2]string
		for i, port := range []int{mport, nport} {
			c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(c, "GET "+p+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			io.ReadAll(c)
			c.Close()
			select {
			case line[i] = <-got:
			case <-time.After(time.Second):
				line[i] = "(nothing sent)"
			}
		}
		if line[0] != line[1] {
			t.Errorf("%q: mosaic sent %q, nginx %q", p, line[0], line[1])
		}
	}
}
