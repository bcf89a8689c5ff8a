package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
)

// headEchoOrigin starts an upstream that answers each request with its
// header lines, one a line, as the body, after the status line and the
// response fields in fields ("Name: value\r\n" each), and closes the
// connection.
func headEchoOrigin(t *testing.T, fields string) string {
	t.Helper()
	return testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		c.SetDeadline(time.Now().Add(20 * time.Second))
		head, _, _, ok := readHead(br)
		if !ok {
			return
		}
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\n%sContent-Length: %d\r\n\r\n%s", fields, len(head), head)
	}).Addr()
}

// shownHeader is a response's header as text, sorted, less the fields
// that differ by design (Date, Server).
func shownHeader(h http.Header) string {
	var lines []string
	for k, vv := range h {
		if k != "Date" && k != "Server" {
			for _, v := range vv {
				lines = append(lines, k+": "+v)
			}
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestProxyConnectionTokensAsNGINX: NGINX does not parse the tokens of the
// client's Connection field: the fields it names go upstream like any
// other, and one that proxy_set_header sets (X-Real-IP, X-Forwarded-For,
// Host) is set all the same, the client's Connection line itself being
// replaced by NGINX's "Connection: close". The upstream echoes what it
// got.
func TestProxyConnectionTokensAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := headEchoOrigin(t, "")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; access_log off;
			location / { proxy_pass http://%s;
				proxy_set_header Host $host;
				proxy_set_header X-Real-IP $remote_addr;
				proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for; } }`, port, origin)
	})
	for _, conn := range []string{
		"X-Real-IP, X-Forwarded-For, Host, X-Secret, Cookie",
		"keep-alive, x-secret, Authorization, close",
	} {
		req := "GET /a HTTP/1.1\r\nHost: a.test\r\nX-Secret: s\r\nX-Real-IP: 9.9.9.9\r\nX-Forwarded-For: 8.8.8.8\r\n" +
			"Cookie: c=1\r\nAuthorization: Basic eDp5\r\nConnection: " + conn + "\r\n\r\n"
		_, mb, _ := rawResponse(t, mport, req)
		_, nb, _ := rawResponse(t, nport, req)
		if !strings.Contains(nb, "X-Secret: s\n") {
			t.Fatalf("NGINX did not pass X-Secret:\n%s", nb)
		}
		if mb != nb {
			t.Errorf("Connection: %s\nmosaic sent\n%s\nnginx sent\n%s", conn, mb, nb)
		}
	}
}

// TestProxyResponseHopFieldsAsNGINX: of the upstream's response fields,
// NGINX keeps back only Connection, Keep-Alive, Transfer-Encoding and
// Upgrade (ngx_http_upstream.c's headers_in table) and its hide list
// (Date, Server, X-Pad, X-Accel-*), Upgrade to HTTP/2 clients only:
// Proxy-Connection, Te, Upgrade and the fields that the upstream's
// Connection names reach an HTTP/1.1 client, whether or not that
// Connection also says close. (Trailer, which NGINX passes too, mosaic
// keeps back: TestProxyUpstreamTrailerAsNGINX.)
func TestProxyResponseHopFieldsAsNGINX(t *testing.T) {
	nginxPath(t)
	fields := "X-Up: 1\r\nKeep-Alive: timeout=5\r\nProxy-Connection: keep-alive\r\nTe: trailers\r\n" +
		"Trailer: X-T\r\nUpgrade: h2c\r\nX-Pad: p\r\nContent-Type: text/plain\r\n"
	closing := headEchoOrigin(t, "Connection: X-Up, close\r\n"+fields)
	naming := headEchoOrigin(t, "Connection: X-Up, X-Pad\r\n"+fields)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; access_log off;
			location /c { proxy_pass http://%s; }
			location /n { proxy_pass http://%s; } }`, port, closing, naming)
	})
	for _, path := range []string{"/c", "/n"} {
		req := "GET " + path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		m, _, _ := rawResponse(t, mport, req)
		n, _, _ := rawResponse(t, nport, req)
		n.Header.Del("Trailer") // kept back: TestProxyUpstreamTrailerAsNGINX
		if ms, ns := shownHeader(m.Header), shownHeader(n.Header); ms != ns {
			t.Errorf("%s: mosaic\n%s\nnginx\n%s", path, ms, ns)
		}
	}
}

// TestProxyAuthenticateAsNGINX: NGINX's proxy hides no Proxy-Authenticate
// by default (ngx_http_proxy_hide_headers; the upstream's headers_in table
// has no entry for it): an upstream's 407 reaches the client with its
// challenge, and proxy_hide_header keeps it back.
func TestProxyAuthenticateAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		c.SetDeadline(time.Now().Add(20 * time.Second))
		br.ReadString('\n')
		io.WriteString(c, "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"p\"\r\n"+
			"Content-Length: 2\r\nConnection: close\r\n\r\nno")
	}).Addr()
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; access_log off;
			location / { proxy_pass http://%[2]s; }
			location /hidden { proxy_pass http://%[2]s; proxy_hide_header Proxy-Authenticate; } }`, port, origin)
	})
	for _, path := range []string{"/a", "/hidden"} {
		req := "GET " + path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		m, mb, _ := rawResponse(t, mport, req)
		n, nb, _ := rawResponse(t, nport, req)
		if ms, ns := m.Status+"\n"+shownHeader(m.Header)+"\n"+mb, n.Status+"\n"+shownHeader(n.Header)+"\n"+nb; ms != ns {
			t.Errorf("%s: mosaic\n%s\nnginx\n%s", path, ms, ns)
		}
	}
}

// TestIgnoreInvalidHeadersAsNGINX: header lines whose names hold token
// bytes NGINX takes for invalid ("." and "_" without
// underscores_in_headers) are dropped by default and passed upstream with
// ignore_invalid_headers off (Jenkins' documented configuration); so is a
// name outside the token characters ("X@At"), which NGINX takes as those.
func TestIgnoreInvalidHeadersAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := headEchoOrigin(t, "")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; access_log off;
			location / { proxy_pass http://%[2]s; } }
			server { listen 127.0.0.1:%[1]d; server_name off.test; ignore_invalid_headers off; access_log off;
			location / { proxy_pass http://%[2]s; } }`, port, origin)
	})
	for _, host := range []string{"a.test", "off.test"} {
		req := "GET /a HTTP/1.1\r\nHost: " + host + "\r\nX.Dot: 1\r\nX@At: 2\r\nX_Under: 3\r\nX-Fine: 4\r\nConnection: close\r\n\r\n"
		m, mb, _ := rawResponse(t, mport, req)
		n, nb, _ := rawResponse(t, nport, req)
		if m.StatusCode != n.StatusCode || mb != nb {
			t.Errorf("%s: mosaic %d sent\n%s\nnginx %d sent\n%s", host, m.StatusCode, mb, n.StatusCode, nb)
		}
	}
}

// responseFields reads frames until stream id has its response header and
// returns its regular fields as "name: value" lines, sorted, less date
// and server; nil if the stream is reset or the connection ends first.
func (h *h2cConn) responseFields(id uint32) []string {
	_ = h.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		f, err := h.fr.ReadFrame()
		if err != nil {
			return nil
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = h.fr.WriteSettingsAck()
			}
		case *http2.MetaHeadersFrame:
			if f.StreamID != id {
				continue
			}
			var lines []string
			for _, hf := range f.RegularFields() {
				if hf.Name != "date" && hf.Name != "server" {
					lines = append(lines, hf.Name+": "+hf.Value)
				}
			}
			slices.Sort(lines)
			return lines
		case *http2.RSTStreamFrame:
			if f.StreamID == id {
				return nil
			}
		}
	}
}

// TestProxyResponseHopFieldsH2: the upstream's connection-specific fields
// never reach an HTTP/2 client (RFC 9113, 8.2.2: they make its response
// malformed): mosaic keeps back Connection, Keep-Alive, Transfer-Encoding,
// Upgrade, Proxy-Connection, Te and Trailer there, where NGINX 1.22 sends
// the last three (the difference proxy's README documents); the fields the
// upstream's Connection names pass over HTTP/2 as over HTTP/1.1, in both.
func TestProxyResponseHopFieldsH2(t *testing.T) {
	nginxPath(t)
	origin := headEchoOrigin(t, "Connection: X-Up, close\r\nX-Up: 1\r\nKeep-Alive: timeout=5\r\n"+
		"Proxy-Connection: keep-alive\r\nTe: trailers\r\nTrailer: X-T\r\nUpgrade: h2c\r\nContent-Type: text/plain\r\n")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d http2; access_log off;
			location / { proxy_pass http://%s; } }`, port, origin)
	})
	hop := []string{"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"}
	var got [2][]string
	for i, port := range []int{mport, nport} {
		c := dialH2C(t, port)
		c.headers(t, 1, true, h2cGet("/a")...)
		if got[i] = c.responseFields(1); got[i] == nil {
			t.Fatalf("port %d: no response header", port)
		}
	}
	for _, l := range got[0] {
		name, _, _ := strings.Cut(l, ": ")
		if slices.Contains(hop, name) {
			t.Errorf("mosaic sent %q over HTTP/2:\n%s", l, strings.Join(got[0], "\n"))
		}
	}
	// The documented difference: NGINX sends these three.
	for _, want := range []string{"proxy-connection: keep-alive", "te: trailers", "trailer: X-T"} {
		if !slices.Contains(got[1], want) {
			t.Errorf("NGINX did not send %q (the README's difference):\n%s", want, strings.Join(got[1], "\n"))
		}
	}
	// Apart from those, the same fields.
	var nginxLess []string
	for _, l := range got[1] {
		name, _, _ := strings.Cut(l, ": ")
		if !slices.Contains(hop, name) {
			nginxLess = append(nginxLess, l)
		}
	}
	if m, n := strings.Join(got[0], "\n"), strings.Join(nginxLess, "\n"); m != n {
		t.Errorf("mosaic\n%s\nnginx (less its connection-specific fields)\n%s", m, n)
	}
}

// TestProxyUpstreamTrailerAsNGINX: the fields an upstream's Trailer names
// reach the client in the header, as from NGINX, for which Trailer is a
// field like another. mosaic keeps the Trailer field itself back, the
// difference proxy's README documents: its HTTP/1.1 writer takes the
// fields that a handler's Trailer names for trailers (net/http's
// convention), and dropped Content-Type, Set-Cookie and X-Up from this
// Content-Length answer, which has no trailer section.
func TestProxyUpstreamTrailerAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := headEchoOrigin(t, "Trailer: X-Up, Content-Type, Set-Cookie\r\nX-Up: 1\r\nContent-Type: text/plain\r\nSet-Cookie: a=1\r\n")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; access_log off;
			location / { proxy_pass http://%s; } }`, port, origin)
	})
	req := "GET /a HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
	m, mb, _ := rawResponse(t, mport, req)
	n, nb, _ := rawResponse(t, nport, req)
	if v, ok := m.Header["Trailer"]; ok {
		t.Errorf("mosaic passed Trailer %q", v)
	}
	if n.Header.Get("Trailer") == "" {
		t.Errorf("NGINX kept Trailer back: the README's difference is gone")
	}
	n.Header.Del("Trailer")
	if ms, ns := shownHeader(m.Header)+"\n"+mb, shownHeader(n.Header)+"\n"+nb; ms != ns {
		t.Errorf("mosaic\n%s\nnginx\n%s", ms, ns)
	}
}
