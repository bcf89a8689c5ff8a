package proxy_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"slices"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/vars"
)

// capturingOrigin records the raw head of each request it receives and
// answers with a fixed response.
type capturingOrigin struct {
	*testorigin.Raw
	heads chan string
}

func newCapturingOrigin(t *testing.T, response string) *capturingOrigin {
	t.Helper()
	o := &capturingOrigin{heads: make(chan string, 16)}
	o.Raw = testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		for {
			var head strings.Builder
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					return
				}
				head.WriteString(line)
				if line == "\r\n" {
					break
				}
			}
			o.heads <- head.String()
			io.WriteString(c, response)
		}
	})
	return o
}

// next returns the next request head, parsed, with its header lines in
// the order they were sent.
func (o *capturingOrigin) next(t *testing.T) (*http.Request, []string) {
	t.Helper()
	head := <-o.heads
	req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(head)))
	if err != nil {
		t.Fatalf("parse %q: %v", head, err)
	}
	lines := strings.Split(strings.TrimSuffix(head, "\r\n\r\n"), "\r\n")
	return req, lines[1:]
}

// rawRequest sends a request written by hand and returns the response.
func rawRequest(t *testing.T, addr, request string) (*http.Response, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, request); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

const okResponse = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"

func TestRequestHeaders(t *testing.T) {
	o := newCapturingOrigin(t, okResponse)
	h := proxyTo(t, "http://"+o.Addr(), proxy.Options{SetHeaders: []proxy.Header{
		proxy.Static("X-Set", "v"),
		proxy.Static("X-Remove", ""),
		{Name: "X-Forwarded-For", Value: func(r *http.Request) string {
			v, _ := vars.FromContext(r.Context()).Get("proxy_add_x_forwarded_for")
			return v
		}},
		{Name: "X-Proxy-Host", Value: func(r *http.Request) string {
			v, _ := vars.FromContext(r.Context()).Get("proxy_host")
			return v
		}},
		proxy.Static("X-Bad", "a\r\nInjected: yes"),
	}})
	f := newFront(t, h)

	resp, body := rawRequest(t, hostOf(f.Server), "GET /h?q=1 HTTP/1.1\r\n"+
		"Host: front.example\r\n"+
		"User-Agent: test-agent\r\n"+
		"X-Keep: 1\r\n"+
		"X-Keep: 2\r\n"+
		"X-Drop: secret\r\n"+
		"Connection: keep-alive, X-Drop\r\n"+
		"Keep-Alive: timeout=5\r\n"+
		"Proxy-Connection: keep-alive\r\n"+
		"TE: trailers\r\n"+
		"Upgrade: h2c\r\n"+
		"X-Remove: gone\r\n"+
		"X-Set: from-client\r\n"+
		"X-Forwarded-For: 10.0.0.1\r\n"+
		"\r\n")
	if resp.StatusCode != 200 || body != "ok" {
		t.Fatalf("got %d %q", resp.StatusCode, body)
	}
	req, lines := o.next(t)
	if req.Proto != "HTTP/1.0" || req.RequestURI != "/h?q=1" {
		t.Errorf("request line: %s %s", req.RequestURI, req.Proto)
	}
	want := []string{
		"X-Set: v",
		"X-Forwarded-For: 10.0.0.1, 127.0.0.1",
		"X-Proxy-Host: " + o.Addr(),
		"Host: " + o.Addr(),
		"Connection: close",
		"Proxy-Connection: keep-alive", // passed, as NGINX passes it
		"User-Agent: test-agent",
		"X-Drop: secret", // named by the client's Connection, passed as NGINX does
		"X-Keep: 1",
		"X-Keep: 2",
	}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Errorf("upstream header lines:\n got %q\nwant %q", lines, want)
	}
	if got := f.lastVar("proxy_host"); got != o.Addr() {
		t.Errorf("$proxy_host = %q", got)
	}
}

func TestNoForwardingHeadersByDefault(t *testing.T) {
	o := newCapturingOrigin(t, okResponse)
	f := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{}))
	if status, _, _ := get(t, f.URL+"/"); status != 200 {
		t.Fatalf("status %d", status)
	}
	req, _ := o.next(t)
	for _, name := range []string{"X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "X-Real-Ip", "Forwarded", "Via"} {
		if v := req.Header.Get(name); v != "" {
			t.Errorf("%s: %q added", name, v)
		}
	}
	if got := f.lastVar("proxy_add_x_forwarded_for"); got != "127.0.0.1" {
		t.Errorf("$proxy_add_x_forwarded_for = %q", got)
	}
}

func TestHostAndConnectionOverride(t *testing.T) {
	o := newCapturingOrigin(t, okResponse)
	h := proxyTo(t, "http://"+o.Addr(), proxy.Options{
		HTTPVersion: "1.1",
		SetHeaders: []proxy.Header{
			{Name: "Host", Value: func(r *http.Request) string { return r.Host }},
			proxy.Static("Connection", ""),
		},
	})
	f := newFront(t, h)
	if status, _, _ := get(t, f.URL+"/"); status != 200 {
		t.Fatalf("status %d", status)
	}
	req, lines := o.next(t)
	if req.Proto != "HTTP/1.1" {
		t.Errorf("proto %s", req.Proto)
	}
	if req.Host != hostOf(f.Server) {
		t.Errorf("Host %q, want the client's %q", req.Host, hostOf(f.Server))
	}
	for _, l := range lines {
		if strings.HasPrefix(strings.ToLower(l), "connection:") {
			t.Errorf("Connection sent: %q", l)
		}
	}
}

func TestUpgradeHeaderOnlyWhenConfigured(t *testing.T) {
	o := newCapturingOrigin(t, okResponse)
	h := proxyTo(t, "http://"+o.Addr(), proxy.Options{
		HTTPVersion: "1.1",
		SetHeaders: []proxy.Header{
			{Name: "Upgrade", Value: func(r *http.Request) string { return r.Header.Get("Upgrade") }},
			proxy.Static("Connection", "upgrade"),
		},
	})
	f := newFront(t, h)
	rawRequest(t, hostOf(f.Server), "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n")
	req, _ := o.next(t)
	if req.Header.Get("Upgrade") != "h2c" || req.Header.Get("Connection") != "upgrade" {
		t.Errorf("Upgrade %q Connection %q", req.Header.Get("Upgrade"), req.Header.Get("Connection"))
	}
}

func TestResponseHeaders(t *testing.T) {
	const response = "HTTP/1.1 200 OK\r\n" +
		"Server: origin\r\n" +
		"Date: Mon, 01 Jan 2001 00:00:00 GMT\r\n" +
		"X-Pad: avoid browser bug\r\n" +
		"X-Accel-Expires: 10\r\n" +
		"X-Custom: c\r\n" +
		"X-Other: o\r\n" +
		"Keep-Alive: timeout=1\r\n" +
		"Connection: X-Hop\r\n" +
		"X-Hop: h\r\n" +
		"Content-Length: 4\r\n\r\nbody"
	o := newCapturingOrigin(t, response)

	f := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{}))
	status, body, hdr := get(t, f.URL+"/")
	if status != 200 || body != "body" {
		t.Fatalf("got %d %q", status, body)
	}
	for _, name := range []string{"Server", "X-Pad", "X-Accel-Expires", "Keep-Alive"} {
		if v := hdr.Get(name); v != "" {
			t.Errorf("%s passed: %q", name, v)
		}
	}
	// NGINX reads no tokens of the upstream's Connection.
	if v := hdr.Get("X-Hop"); v != "h" {
		t.Errorf("X-Hop, named by Connection, kept back: %q", v)
	}
	if d := hdr.Get("Date"); d == "" || strings.Contains(d, "2001") {
		t.Errorf("Date %q: want the proxy's own", d)
	}
	if hdr.Get("X-Custom") != "c" || hdr.Get("Content-Length") != "4" {
		t.Errorf("headers lost: %v", hdr)
	}
	if ct, ok := hdr["Content-Type"]; ok {
		t.Errorf("Content-Type %q invented", ct)
	}

	f2 := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{
		PassHeaders: []string{"server", "X-Accel-Expires"},
		HideHeaders: []string{"x-custom"},
	}))
	_, _, hdr = get(t, f2.URL+"/")
	if hdr.Get("Server") != "origin" || hdr.Get("X-Accel-Expires") != "10" {
		t.Errorf("proxy_pass_header ignored: %v", hdr)
	}
	if hdr.Get("X-Custom") != "" || hdr.Get("X-Other") != "o" {
		t.Errorf("proxy_hide_header: %v", hdr)
	}
}

func TestRequestBodyFraming(t *testing.T) {
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			b, _ := io.ReadAll(req.Body)
			out := fmt.Sprintf("%s cl=%d te=%v body=%s", req.Proto, req.ContentLength, req.TransferEncoding, b)
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(out), out)
		}
	})
	post := func(url string, body io.Reader, length int64) string {
		req, _ := http.NewRequest(http.MethodPost, url, body)
		req.ContentLength = length
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	f10 := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{}))
	f11 := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{HTTPVersion: "1.1"}))

	if got := post(f10.URL, strings.NewReader("abc"), 3); got != "HTTP/1.0 cl=3 te=[] body=abc" {
		t.Errorf("length, 1.0: %q", got)
	}
	// Unknown length: chunked with HTTP/1.1, saved and measured with 1.0.
	if got := post(f11.URL, io.MultiReader(strings.NewReader("ab"), strings.NewReader("cd")), -1); got != "HTTP/1.1 cl=-1 te=[chunked] body=abcd" {
		t.Errorf("chunked, 1.1: %q", got)
	}
	big := bytes.Repeat([]byte("z"), proxy.SpoolMemory+10)
	if got := post(f10.URL, io.MultiReader(bytes.NewReader(big)), -1); got != fmt.Sprintf("HTTP/1.0 cl=%d te=[] body=%s", len(big), big) {
		t.Errorf("spooled, 1.0: %d bytes", len(got))
	}
	if got := post(f10.URL, http.NoBody, 0); got != "HTTP/1.0 cl=0 te=[] body=" {
		t.Errorf("empty: %q", got)
	}
}

func TestHeaderKeyCanonical(t *testing.T) {
	// Entries configured in lower case still override the defaults.
	o := newCapturingOrigin(t, okResponse)
	f := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{SetHeaders: []proxy.Header{proxy.Static("host", "configured")}}))
	get(t, f.URL+"/")
	_, lines := o.next(t)
	hosts := 0
	for _, l := range lines {
		if k, _, _ := strings.Cut(l, ":"); textproto.CanonicalMIMEHeaderKey(k) == "Host" {
			hosts++
		}
	}
	if hosts != 1 || lines[0] != "host: configured" {
		t.Errorf("lines %q", lines)
	}
}

// TestHTTP2Client: requests that arrive over HTTP/2 are framed like those
// over HTTP/1: no body means no Content-Length or chunking upstream.
func TestHTTP2Client(t *testing.T) {
	o := newCapturingOrigin(t, okResponse)
	s := httptest.NewUnstartedServer(proxyTo(t, "http://"+o.Addr(), proxy.Options{HTTPVersion: "1.1"}))
	s.EnableHTTP2 = true
	s.StartTLS()
	defer s.Close()
	client := s.Client()

	resp, err := client.Get(s.URL + "/h2?x=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != 200 {
		t.Fatalf("%s %d", resp.Proto, resp.StatusCode)
	}
	req, lines := o.next(t)
	if req.RequestURI != "/h2?x=1" || req.ContentLength != 0 || len(req.TransferEncoding) != 0 {
		t.Errorf("GET over HTTP/2 went upstream as %q, length %d, %v: %q", req.RequestURI, req.ContentLength, req.TransferEncoding, lines)
	}

	resp, err = client.Post(s.URL+"/h2", "text/plain", strings.NewReader("abc"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	req, _ = o.next(t)
	if req.ContentLength != 3 {
		t.Errorf("POST over HTTP/2: length %d, %v", req.ContentLength, req.TransferEncoding)
	}
}

// Proxy-Authorization goes upstream as the client sent it, as NGINX
// passes it; Proxy-Authenticate, the challenge of the origin's proxy,
// reaches the client as from NGINX, unless hidden.
func TestProxyAuthHeaders(t *testing.T) {
	const response = "HTTP/1.1 407 Proxy Authentication Required\r\n" +
		"Proxy-Authenticate: Basic realm=\"origin's proxy\"\r\n" +
		"WWW-Authenticate: Basic realm=\"origin\"\r\n" +
		"Content-Length: 2\r\n\r\nno"
	o := newCapturingOrigin(t, response)
	request := "GET / HTTP/1.1\r\nHost: x\r\n" +
		"Proxy-Authorization: Basic Y2xpZW50OnNlY3JldA==\r\n" +
		"Authorization: Bearer for-the-origin\r\n\r\n"

	f := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{}))
	resp, _ := rawRequest(t, hostOf(f.Server), request)
	_, lines := o.next(t)
	if !slices.Contains(lines, "Proxy-Authorization: Basic Y2xpZW50OnNlY3JldA==") {
		t.Errorf("Proxy-Authorization not passed: %q", lines)
	}
	if !slices.Contains(lines, "Authorization: Bearer for-the-origin") {
		t.Errorf("Authorization not passed: %q", lines)
	}
	if got := resp.Header.Get("Proxy-Authenticate"); got != `Basic realm="origin's proxy"` {
		t.Errorf("Proxy-Authenticate: %q", got)
	}
	if resp.StatusCode != 407 || resp.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("response: %d %v", resp.StatusCode, resp.Header)
	}

	// Configured: proxy_set_header sends its own value (not the
	// client's), proxy_hide_header keeps the challenge back.
	f = newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{
		SetHeaders:  []proxy.Header{proxy.Static("Proxy-Authorization", "Basic b3BlcmF0b3I=")},
		HideHeaders: []string{"proxy-authenticate"},
	}))
	resp, _ = rawRequest(t, hostOf(f.Server), request)
	_, lines = o.next(t)
	var sent []string
	for _, l := range lines {
		if strings.HasPrefix(strings.ToLower(l), "proxy-authorization:") {
			sent = append(sent, l)
		}
	}
	if fmt.Sprint(sent) != "[Proxy-Authorization: Basic b3BlcmF0b3I=]" {
		t.Errorf("configured Proxy-Authorization: sent %q", sent)
	}
	if v, ok := resp.Header["Proxy-Authenticate"]; ok {
		t.Errorf("proxy_hide_header Proxy-Authenticate: passed %q", v)
	}
}

// TestRequestHeadersBothSpellings: the client's lines walked against a
// map a module wrote a name into raw (r.Header["x-foo"]) beside its
// canonical key: each value of both keys goes upstream once.
func TestRequestHeadersBothSpellings(t *testing.T) {
	o := newCapturingOrigin(t, okResponse)
	h := proxyTo(t, "http://"+o.Addr(), proxy.Options{})
	for _, c := range []struct {
		text string
		h    http.Header
		want []string
	}{
		{"Host: h\r\nx-foo: a\r\n", http.Header{"x-foo": {"m"}, "X-Foo": {"a"}}, []string{"x-foo: m", "X-Foo: a"}},
		{"Host: h\r\nx-foo: a\r\nX-Foo: b\r\n", http.Header{"x-foo": {"m"}, "X-Foo": {"a", "b"}},
			[]string{"x-foo: m", "X-Foo: a", "X-Foo: b"}},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header = c.h
		h.ServeHTTP(httptest.NewRecorder(), r.WithContext(vars.NewContext(r.Context(), &vars.State{HeaderLines: c.text})))
		_, lines := o.next(t)
		var got []string
		for _, l := range lines {
			if k, _, _ := strings.Cut(l, ":"); strings.EqualFold(k, "X-Foo") {
				got = append(got, l)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q against %q: sent %q, want %q", c.text, c.h, got, c.want)
		}
	}
}
