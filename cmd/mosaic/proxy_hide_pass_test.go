package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/internal/testorigin"
)

// TestProxyHidePassHeaderMatchesNGINX: proxy_hide_header hides an
// upstream's header; proxy_pass_header passes one hidden by default
// (Server, Date, X-Pad, X-Accel-Expires); a level with proxy_hide_header
// lines of its own does not inherit those of the level above; the
// headers the client gets are those NGINX gives on the same
// configuration.
func TestProxyHidePassHeaderMatchesNGINX(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Server", "origin-server")
		h.Set("Date", "Mon, 01 Jan 2001 00:00:00 GMT")
		h.Set("X-Pad", "avoid browser bug")
		h.Set("X-Accel-Expires", "@1")
		h.Set("X-Accel-Custom", "custom")
		h.Set("X-Secret", "s3cret")
		h.Set("X-Keep", "keep")
		io.WriteString(w, "ok")
	}))
	t.Cleanup(origin.Close)
	ports := bothServers(t, func(_, listen string) string {
		return fmt.Sprintf(`access_log off;
			proxy_hide_header X-Keep;
			server {
				%s
				location /default/ { proxy_pass %s; }
				location /hide/ {
					proxy_pass %[2]s;
					proxy_hide_header X-Secret;
					proxy_pass_header Server;
					proxy_pass_header Date;
					proxy_pass_header X-Pad;
					proxy_pass_header X-Accel-Expires;
				}
			}`, listen, origin.URL)
	})
	names := []string{"Server", "Date", "X-Pad", "X-Accel-Expires", "X-Accel-Custom", "X-Secret", "X-Keep"}
	headers := func(port int, path string) string {
		c := &http.Client{Timeout: 5 * time.Second}
		resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		var out []string
		for _, n := range names {
			v, ok := resp.Header[n]
			switch {
			case n == "Server" && (!ok || v[0] != "origin-server"):
				// NGINX sends its own; mosaic sends none (server_tokens).
				out = append(out, n+": not the origin's")
			case !ok:
				out = append(out, n+": -")
			case n == "Date" && !strings.HasPrefix(v[0], "Mon, 01 Jan 2001"):
				out = append(out, n+": own") // the proxy's own
			default:
				out = append(out, n+": "+strings.Join(v, ","))
			}
		}
		return strings.Join(out, "; ")
	}
	want := map[string]string{
		"/default/": "Server: not the origin's; Date: own; X-Pad: -; X-Accel-Expires: -; X-Accel-Custom: custom; X-Secret: s3cret; X-Keep: -",
		"/hide/":    "Server: origin-server; Date: Mon, 01 Jan 2001 00:00:00 GMT; X-Pad: avoid browser bug; X-Accel-Expires: @1; X-Accel-Custom: custom; X-Secret: -; X-Keep: keep",
	}
	for _, path := range []string{"/default/", "/hide/"} {
		m := headers(ports["mosaic"], path)
		if m != want[path] {
			t.Errorf("mosaic %s:\n got  %s\n want %s", path, m, want[path])
		}
		if np, ok := ports["nginx"]; ok {
			if n := headers(np, path); n != m {
				t.Errorf("%s:\n mosaic %s\n NGINX  %s", path, m, n)
			}
		}
	}
}

// TestProxyRepeatedContentTypeAsNGINX: of an upstream's Content-Type
// lines NGINX keeps the last, the one the client gets and the one that
// $sent_http_content_type and a map of it see (h5bp's expires idiom).
func TestProxyRepeatedContentTypeAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		for {
			if _, err := http.ReadRequest(br); err != nil {
				return
			}
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Type: text/css; charset=utf-8\r\nContent-Length: 2\r\n\r\nok")
		}
	})
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return fmt.Sprintf(`map $sent_http_content_type $kind { default other; ~^text/html html; ~^text/css css; }
			server {
				listen 127.0.0.1:%d;
				location / { proxy_pass http://%s; add_header X-Seen "$sent_http_content_type|$kind"; }
			}`, port, origin.Addr())
	})
	req := "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
	m, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
	n, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
	for _, k := range []string{"Content-Type", "X-Seen"} {
		if fmt.Sprint(m.Header[k]) != fmt.Sprint(n.Header[k]) {
			t.Errorf("%s: mosaic %q, NGINX %q", k, m.Header[k], n.Header[k])
		}
	}
}
