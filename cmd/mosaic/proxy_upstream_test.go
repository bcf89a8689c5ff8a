package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
)

// The upstream side of proxy_pass against Debian's NGINX: both servers in
// front of origins that send the same bytes.

// oneShot sends a request on a connection of its own, as another user of
// the server would, and returns the status and body (0 and the error's
// text when there is no response).
func oneShot(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const keptUpstreamBlock = `
upstream backend { server {origin}; keepalive 4; }
server {
	listen 127.0.0.1:{port};
	location / {
		proxy_pass http://backend;
		proxy_http_version 1.1;
		proxy_set_header Connection "";
	}
}`

// keptBlock fills keptUpstreamBlock for startBoth with each server's
// origin.
func keptBlock(origins map[string]string) func(who string, port int) string {
	return func(who string, port int) string {
		return strings.NewReplacer("{origin}", origins[who], "{port}", fmt.Sprint(port)).Replace(keptUpstreamBlock)
	}
}

// TestStrayUpstreamBytesAsNGINX: an origin writes bytes where no body
// belongs (after a HEAD's head, past its Content-Length) a moment after
// its response. NGINX closes the idle connection when they arrive; in
// both servers another client's request then gets the origin's answer
// to it, not those bytes.
func TestStrayUpstreamBytesAsNGINX(t *testing.T) {
	nginxPath(t)
	for _, tc := range []struct{ name, method, head string }{
		{"HEAD with a body", "HEAD", "HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n"},
		{"more than Content-Length", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			origins := map[string]string{}
			for _, who := range []string{"m", "n"} {
				origins[who] = testorigin.NewRaw(t, testorigin.StrayAfter(tc.head)).Addr()
			}
			mport, nport := startBoth(t, t.TempDir(), keptBlock(origins))
			for who, port := range map[string]int{"nginx": nport, "mosaic": mport} {
				base := fmt.Sprintf("http://127.0.0.1:%d", port)
				oneShot(t, tc.method, base+"/first", "")
				time.Sleep(40 * time.Millisecond)
				if status, body := oneShot(t, "GET", base+"/victim", ""); body != "victim-reply" {
					t.Errorf("%s: the next client got %d %q, want \"victim-reply\"", who, status, body)
				}
			}
		})
	}
}

// TestStalePOSTAsNGINX: a POST sent whole on a kept-alive connection that
// the origin closes without answering (it acted on it, then went away).
// Both servers answer 502 and do not send it again.
func TestStalePOSTAsNGINX(t *testing.T) {
	nginxPath(t)
	type origin struct {
		addr         string
		posts, conns atomic.Int32
	}
	origins := map[string]*origin{"m": {}, "n": {}}
	addrs := map[string]string{}
	for who, o := range origins {
		o.addr = testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
			first := o.conns.Add(1) == 1
			for {
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				io.Copy(io.Discard, req.Body)
				if req.Method == http.MethodPost {
					o.posts.Add(1)
					if first {
						return
					}
				}
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			}
		}).Addr()
		addrs[who] = o.addr
	}
	mport, nport := startBoth(t, t.TempDir(), keptBlock(addrs))
	for who, port := range map[string]int{"n": nport, "m": mport} {
		base := fmt.Sprintf("http://127.0.0.1:%d", port)
		oneShot(t, "GET", base+"/", "")
		status, _ := oneShot(t, "POST", base+"/pay", "amount=100")
		if n := origins[who].posts.Load(); n != 1 || status != 502 {
			t.Errorf("%s: the origin saw the POST %d times, the client got %d; want once and 502", who, n, status)
		}
	}
}

// TestMalformedUpstreamHeadsAsNGINX sends the same heads to both servers.
// Where mosaic differs it is stricter, as its README says: a status below
// 100 is 502 (NGINX relays it as it came). Where both answer 200 the
// bodies must agree: chunk lines ended by a bare LF are read, as NGINX
// reads them, and an HTTP/1.0 response with Transfer-Encoding is framed
// by it, not passed on chunk sizes and all.
func TestMalformedUpstreamHeadsAsNGINX(t *testing.T) {
	nginxPath(t)
	cases := map[string]struct {
		head   string
		mosaic int // 0: as NGINX
	}{
		"/space": {"HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nok", 0},
		"/fold":  {"HTTP/1.1 200 OK\r\nX-F: a\r\n b\r\nContent-Length: 2\r\n\r\nok", 0},
		"/twocl": {"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok", 0},
		"/099":   {"HTTP/1.1 099 X\r\nContent-Length: 2\r\n\r\nok", 502},
		"/lf":    {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\nok\n0\n\n", 0},
		"/te10":  {"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", 0},
	}
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		if req, err := http.ReadRequest(br); err == nil {
			io.WriteString(c, cases[req.URL.Path].head)
		}
	})
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; location / { proxy_pass http://%s; } }`, port, o.Addr())
	})
	for path, tc := range cases {
		ns, nb := oneShot(t, "GET", fmt.Sprintf("http://127.0.0.1:%d%s", nport, path), "")
		ms, mb := oneShot(t, "GET", fmt.Sprintf("http://127.0.0.1:%d%s", mport, path), "")
		want := ns
		if tc.mosaic != 0 {
			want = tc.mosaic
		}
		if ms != want || ms == http.StatusOK && mb != nb {
			t.Errorf("%s: mosaic %d %q, want %d (nginx %d %q)", path, ms, mb, want, ns, nb)
		}
	}
}

// TestRequestLineFromVariablesEscaped: "set $args $uri" puts the decoded
// URI, CR LF and all, into the request line. NGINX sends it so, and the
// origin reads a header the client chose; mosaic escapes what cannot
// stand in a request line. The path goes escaped again from the decoded
// URI, as NGINX sends it after "set $args" (TestSetArgsProxiedAsNGINX).
func TestRequestLineFromVariablesEscaped(t *testing.T) {
	nginxPath(t)
	got := make(chan string, 2)
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		req, err := http.ReadRequest(br)
		if err != nil {
			got <- "unreadable: " + err.Error()
			return
		}
		got <- fmt.Sprintf("%s injected=%q", req.RequestURI, req.Header.Get("X-Injected"))
		io.WriteString(c, "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok")
	})
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; location / { set $args $uri; proxy_pass http://%s; } }`, port, o.Addr())
	})
	for who, port := range map[string]int{"nginx": nport, "mosaic": mport} {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "GET /a%20HTTP/1.1%0d%0aX-Injected:%20yes%0d%0a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		io.ReadAll(c)
		c.Close()
		line := <-got
		t.Logf("%s: the origin got %s", who, line)
		if want := `/a%20HTTP/1.1%0D%0AX-Injected:%20yes%0D%0A?/a%20HTTP/1.1%0D%0AX-Injected:%20yes%0D%0A injected=""`; who == "mosaic" && line != want {
			t.Errorf("mosaic: the origin got %s, want %s", line, want)
		}
	}
}
