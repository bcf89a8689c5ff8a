package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/fcgi"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/scgi"
	"github.com/mosaic-edge/mosaic/uwsgi"
)

// wireExchange is what one client saw on one connection: each answer's
// status, framing, Connection field and body, and whether the server
// then closed the connection.
func wireExchange(t *testing.T, port int, reqs ...string) string {
	t.Helper()
	c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	var out strings.Builder
	for _, raw := range reqs {
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(c, raw); err != nil {
			fmt.Fprintf(&out, "write: %v; ", err)
			return out.String()
		}
		method, _, _ := strings.Cut(raw, " ")
		req, _ := http.NewRequest(method, "/", nil)
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			fmt.Fprintf(&out, "read: %v; ", err)
			return out.String()
		}
		body, err := io.ReadAll(resp.Body)
		fmt.Fprintf(&out, "%s TE %v CL %q body %q err %v", resp.Status, resp.TransferEncoding,
			resp.Header.Get("Content-Length"), body, err)
		if resp.ProtoMinor == 0 {
			// NGINX says keep-alive to HTTP/1.1 as well; mosaic only
			// where the client asked for it.
			fmt.Fprintf(&out, " Connection %q", resp.Header.Get("Connection"))
		}
		out.WriteString("; ")
	}
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := br.ReadByte(); errors.Is(err, io.EOF) {
		out.WriteString("closed")
	} else {
		out.WriteString("open")
	}
	return out.String()
}

// unlengthedOrigin starts an HTTP upstream that answers without a
// length: chunked to HTTP/1.1, ended by the close to HTTP/1.0.
func unlengthedOrigin(t *testing.T) string {
	return testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		if req.ProtoMinor == 1 {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n6\r\nhello\n\r\n0\r\n\r\n")
		} else {
			io.WriteString(c, "HTTP/1.0 200 OK\r\n\r\nhello\n")
		}
	}).Addr()
}

// unlengthedApps starts a FastCGI, an SCGI and a uwsgi application that
// answer every request with a short body and no Content-Length, and
// returns their addresses.
func unlengthedApps(t *testing.T) (fcgiAddr, scgiAddr, uwsgiAddr string) {
	f := fcgiServe(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Cache-Control", "max-age=60")
		io.WriteString(w, "hello fastcgi\n")
	})
	s := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		req, err := scgi.ReadRequest(br, 0)
		if err != nil {
			return
		}
		io.CopyN(io.Discard, br, req.ContentLength)
		io.WriteString(c, "Content-Type: text/plain\r\n\r\nhello scgi\n")
	})
	u := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		p, err := uwsgi.ReadRequest(br)
		if err != nil {
			return
		}
		if v, _ := p.Get("CONTENT_LENGTH"); v != "" {
			n, _ := strconv.ParseInt(v, 10, 64)
			io.CopyN(io.Discard, br, n)
		}
		io.WriteString(c, "Status: 200 OK\r\nContent-Type: text/plain\r\n\r\nhello uwsgi\n")
	})
	return f, s.Addr(), u.Addr()
}

// fcgiServe serves h as a FastCGI application (net/http/fcgi, which
// answers without Content-Length) on a loopback port until the test ends,
// and returns its address.
func fcgiServe(t *testing.T, h http.HandlerFunc) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go fcgi.Serve(ln, h)
	return ln.Addr().String()
}

// TestGatewayUnknownLengthAsNGINX: a FastCGI, SCGI or uwsgi answer
// without Content-Length, or an HTTP upstream's (chunked, or ended by
// the close), goes to an HTTP/1.1 client chunked, however
// short, and the connection stays open; an HTTP/1.0 client that asked to
// keep the connection gets the body up to the close; a HEAD gets neither
// a length nor chunks. A fastcgi_cache hit of such an answer goes out as
// the miss did.
func TestGatewayUnknownLengthAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	fcgiAddr, scgiAddr, uwsgiAddr := unlengthedApps(t)
	httpAddr := unlengthedOrigin(t)
	dir := t.TempDir()
	for _, who := range []string{"nginx", "mosaic"} {
		if err := os.MkdirAll(filepath.Join(dir, who, "cache"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"n": "nginx", "m": "mosaic"}[who]
		return fmt.Sprintf(`fastcgi_cache_path %[5]s/%[6]s/cache keys_zone=fc:1m;
		server { listen 127.0.0.1:%[1]d;
			fastcgi_param REQUEST_METHOD $request_method; fastcgi_param SERVER_PROTOCOL $server_protocol;
			fastcgi_param REQUEST_URI $request_uri;
			location /fcgi/ { fastcgi_pass %[2]s; }
			location /cached/ { fastcgi_pass %[2]s; fastcgi_cache fc; fastcgi_cache_key $uri; fastcgi_cache_valid 200 1m; }
			location /scgi/ { scgi_pass %[3]s; }
			location /uwsgi/ { uwsgi_pass %[4]s; }
			location /http11/ { proxy_pass http://%[7]s; proxy_http_version 1.1; }
			location /http10/ { proxy_pass http://%[7]s; }
		}`, port, fcgiAddr, scgiAddr, uwsgiAddr, dir, sub, httpAddr)
	})
	get11 := func(p string) string { return "GET " + p + " HTTP/1.1\r\nHost: a.test\r\n\r\n" }
	head11 := func(p string) string { return "HEAD " + p + " HTTP/1.1\r\nHost: a.test\r\n\r\n" }
	get10 := func(p string) string { return "GET " + p + " HTTP/1.0\r\nConnection: keep-alive\r\n\r\n" }
	for _, p := range []string{"/fcgi/x", "/scgi/x", "/uwsgi/x", "/http11/x", "/http10/x"} {
		for _, reqs := range [][]string{
			{get11(p), get11(p)},
			{head11(p), get11(p)},
			{get10(p)},
		} {
			m, n := wireExchange(t, mport, reqs...), wireExchange(t, nport, reqs...)
			if m != n {
				t.Errorf("%q:\nmosaic %s\n nginx %s", reqs, m, n)
			}
		}
	}
	// The miss first, on its own, then the hits.
	for _, reqs := range [][]string{{get11("/cached/x")}, {get11("/cached/x"), head11("/cached/x")}, {get10("/cached/x")}} {
		m, n := wireExchange(t, mport, reqs...), wireExchange(t, nport, reqs...)
		if m != n {
			t.Errorf("%q:\nmosaic %s\n nginx %s", reqs, m, n)
		}
	}
}
