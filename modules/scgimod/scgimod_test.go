package scgimod_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
	_ "github.com/mosaic-edge/mosaic/modules/cachemod"
	_ "github.com/mosaic-edge/mosaic/modules/rewritemod"
	_ "github.com/mosaic-edge/mosaic/modules/scgimod"
	"github.com/mosaic-edge/mosaic/scgi"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// seen is what a fake application received.
type seen struct {
	req  *scgi.Request
	body string
}

// fakeApp is an SCGI application that records each request and answers
// with answer. It reads CONTENT_LENGTH bytes of body, or what comes in
// wait when fewer come (scgi_pass_request_body off states a length and
// sends nothing). wait counts from the request's netstring: a body the
// test itself sends later (scgi_request_buffering off) needs seconds
// under -race and a loaded machine, where 100ms lost it once in ~150
// runs pinned to one CPU.
func fakeApp(t *testing.T, answer string, wait time.Duration) (addr string, got func() []seen, accepted *atomic.Int32) {
	var mu sync.Mutex
	var all []seen
	accepted = new(atomic.Int32)
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		accepted.Add(1)
		req, err := scgi.ReadRequest(br, 0)
		if err != nil {
			t.Errorf("the server sent a malformed request: %v", err)
			return
		}
		body := make([]byte, req.ContentLength)
		c.SetReadDeadline(time.Now().Add(wait))
		k, _ := io.ReadFull(br, body)
		mu.Lock()
		all = append(all, seen{req, string(body[:k])})
		mu.Unlock()
		io.WriteString(c, answer)
	})
	return o.Addr(), func() []seen {
		mu.Lock()
		defer mu.Unlock()
		return append([]seen(nil), all...)
	}, accepted
}

func get(t *testing.T, method, url, body string, header ...string) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// The netstring: CONTENT_LENGTH first, the configured variables in order
// (if_not_empty, a level's own list replacing its parent's, an HTTP_*
// variable replacing the header lines of its name, and not sent itself
// when the configuration gives it no value), then the header lines in
// the client's order;
// "scgi_pass_request_body off" sends no body and still states its
// length, as NGINX does.
func TestNetstring(t *testing.T) {
	addr, got, _ := fakeApp(t, "Content-Type: text/plain\r\n\r\nhi", 100*time.Millisecond) // /nobody's body never comes
	base := servertest.Start(t, `http { server { listen 127.0.0.1:0;
		scgi_param INHERITED yes;
		location / {
			scgi_pass `+addr+`;
			scgi_param A "$request_method $arg_q";
			scgi_param EMPTY "$arg_none" if_not_empty;
			scgi_param KEPT "$arg_none";
			scgi_param HTTP_X_SECRET "";
		}
		location /inherit { scgi_pass `+addr+`; }
		location /nobody { scgi_pass `+addr+`; scgi_pass_request_body off; }
		location /noheaders { scgi_pass `+addr+`; scgi_pass_request_headers off; }
		location /if { scgi_pass `+addr+`; if ($arg_x) { set $v 1; } }
	} }`)
	if code, body, _ := get(t, "POST", base+"/x?q=1", "abc", "X-Secret", "s", "X-Other", "o"); code != 200 || body != "hi" {
		t.Fatalf("%d %q", code, body)
	}
	s := got()[0]
	var names []string
	for _, v := range s.req.Vars {
		names = append(names, v.Name+"="+v.Value)
	}
	// The header lines in the order Go's client sends them.
	want := "CONTENT_LENGTH=3 A=POST 1 KEPT= HTTP_HOST=" + strings.TrimPrefix(base, "http://") +
		" HTTP_USER_AGENT=Go-http-client/1.1 HTTP_CONTENT_LENGTH=3 HTTP_X_OTHER=o HTTP_ACCEPT_ENCODING=gzip"
	if got := strings.Join(names, " "); got != want || s.body != "abc" {
		t.Errorf("variables %s\nwant      %s\nbody %q", got, want, s.body)
	}
	for _, c := range []struct{ path, name, value, body string }{
		{"/inherit", "INHERITED", "yes", "abc"},
		{"/if?x=1", "INHERITED", "yes", "abc"},
		{"/nobody", "CONTENT_LENGTH", "3", ""},
		{"/noheaders", "HTTP_HOST", "", "abc"},
	} {
		n := len(got())
		get(t, "POST", base+c.path, "abc")
		s := got()[n]
		if v, _ := s.req.Get(c.name); v != c.value || s.body != c.body {
			t.Errorf("%s: %s=%q body %q, want %q %q", c.path, c.name, v, s.body, c.value, c.body)
		}
	}
}

// The answer: Status gives the status and is hidden with X-Accel-*, as
// NGINX's SCGI module hides them; a Location alone is a 302.
func TestCGIAnswer(t *testing.T) {
	for answer, want := range map[string]int{
		"Status: 404 Gone\r\nX-Accel-Charset: x\r\nContent-Type: text/plain\r\n\r\nbody": 404,
		"Location: /elsewhere\r\n\r\nbody":                                               302,
		"HTTP/1.0 201 Made\r\nStatus: 404\r\n\r\nbody":                                   201,
	} {
		addr, _, _ := fakeApp(t, answer, 5*time.Second)
		base := servertest.Start(t, `http { server { listen 127.0.0.1:0; location / { scgi_pass `+addr+`; } } }`)
		http.DefaultClient.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		code, body, h := get(t, "GET", base+"/", "")
		if code != want || body != "body" || h["Status"] != nil || h["X-Accel-Charset"] != nil {
			t.Errorf("%q: %d %q %v", answer, code, body, h)
		}
	}
}

// A variable with a NUL byte would split into variables never sent: the
// request is refused with 500 before any server is connected to.
func TestNULRefused(t *testing.T) {
	addr, _, accepted := fakeApp(t, "\r\nok", 5*time.Second)
	base := servertest.Start(t, `http { server { listen 127.0.0.1:0;
		location / { scgi_pass `+addr+`; scgi_param BODY $request_body; } } }`)
	if code, _, _ := get(t, "POST", base+"/", "a\x00HTTP_EVIL\x00x"); code != 500 || accepted.Load() != 0 {
		t.Errorf("%d with %d connections, want 500 and none", code, accepted.Load())
	}
	if code, body, _ := get(t, "POST", base+"/", "plain"); code != 200 || body != "ok" {
		t.Errorf("a body without NUL: %d %q", code, body)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{`location / { scgi_pass 127.0.0.1:4000; scgi_pass 127.0.0.1:4001; }`, "duplicate"},
		{`location / { scgi_pass scgi://127.0.0.1:4000; }`, "invalid URL prefix"},
		{`location / { scgi_pass 127.0.0.1:4000/x; }`, "no URI part"},
		{`location / { scgi_pass $backend; }`, "variables"},
		{`location / { scgi_param A b c; }`, `invalid parameter "c"`},
		{`location / { scgi_param A; }`, "test.conf:1"},
		{`location / { scgi_buffer_size 0; }`, "test.conf:1"},
		{`location / { scgi_send_lowat 1; }`, "unknown directive"},
		{`location / { scgi_modifier1 1; }`, "unknown directive"},
		{`location / { scgi_pass unknown_group; }`, "unknown_group"},
		{`location / { scgi_pass 127.0.0.1:4000; scgi_cache zone; }`, `zone "zone" is unknown`},
	} {
		servertest.WantError(t, `http { server { `+c.conf+` } }`, c.want)
	}
	// Debian's scgi_params is built in.
	cfg := servertest.Load(t, `http { server { location / { scgi_pass 127.0.0.1:4000; include scgi_params; } } }`)
	cfg.Close()
}

// With scgi_request_buffering off the application is connected to before
// the body comes, and CONTENT_LENGTH states the whole body the client
// announced. (NGINX 1.22.1 states only what it had read when it
// connected: 0 for a body that comes later; see the scgi README.)
func TestUnbufferedBody(t *testing.T) {
	addr, got, accepted := fakeApp(t, "Content-Type: text/plain\r\n\r\nok", 5*time.Second)
	base := servertest.Start(t, `http { server { listen 127.0.0.1:0;
		location / { scgi_pass `+addr+`; scgi_request_buffering off; } } }`)
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nConnection: close\r\n\r\n")
	deadline := time.Now().Add(5 * time.Second)
	for accepted.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if accepted.Load() == 0 {
		t.Fatal("the application was not connected to before the body came")
	}
	io.WriteString(c, "hello")
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	s := got()[0]
	if v, _ := s.req.Get("CONTENT_LENGTH"); resp.StatusCode != 200 || v != "5" || s.body != "hello" {
		t.Errorf("%d: CONTENT_LENGTH %q, body %q", resp.StatusCode, v, s.body)
	}
}

// scgi_next_upstream passes a request on from a server that refuses to
// the next of its group, and scgi_store keeps a complete 200 under the
// root, as the shared gateway wiring does for every gateway.
func TestNextUpstreamAndStore(t *testing.T) {
	addr, got, _ := fakeApp(t, "Content-Type: text/plain\r\n\r\nstored body", 5*time.Second)
	deadAddr := servertest.RefusedAddr(t)
	root := t.TempDir()
	base := servertest.Start(t, `http {
		upstream app { server `+deadAddr+`; server `+addr+`; }
		server { listen 127.0.0.1:0; root `+root+`;
			location / { scgi_pass app; scgi_store on; scgi_next_upstream error timeout; }
		} }`)
	if code, body, _ := get(t, "GET", base+"/saved.txt", ""); code != 200 || body != "stored body" {
		t.Fatalf("%d %q", code, body)
	}
	if n := len(got()); n != 1 {
		t.Errorf("the live server had %d requests, want 1", n)
	}
	if b, err := os.ReadFile(filepath.Join(root, "saved.txt")); err != nil || string(b) != "stored body" {
		t.Errorf("scgi_store: %q %v", b, err)
	}
}

// SCGI has no keepalive: even in a group with "keepalive", each request
// has a connection of its own, also when the application would read
// another request on the same one.
func TestNoKeepalive(t *testing.T) {
	var accepted, served atomic.Int32
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		accepted.Add(1)
		for {
			req, err := scgi.ReadRequest(br, 0)
			if err != nil {
				return
			}
			io.CopyN(io.Discard, br, req.ContentLength)
			served.Add(1)
			io.WriteString(c, "Content-Length: 2\r\n\r\nok")
		}
	})
	base := servertest.Start(t, `http {
		upstream app { server `+o.Addr()+`; keepalive 4; }
		server { listen 127.0.0.1:0; location / { scgi_pass app; } } }`)
	for i := 0; i < 3; i++ {
		if code, body, _ := get(t, "GET", base+"/", ""); code != 200 || body != "ok" {
			t.Fatalf("%d %q", code, body)
		}
	}
	if accepted.Load() != 3 || served.Load() != 3 {
		t.Errorf("%d requests on %d connections, want one each", served.Load(), accepted.Load())
	}
}

// scgi_bind sets the local address of the connections to the
// application; scgi_force_ranges cuts a range from a 200 of known length
// that says nothing of ranges. scgi_limit_rate and scgi_socket_keepalive
// load with them (their effects are the shared wiring's, tested through
// the proxy and the other gateways).
func TestBindAndRanges(t *testing.T) {
	peers := make(chan string, 4)
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		if _, err := scgi.ReadRequest(br, 0); err != nil {
			return
		}
		host, _, _ := net.SplitHostPort(c.RemoteAddr().String())
		peers <- host
		io.WriteString(c, "Content-Type: text/plain\r\nContent-Length: 5\r\n\r\nbound")
	})
	base := servertest.Start(t, `http { server { listen 127.0.0.1:0;
		location / { scgi_pass `+o.Addr()+`; scgi_bind 127.0.0.4; scgi_limit_rate 100k;
			scgi_socket_keepalive on; scgi_force_ranges on; } } }`)
	if code, body, _ := get(t, "GET", base+"/", ""); code != 200 || body != "bound" {
		t.Fatalf("%d %q", code, body)
	}
	if peer := <-peers; peer != "127.0.0.4" {
		t.Errorf("the application saw a connection from %s, want 127.0.0.4", peer)
	}
	if code, body, _ := get(t, "GET", base+"/", "", "Range", "bytes=1-2"); code != 206 || body != "ou" {
		t.Errorf("scgi_force_ranges: %d %q, want 206 \"ou\"", code, body)
	}
}
