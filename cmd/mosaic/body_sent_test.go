package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/internal/testorigin"
)

// What an upstream is sent of a request's body where the proxy does not
// send the body itself: NGINX's Content-Length says what the request's
// body is (content_length_n), sent or not.

// bodyRecorder is an origin that records, per X-Who and path, the
// method, the framing fields and the body bytes it was sent (those that
// arrive within a moment of the head: a Content-Length with no body
// after it is NGINX's, which this must see rather than wait on), and
// answers an SSI page, an included part or an allowing auth check.
type bodyRecorder struct {
	*testorigin.Raw
	mu   sync.Mutex
	seen map[string]string
}

func startBodyRecorder(t *testing.T) *bodyRecorder {
	t.Helper()
	o := &bodyRecorder{seen: map[string]string{}}
	o.Raw = testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		tp := textproto.NewReader(br)
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		hdr, err := tp.ReadMIMEHeader()
		if err != nil {
			return
		}
		method, target, _ := strings.Cut(line, " ")
		target, _, _ = strings.Cut(target, " ")
		// A moment for the body to come, then what came: as much as
		// the Content-Length says, or any bytes at all without one.
		_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		var body []byte
		if n, err := strconv.Atoi(hdr.Get("Content-Length")); err == nil {
			body = make([]byte, n)
			k, _ := io.ReadFull(br, body)
			body = body[:k]
		} else {
			body, _ = io.ReadAll(br)
		}
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		record := fmt.Sprintf("%s cl=%q te=%q body=%q", method, hdr.Values("Content-Length"), hdr.Values("Transfer-Encoding"), body)
		if f := hdr.Get("X-File"); f != "" {
			record += " file=" + f
		}
		o.mu.Lock()
		o.seen[hdr.Get("X-Who")+" "+target] = record
		o.mu.Unlock()
		answer := "[" + target + "]"
		if strings.Contains(target, "ssi") && !strings.HasPrefix(target, "/part/") {
			answer = `<!--# include virtual="/part` + target + `" -->`
		}
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(answer), answer)
	})
	return o
}

// take returns and forgets what who's server sent for path, waiting a
// moment for it (a mirror's request may end after the client's answer).
func (o *bodyRecorder) take(who, path string) string {
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		o.mu.Lock()
		v, ok := o.seen[who+" "+path]
		delete(o.seen, who+" "+path)
		o.mu.Unlock()
		if ok || time.Now().After(deadline) {
			return v
		}
	}
}

// bodyCase is a request with a body and the upstream paths it makes the
// servers ask for.
type bodyCase struct {
	page  string
	paths []string // what the upstream is asked for
	rest  string   // the request's framing and body
}

// Bodies of 20 bytes, with a Content-Length or chunked.
const (
	lengthBody  = "Content-Length: 20\r\n\r\n0123456789abcdefghij"
	chunkedBody = "Transfer-Encoding: chunked\r\n\r\n5\r\n01234\r\nf\r\n56789abcdefghij\r\n0\r\n\r\n"
)

// sameBodiesSent POSTs each case to both servers and compares their
// answers and what the origin was sent for each path.
func (o *bodyRecorder) sameBodiesSent(t *testing.T, mport, nport int, cases []bodyCase) {
	t.Helper()
	for _, c := range cases {
		req := "POST " + c.page + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n" + c.rest
		m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
		n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
		// The name in an error page's tail (server_tokens off).
		mb = strings.ReplaceAll(mb, "<center>mosaic</center>", "<center>nginx</center>")
		if m.StatusCode != n.StatusCode || mb != nb {
			t.Errorf("POST %s: mosaic %d %q, NGINX %d %q", c.page, m.StatusCode, mb, n.StatusCode, nb)
		}
		for _, p := range c.paths {
			if ms, ns := o.take("m", p), o.take("n", p); ms != ns || ns == "" {
				t.Errorf("POST %s: %s was sent\n  by mosaic: %s\n  by NGINX:  %s", c.page, p, ms, ns)
			}
		}
	}
}

// TestPassRequestBodyOffAsNGINX: proxy_pass_request_body off sends the
// Content-Length of the body it does not send (NGINX reads a chunked
// body whole to learn it), and "proxy_set_header Content-Length "";"
// drops that length.
func TestPassRequestBodyOffAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	o := startBodyRecorder(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			proxy_set_header X-Who %s;
			location /off/ { proxy_pass http://%[3]s; proxy_pass_request_body off; }
			location /file/ { proxy_pass http://%[3]s; proxy_pass_request_body off; client_body_buffer_size 8; }
			location /idiom/ { proxy_pass http://%[3]s; proxy_pass_request_body off;
				proxy_set_header Content-Length ""; proxy_set_header X-Who %[2]s; }
		}`, port, who, o.Addr())
	})
	o.sameBodiesSent(t, mport, nport, []bodyCase{
		{"/off/a", []string{"/off/a"}, lengthBody},
		{"/off/b", []string{"/off/b"}, chunkedBody},
		{"/file/c", []string{"/file/c"}, chunkedBody},
		{"/idiom/d", []string{"/idiom/d"}, lengthBody},
	})
}

// TestSubrequestBodyAsNGINX: for a POST with a body, the upstreams behind
// an SSI include, the addition module's parts, an auth_request check and
// a mirror are sent what NGINX's are: the subrequest's method with the
// request's Content-Length, and the body when the page had read it (in
// memory or in a file) before the subrequest began, none when the check
// or mirror came first or the subrequest's location says
// proxy_pass_request_body off.
func TestSubrequestBodyAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	o := startBodyRecorder(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			proxy_set_header X-Who %s; server_tokens off;
			location /ssi/ { ssi on; proxy_pass http://%[3]s; }
			location /file/ssi/ { ssi on; client_body_buffer_size 8; proxy_pass http://%[3]s; }
			location /part/ { internal; proxy_pass http://%[3]s; }
			location /off/ssi/ { ssi on; proxy_pass http://%[3]s; }
			location /part/off/ { internal; proxy_pass http://%[3]s; proxy_pass_request_body off; }
			location /add/ { add_before_body /part/before; add_after_body /part/after; proxy_pass http://%[3]s; }
			location /auth/ { auth_request /check/auth; proxy_pass http://%[3]s; }
			location /auth-off/ { auth_request /check/off; proxy_pass http://%[3]s; }
			location /auth-idiom/ { auth_request /check/idiom; proxy_pass http://%[3]s; }
			location /check/ { internal; proxy_pass http://%[3]s; }
			location = /check/off { internal; proxy_pass http://%[3]s; proxy_pass_request_body off; }
			location = /check/idiom { internal; proxy_pass http://%[3]s; proxy_pass_request_body off;
				proxy_set_header Content-Length ""; proxy_set_header X-Who %[2]s; }
			location /mirror/ { mirror /part/mirror; mirror_request_body off; proxy_pass http://%[3]s; }
			# A subrequest's length meets its location's limit.
			location /limit/ssi/ { ssi on; proxy_pass http://%[3]s; }
			location /part/limit/ { internal; client_max_body_size 10; proxy_pass http://%[3]s; }
			# Before the body is read too: the check answers 413, the
			# request 500.
			# A page that never read the body, which NGINX discards
			# (what is left of its length, 0, goes to the include).
			location /ret/ssi/ { ssi on; default_type text/html; return 200 '<!--# include virtual="/part/ret" -->'; }
			location /ret/add/ { default_type text/html; add_before_body /part/ret-add; return 200 "x"; }
			location /auth-limit/ { auth_request /check/limit; proxy_pass http://%[3]s; }
			location = /check/limit { internal; client_max_body_size 10; proxy_pass http://%[3]s; }
		}`, port, who, o.Addr())
	})
	o.sameBodiesSent(t, mport, nport, []bodyCase{
		{"/ssi/a", []string{"/ssi/a", "/part/ssi/a"}, lengthBody},
		{"/ssi/b", []string{"/ssi/b", "/part/ssi/b"}, chunkedBody},
		{"/file/ssi/c", []string{"/file/ssi/c", "/part/file/ssi/c"}, lengthBody},
		{"/off/ssi/d", []string{"/off/ssi/d", "/part/off/ssi/d"}, lengthBody},
		{"/add/e", []string{"/add/e", "/part/before", "/part/after"}, lengthBody},
		{"/auth/f", []string{"/auth/f", "/check/auth"}, lengthBody},
		{"/auth/g", []string{"/auth/g", "/check/auth"}, chunkedBody},
		{"/auth-off/h", []string{"/auth-off/h", "/check/off"}, lengthBody},
		{"/auth-idiom/i", []string{"/auth-idiom/i", "/check/idiom"}, lengthBody},
		{"/mirror/j", []string{"/mirror/j", "/part/mirror"}, lengthBody},
		{"/mirror/k", []string{"/mirror/k", "/part/mirror"}, chunkedBody},
		{"/limit/ssi/l", []string{"/limit/ssi/l"}, lengthBody},
		{"/auth-limit/m", nil, lengthBody},
		{"/ret/ssi/n", []string{"/part/ret"}, lengthBody},
		{"/ret/add/o", []string{"/part/ret-add"}, lengthBody},
	})
}

// TestSubrequestReadsParentsBodyFile: an include reads the body from the
// temporary file its page's proxy saved it in, and a mirror's proxy from
// the one the mirror saved it in, as NGINX's subrequest shares
// r->request_body: its $request_body_file is the page's, not a copy's.
func TestSubrequestReadsParentsBodyFile(t *testing.T) {
	nginxPath(t)
	o := startBodyRecorder(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			client_body_buffer_size 8;
			proxy_set_header X-Who %s; proxy_set_header X-File $request_body_file;
			location /ssi/ { ssi on; proxy_pass http://%[3]s; }
			location /part/ { internal; proxy_pass http://%[3]s; }
			location /mirror/ { mirror /part/mirror; proxy_pass http://%[3]s; }
		}`, port, who, o.Addr())
	})
	// Past what comes with the header (NGINX keeps that in memory).
	body := strings.Repeat("0123456789abcdef", 256)
	for _, c := range []struct{ page, part, method, answer string }{
		{"/ssi/a", "/part/ssi/a", "GET", "[/part/ssi/a]"},
		{"/mirror/b", "/part/mirror", "POST", "[/mirror/b]"},
	} {
		req := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", c.page, len(body), body)
		for who, port := range map[string]int{"m": mport, "n": nport} {
			if resp, body := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), req); resp.StatusCode != 200 || body != c.answer {
				t.Errorf("%s %s: %d %q", who, c.page, resp.StatusCode, body)
			}
			page, part := o.take(who, c.page), o.take(who, c.part)
			want := fmt.Sprintf(`cl=["%d"] te=[] body=%q file=`, len(body), body)
			if !strings.HasPrefix(page, "POST "+want+"/") || part != c.method+" "+page[len("POST "):] {
				t.Errorf("%s: %s was sent %.80s ... %s,\n%s %.80s ... %s", who, c.page, page, page[max(len(page)-40, 0):], c.part, part, part[max(len(part)-40, 0):])
			}
		}
	}
}
