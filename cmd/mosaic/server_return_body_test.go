package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestServerReturnBeforeBodyLimitAsNGINX: a server-level return (the
// http-to-https redirect of most sites, a catch-all's 444, one inside a
// server-level if) answers in NGINX's server rewrite phase, before the
// location is chosen and client_max_body_size is compared with the
// request's Content-Length: an upload sent to the plain-HTTP port gets
// its redirect, not 413. A return inside a location, or a request no
// location matches, comes after that check and is refused, in both.
func TestServerReturnBeforeBodyLimitAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`client_max_body_size 1k;
			server { listen 127.0.0.1:%d; server_name redirect.test; return 301 https://$host$request_uri; }
			server { listen 127.0.0.1:%[1]d; server_name close.test; return 444; }
			server { listen 127.0.0.1:%[1]d; server_name if.test;
				if ($request_method = POST) { return 405; }
				location / { return 200 "served\n"; } }
			server { listen 127.0.0.1:%[1]d; server_name page.test; error_page 404 /nf; return 404;
				location = /nf { return 200 "page\n"; } }
			server { listen 127.0.0.1:%[1]d; server_name loc.test; location / { return 301 /elsewhere; } }
			server { listen 127.0.0.1:%[1]d; server_name nomatch.test; location = /only { return 204; } }`, port)
	})
	summary := func(port int, host string) string {
		req := fmt.Sprintf("POST /upload?x=1 HTTP/1.1\r\nHost: %s\r\nContent-Length: 300000000\r\nConnection: close\r\n\r\n", host)
		resp, _, err := testclient.RawTry("tcp", fmt.Sprintf("127.0.0.1:%d", port), req)
		if err != nil {
			return "no answer"
		}
		return fmt.Sprintf("%d Location=%q", resp.StatusCode, resp.Header.Get("Location"))
	}
	want := map[string]string{
		"redirect.test": `301 Location="https://redirect.test/upload?x=1"`,
		"close.test":    "no answer",
		"if.test":       `405 Location=""`,
		"page.test":     `404 Location=""`,
		"loc.test":      `413 Location=""`,
		"nomatch.test":  `413 Location=""`,
	}
	for host, w := range want {
		n, m := summary(nport, host), summary(mport, host)
		if n != w {
			t.Errorf("%s: nginx %s, the test expects %s", host, n, w)
		}
		if m != n {
			t.Errorf("%s: mosaic %s, nginx %s", host, m, n)
		}
	}
}

// TestServerReturnPageReadsBodyWithinLimit: an error page that a
// server-level return reaches is not refused by the request's
// Content-Length, but a body its content reads (a proxy) still comes
// through client_max_body_size: an upload over the limit, sent whole,
// reaches the upstream cut at the limit, not unbounded. NGINX, which
// compares the length only when it chooses a location by URI, sends a
// named location's upstream the whole body: a deliberate difference, not
// compared here.
func TestServerReturnPageReadsBodyWithinLimit(t *testing.T) {
	var got atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		got.Store(n)
	}))
	t.Cleanup(up.Close)
	port := freePort(t)
	startMosaic(t, t.TempDir(), fmt.Sprintf(`events {} http { client_max_body_size 1k;
		server { listen 127.0.0.1:{port}; error_page 404 = @up; return 404;
			location @up { proxy_pass %s; } } }`, up.URL), port)
	const size = 300000
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "POST /upload HTTP/1.1\r\nHost: a.test\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", size)
	go func() { _, _ = c.Write(make([]byte, size)) }()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	resp.Body.Close()
	if n := got.Load(); n > 1024 {
		t.Errorf("%d: the upstream read %d bytes of the body, over client_max_body_size 1k", resp.StatusCode, n)
	}
}
