package proxy_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/internal/testpki"
	"github.com/mosaic-edge/mosaic/proxy"
)

// group is an upstream group named name with o as its server: name is
// $proxy_host, the name verified, and no DNS lookup is made.
func group(t *testing.T, name string, o *httptest.Server, keepalive int) *proxy.Upstream {
	t.Helper()
	return mustUpstream(t, name, keepalive, server(strings.TrimPrefix(o.URL, "https://")))
}

func constName(name string) func(*http.Request) string {
	return func(*http.Request) string { return name }
}

// nameFromHeader is a Name taken from the request, like a proxy_ssl_name
// with a variable.
func nameFromHeader(r *http.Request) string { return r.Header.Get("X-Name") }

// The zero TLSOptions verify against the system's roots and send SNI;
// each field relaxes or changes one check.
func TestTLSOptions(t *testing.T) {
	root := testpki.NewRootCA(t, "Test Root")
	o := testpki.NewOrigin(t, root.Issue(t, false, "origin.test"), nil)
	named := group(t, "origin.test", o, 0)
	other := group(t, "backend", o, 0)
	for _, c := range []struct {
		what   string
		up     *proxy.Upstream
		opts   proxy.TLSOptions
		status int
		sni    string
	}{
		{"zero value: the system's roots do not know the origin's", named, proxy.TLSOptions{}, 502, ""},
		{"trusted root, SNI is the proxied host", named, proxy.TLSOptions{RootCAs: root.Pool()}, 200, "origin.test"},
		{"NGINX's defaults", named, proxy.TLSOptions{SkipVerify: true, NoSNI: true}, 200, ""},
		{"no verification, SNI sent", named, proxy.TLSOptions{SkipVerify: true}, 200, "origin.test"},
		{"wrong name", named, proxy.TLSOptions{RootCAs: root.Pool(), Name: constName("other.test")}, 502, ""},
		{"group name not in the certificate", other, proxy.TLSOptions{RootCAs: root.Pool()}, 502, ""},
		{"Name changes the name verified and sent", other, proxy.TLSOptions{RootCAs: root.Pool(), Name: constName("origin.test")}, 200, "origin.test"},
		{"a port in Name is dropped", other, proxy.TLSOptions{RootCAs: root.Pool(), Name: constName("origin.test:8443")}, 200, "origin.test"},
		{"without SNI the name is still verified", named, proxy.TLSOptions{RootCAs: root.Pool(), NoSNI: true}, 200, ""},
		{"without SNI a wrong name still fails", named, proxy.TLSOptions{RootCAs: root.Pool(), NoSNI: true, Name: constName("other.test")}, 502, ""},
		{"an empty name fails verification", named, proxy.TLSOptions{RootCAs: root.Pool(), Name: constName("")}, 502, ""},
	} {
		f := newFront(t, proxyTo(t, "https://"+c.up.Name, proxy.Options{Upstream: c.up, TLS: c.opts}))
		status, body, _ := get(t, f.URL+"/")
		if status != c.status || (status == 200 && !strings.HasPrefix(body, "sni="+c.sni+" ")) {
			t.Errorf("%s: %d %q, want %d with SNI %q", c.what, status, body, c.status, c.sni)
		}
	}
}

func TestTLSOptionsValidated(t *testing.T) {
	p, _ := proxy.ParsePass("https://127.0.0.1:1")
	for _, o := range []proxy.TLSOptions{
		{MaxChainLength: -1},
		{MinVersion: tls.VersionTLS13, MaxVersion: tls.VersionTLS12},
	} {
		if _, err := proxy.New(proxy.Options{Pass: p, TLS: o}); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

func TestTLSVersionsAndClientCertificate(t *testing.T) {
	root := testpki.NewRootCA(t, "Test Root")
	old := testpki.NewOrigin(t, root.Issue(t, false, "origin.test"), func(o *httptest.Server) { o.TLS.MaxVersion = tls.VersionTLS12 })
	mtls := testpki.NewOrigin(t, root.Issue(t, false, "origin.test"), func(o *httptest.Server) {
		o.TLS.ClientAuth, o.TLS.ClientCAs = tls.RequireAndVerifyClientCert, root.Pool()
	})
	client := root.Issue(t, true, "mosaic-client")
	for _, c := range []struct {
		what   string
		origin *httptest.Server
		opts   proxy.TLSOptions
		status int
		want   string
	}{
		{"TLS 1.3 only against a TLS 1.2 origin", old, proxy.TLSOptions{MinVersion: tls.VersionTLS13}, 502, ""},
		{"Go's defaults against a TLS 1.2 origin", old, proxy.TLSOptions{}, 200, "version=TLS 1.2"},
		{"no client certificate", mtls, proxy.TLSOptions{}, 502, ""},
		{"client certificate", mtls, proxy.TLSOptions{Certificate: &client}, 200, "client=mosaic-client"},
	} {
		c.opts.RootCAs = root.Pool()
		up := group(t, "origin.test", c.origin, 0)
		f := newFront(t, proxyTo(t, "https://origin.test", proxy.Options{Upstream: up, TLS: c.opts}))
		if status, body, _ := get(t, f.URL+"/"); status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %q, want %d %q", c.what, status, body, c.status, c.want)
		}
	}
}

// Sessions are resumed, and a resumed session is verified again: without
// SNI, Go caches sessions by the server's address, so a request for
// another name is offered the same session and must still be refused.
func TestTLSResumedSessionsAreVerified(t *testing.T) {
	root := testpki.NewRootCA(t, "Test Root")
	o := testpki.NewOrigin(t, root.Issue(t, false, "origin.test"), nil)
	up := group(t, "origin.test", o, 0)
	f := newFront(t, proxyTo(t, "https://origin.test", proxy.Options{Upstream: up, TLS: proxy.TLSOptions{
		RootCAs: root.Pool(), NoSNI: true, Name: nameFromHeader,
	}}))
	for i, c := range []struct {
		name   string
		status int
		want   string
	}{
		{"origin.test", 200, "resumed=false"},
		{"origin.test", 200, "resumed=true"},
		{"other.test", 502, ""},
	} {
		if status, body, _ := get(t, f.URL+"/", "X-Name", c.name); status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("request %d for %s: %d %q, want %d %q", i+1, c.name, status, body, c.status, c.want)
		}
	}
}

// A kept-alive TLS connection serves only requests that would have opened
// it with the same checks: the same handler and the same name.
func TestTLSKeepaliveMatchesVerification(t *testing.T) {
	root := testpki.NewRootCA(t, "Test Root")
	cc := &connCounter{}
	o := testpki.NewOrigin(t, root.Issue(t, false, "origin.test"), func(o *httptest.Server) { o.Config.ConnState = cc.hook })
	up := group(t, "origin.test", o, 4)
	keepalive := func(opts proxy.TLSOptions) *front {
		return newFront(t, proxyTo(t, "https://origin.test", proxy.Options{
			Upstream: up, HTTPVersion: "1.1", SetHeaders: keepaliveHeaders, TLS: opts,
		}))
	}
	insecure := keepalive(proxy.TLSOptions{SkipVerify: true})
	strict := keepalive(proxy.TLSOptions{RootCAs: testpki.NewRootCA(t, "Other Root").Pool()})
	byName := keepalive(proxy.TLSOptions{RootCAs: root.Pool(), Name: nameFromHeader})

	for range 3 {
		if status, _, _ := get(t, insecure.URL+"/"); status != 200 {
			t.Fatalf("without verification: status %d", status)
		}
	}
	if n := cc.count(); n != 1 {
		t.Errorf("%d connections for 3 requests, want 1", n)
	}
	if status, _, _ := get(t, strict.URL+"/"); status != 502 {
		t.Errorf("another handler's unverified connection was reused: status %d", status)
	}
	if status, _, _ := get(t, byName.URL+"/", "X-Name", "origin.test"); status != 200 {
		t.Fatalf("verified: status %d", status)
	}
	if status, _, _ := get(t, byName.URL+"/", "X-Name", "other.test"); status != 502 {
		t.Errorf("a connection verified for origin.test served other.test: status %d", status)
	}
}

// coalescingConn sends what is written between hold and flush to the
// socket in one piece: one TCP segment that carries several TLS records.
type coalescingConn struct {
	net.Conn
	mu   sync.Mutex
	held *bytes.Buffer
}

func (h *coalescingConn) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held != nil {
		return h.held.Write(p)
	}
	return h.Conn.Write(p)
}

func (h *coalescingConn) hold() {
	h.mu.Lock()
	h.held = new(bytes.Buffer)
	h.mu.Unlock()
}

func (h *coalescingConn) flush() {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, _ = h.Conn.Write(h.held.Bytes())
	h.held = nil
}

// TestTLSKeptConnectionChecked: over TLS an upstream's stray record that
// came in the same segment as its response waits in the TLS layer, out
// of the socket probe's sight; the check before reuse reads it there too,
// so that the next client does not get it as its answer. A connection
// with nothing more to read is reused.
func TestTLSKeptConnectionChecked(t *testing.T) {
	cert := testpki.SelfSigned(t, "origin.test")
	var conns atomic.Int32
	o := testorigin.NewRaw(t, func(raw net.Conn, _ *bufio.Reader) {
		conns.Add(1)
		cc := &coalescingConn{Conn: raw}
		c := tls.Server(cc, &tls.Config{Certificates: []tls.Certificate{cert}})
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			io.Copy(io.Discard, req.Body)
			if req.Method != http.MethodHead {
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				continue
			}
			cc.hold()
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n")
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nPWNED!")
			cc.flush()
		}
	})
	up := mustUpstream(t, "origin.test", 4, server(o.Addr()))
	f := newFront(t, proxyTo(t, "https://origin.test", proxy.Options{Upstream: up, HTTPVersion: "1.1",
		SetHeaders: keepaliveHeaders, TLS: proxy.TLSOptions{SkipVerify: true}}))
	for i := range 3 {
		if status, body, _ := get(t, f.URL+"/"); status != 200 || body != "ok" {
			t.Fatalf("request %d: %d %q", i, status, body)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 3 requests in a row, want 1 kept", n)
	}
	req, _ := http.NewRequest(http.MethodHead, f.URL+"/head", nil)
	resp, err := f.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	time.Sleep(50 * time.Millisecond)
	if status, body, _ := get(t, f.URL+"/next"); status != 200 || body != "ok" {
		t.Errorf("the request after a stray record got %d %q, want the origin's answer to it", status, body)
	}
}
