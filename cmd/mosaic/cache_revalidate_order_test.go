package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCacheRevalidationHeaderOrderAsNGINX: revalidating an expired entry
// (proxy_cache_revalidate), NGINX sends the entry's If-Modified-Since and
// If-None-Match among its configured fields (proxy_cache_headers), after
// Host, Connection and the body's length and before the client's lines;
// the client's own conditionals are not sent. The upstream echoes the
// lines it got, cacheable for a second. Its Last-Modified comes with and
// without "GMT": NGINX reads both with ngx_parse_http_time and sends the
// time back as an IMF-fixdate.
func TestCacheRevalidationHeaderOrderAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	for _, lm := range []string{"Sat, 01 Jan 2022 00:00:00 GMT", "Sat, 01 Jan 2022 00:00:00"} {
		t.Run(lm, func(t *testing.T) {
			origin := headEchoOrigin(t, "Cache-Control: max-age=1\r\nETag: \"e1\"\r\n"+
				"Last-Modified: "+lm+"\r\nConnection: close\r\n")
			dir := t.TempDir()
			mport, nport := startBoth(t, dir, func(who string, port int) string {
				return fmt.Sprintf(`proxy_cache_path %s/%s-cache keys_zone=rv:1m;
			server { listen 127.0.0.1:%d; access_log off;
			location / { proxy_pass http://%s; proxy_cache rv; proxy_cache_revalidate on;
				proxy_set_header X-Set 1; } }`, dir, who, port, origin)
			})
			req := "GET /a HTTP/1.1\r\nHost: a\r\nX-First: 1\r\nIf-None-Match: \"client\"\r\n" +
				"If-Modified-Since: Sun, 02 Jan 2022 00:00:00 GMT\r\nX-Last: 2\r\nConnection: close\r\n\r\n"
			get := func(port int) string {
				resp, body, _ := rawResponse(t, port, req)
				return resp.Status + "\n" + body
			}
			m1, n1 := get(mport), get(nport)
			// The entries expire: NGINX's, valid to the second after the
			// first answer's (whole) second, is stale only once that
			// second is past, up to two seconds later.
			time.Sleep(2100 * time.Millisecond)
			m2, n2 := get(mport), get(nport)
			// NGINX's answer shows what the test is about.
			want := "Connection: close\nIf-Modified-Since: Sat, 01 Jan 2022 00:00:00 GMT\nIf-None-Match: \"e1\"\nX-First: 1\nX-Last: 2\n"
			if !strings.Contains(n2, want) {
				t.Fatalf("NGINX's revalidation is not as expected:\n%s\nwant in it\n%s", n2, want)
			}
			if m1 != n1 || m2 != n2 {
				t.Errorf("mosaic\n%s\n%s\nnginx\n%s\n%s", m1, m2, n1, n2)
			}
		})
	}
}

// rawResponse sends raw on a new connection and reads one response, its
// body and the error that ended the body's read.
func rawResponse(t *testing.T, port int, raw string) (*http.Response, string, error) {
	t.Helper()
	c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}
