package uwsgimod_test

import (
	"bufio"
	"encoding/binary"
	"fmt"
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
	_ "github.com/mosaic-edge/mosaic/modules/uwsgimod"
	"github.com/mosaic-edge/mosaic/server/servertest"
	"github.com/mosaic-edge/mosaic/uwsgi"
)

// seen is what a fake application received.
type seen struct {
	mod1, mod2 byte
	vars       map[string]string
	extra      string // bytes after the variables, inside the packet
	body       string
}

// fakeApp is an application server that records each packet and answers
// with answer. It reads CONTENT_LENGTH bytes of body, or what comes in
// 100ms when told none will.
func fakeApp(t *testing.T, answer string) (addr string, got func() []seen) {
	var mu sync.Mutex
	var all []seen
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		var h [4]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			return
		}
		block := make([]byte, binary.LittleEndian.Uint16(h[1:3]))
		if _, err := io.ReadFull(br, block); err != nil {
			return
		}
		s := seen{mod1: h[0], mod2: h[3], vars: map[string]string{}}
		// Variables up to the first one that does not decode: what
		// follows is uwsgi_string.
		for len(block) >= 4 {
			n := int(binary.LittleEndian.Uint16(block))
			if 2+n+2 > len(block) {
				break
			}
			m := int(binary.LittleEndian.Uint16(block[2+n:]))
			if 4+n+m > len(block) {
				break
			}
			s.vars[string(block[2:2+n])] = string(block[4+n : 4+n+m])
			block = block[4+n+m:]
		}
		s.extra = string(block)
		var n int
		fmt.Sscan(s.vars["CONTENT_LENGTH"], &n)
		body := make([]byte, n)
		c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		k, _ := io.ReadFull(br, body)
		s.body = string(body[:k])
		mu.Lock()
		all = append(all, s)
		mu.Unlock()
		io.WriteString(c, answer)
	})
	return o.Addr(), func() []seen {
		mu.Lock()
		defer mu.Unlock()
		return append([]seen(nil), all...)
	}
}

func TestPacket(t *testing.T) {
	addr, got := fakeApp(t, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhi")
	base := servertest.Start(t, `http { server { listen 127.0.0.1:0;
		uwsgi_param A $request_method;
		location / {
			uwsgi_pass uwsgi://`+addr+`;
			uwsgi_modifier1 5;
			uwsgi_modifier2 7;
			uwsgi_string "xyz";
			uwsgi_param A "$request_method $arg_q";
			uwsgi_param EMPTY "$arg_none" if_not_empty;
			uwsgi_param KEPT "$arg_none";
			uwsgi_param HTTP_X_SECRET "";
		}
		location /inherit { uwsgi_pass `+addr+`; }
		location /if {
			uwsgi_pass `+addr+`;
			uwsgi_modifier1 9;
			if ($arg_x) { set $v 1; }
		}
		location /nobody { uwsgi_pass `+addr+`; uwsgi_pass_request_body off; uwsgi_param CONTENT_LENGTH $content_length; }
	} }`)
	req, _ := http.NewRequest("GET", base+"/x?q=1", nil)
	req.Header.Set("X-Secret", "s")
	req.Header.Set("X-Other", "o")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "hi" {
		t.Fatalf("%d %q", resp.StatusCode, b)
	}
	s := got()[0]
	if s.mod1 != 5 || s.mod2 != 7 || s.extra != "xyz" {
		t.Errorf("modifiers %d %d, extra %q", s.mod1, s.mod2, s.extra)
	}
	if v, ok := s.vars["EMPTY"]; ok {
		t.Errorf("EMPTY sent (if_not_empty): %q", v)
	}
	if v, ok := s.vars["HTTP_X_SECRET"]; ok {
		t.Errorf("HTTP_X_SECRET sent (empty in the configuration: it only keeps X-Secret back): %q", v)
	}
	for k, want := range map[string]string{"A": "GET 1", "KEPT": "", "HTTP_X_OTHER": "o"} {
		if v, ok := s.vars[k]; !ok || v != want {
			t.Errorf("%s = %q (%v), want %q", k, v, ok, want)
		}
	}

	// The server level's uwsgi_param is inherited by a location with none.
	http.Get(base + "/inherit")
	if s := got()[1]; s.vars["A"] != "GET" || s.mod1 != 0 || s.extra != "" {
		t.Errorf("inherited: %v %d %q", s.vars, s.mod1, s.extra)
	}

	// An "if" block without a uwsgi_pass of its own uses its location's.
	http.Get(base + "/if?x=1")
	if s := got()[2]; s.mod1 != 9 || s.vars["A"] != "GET" {
		t.Errorf("if block: %d %v", s.mod1, s.vars)
	}

	resp, err = http.Post(base+"/nobody", "text/plain", strings.NewReader("hello"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if s := got()[3]; s.vars["CONTENT_LENGTH"] != "5" || s.body != "" {
		t.Errorf("uwsgi_pass_request_body off: CONTENT_LENGTH %q, body %q", s.vars["CONTENT_LENGTH"], s.body)
	}
}

// A CGI-style answer: the Status header gives the status and, as NGINX's
// uwsgi module does (unlike FastCGI's), stays in the response; X-Accel-*
// does not.
func TestCGIAnswer(t *testing.T) {
	addr, _ := fakeApp(t, "Status: 404 Gone\r\nX-Accel-Charset: x\r\nContent-Type: text/plain\r\n\r\nbody")
	base := servertest.Start(t, `http { server { listen 127.0.0.1:0; location / { uwsgi_pass `+addr+`; } } }`)
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || string(b) != "body" || resp.Header.Get("Status") != "404 Gone" || resp.Header.Get("X-Accel-Charset") != "" {
		t.Errorf("%d %q %v", resp.StatusCode, b, resp.Header)
	}
}

// uwsgi_intercept_errors hands the application's error to error_page;
// uwsgi_next_upstream tries the next server of a group when one refuses.
func TestInterceptAndNextUpstream(t *testing.T) {
	addr, got := fakeApp(t, "HTTP/1.1 503 Busy\r\nContent-Type: text/plain\r\n\r\napp says busy")
	deadAddr := servertest.RefusedAddr(t)
	base := servertest.Start(t, `http {
		upstream app { server `+deadAddr+`; server `+addr+`; }
		server { listen 127.0.0.1:0;
			location / { uwsgi_pass app; uwsgi_intercept_errors on; error_page 503 /busy; }
			location /raw { uwsgi_pass app; error_page 503 /busy; }
			location = /busy { return 200 "our busy page"; }
		} }`)
	for path, want := range map[string]string{"/": "our busy page", "/raw": "app says busy"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != want {
			t.Errorf("%s: %d %q, want %q", path, resp.StatusCode, b, want)
		}
	}
	if n := len(got()); n != 2 {
		t.Errorf("the live server had %d requests, want 2", n)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{`location / { uwsgi_pass suwsgi://127.0.0.1:3031; uwsgi_ssl_verify on; }`, `no "uwsgi_ssl_trusted_certificate"`},
		{`location / { uwsgi_pass 127.0.0.1:3031; uwsgi_pass 127.0.0.1:3032; }`, "duplicate"},
		{`location / { uwsgi_modifier1 256; }`, "test.conf:1"},
		{`location / { uwsgi_param A b c; }`, `invalid parameter "c"`},
		{`location / { uwsgi_send_lowat 1; }`, "unknown directive"},
		{`location / { uwsgi_pass unknown_group; }`, "unknown_group"},
	} {
		servertest.WantError(t, `http { server { `+c.conf+` } }`, c.want)
	}
	// Debian's uwsgi_params is built in.
	cfg := servertest.Load(t, `http { server { location / { uwsgi_pass 127.0.0.1:3031; include uwsgi_params; } } }`)
	cfg.Close()
}

// uwsgi_buffer_size bounds the answer's head; uwsgi_hide_header and
// uwsgi_pass_header change what reaches the client.
func TestHeadSizeAndHeaders(t *testing.T) {
	addr, _ := fakeApp(t, "HTTP/1.1 200 OK\r\nX-Big: "+strings.Repeat("b", 5000)+"\r\nX-Accel-Charset: x\r\nX-Drop: d\r\n\r\nok")
	base := servertest.Start(t, `http { server { listen 127.0.0.1:0;
		location /small { uwsgi_pass `+addr+`; }
		location /big { uwsgi_pass `+addr+`; uwsgi_buffer_size 8k; uwsgi_hide_header X-Drop; uwsgi_pass_header X-Accel-Charset; }
	} }`)
	resp, err := http.Get(base + "/small")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 502 {
		t.Errorf("a 5k head with the 4k default: %d", resp.StatusCode)
	}
	resp, err = http.Get(base + "/big")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	h := resp.Header
	if resp.StatusCode != 200 || string(b) != "ok" || len(h.Get("X-Big")) != 5000 || h.Get("X-Drop") != "" || h.Get("X-Accel-Charset") != "x" {
		t.Errorf("%d %q X-Drop=%q X-Accel-Charset=%q", resp.StatusCode, b, h.Get("X-Drop"), h.Get("X-Accel-Charset"))
	}
}

// uwsgi_cache keeps the application's answer in a zone of its own
// uwsgi_cache_path; the application is asked once.
func TestCache(t *testing.T) {
	addr, got := fakeApp(t, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nCache-Control: max-age=60\r\n\r\ncached body")
	dir := t.TempDir()
	base := servertest.Start(t, `http {
		uwsgi_cache_path `+dir+` keys_zone=wsgi:1m;
		server { listen 127.0.0.1:0;
			location / {
				uwsgi_pass `+addr+`;
				uwsgi_cache wsgi;
				uwsgi_cache_key $request_uri;
			}
			location /nocache { uwsgi_pass `+addr+`; }
		} }`)
	for i := 0; i < 3; i++ {
		for _, path := range []string{"/page?a=1", "/nocache"} {
			resp, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(b) != "cached body" {
				t.Fatalf("%s: %d %q", path, resp.StatusCode, b)
			}
		}
	}
	if len(got()) != 4 {
		t.Errorf("the application was asked %d times, want 1 for the cached page and 3 for the other", len(got()))
	}
	servertest.WantError(t, `http { uwsgi_cache_path `+t.TempDir()+` keys_zone=z:1m;
		server { location / { uwsgi_pass 127.0.0.1:1; uwsgi_cache z; } } }`, `no "uwsgi_cache_key" for "uwsgi_cache"`)
}

// A request whose variables do not fit in a uwsgi packet (65535 bytes)
// is the request's fault: it is answered 500 without any server being
// connected to, and logged as NGINX logs it ("uwsgi request is too big").
// Counted against the servers it would take every one of them out for
// fail_timeout (max_fails 1), and the next client would get 502.
func TestTooBigRequestAnswers500AndSparesServers(t *testing.T) {
	var accepted atomic.Int32
	app := func() string {
		o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
			accepted.Add(1)
			if _, err := uwsgi.ReadRequest(br); err == nil {
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			}
		})
		return o.Addr()
	}
	errorLog := filepath.Join(t.TempDir(), "error.log")
	base := servertest.Start(t, `http { large_client_header_buffers 4 32k; error_log `+errorLog+` error;
		upstream app { server `+app()+`; server `+app()+`; }
		server { listen 127.0.0.1:0; location / { include uwsgi_params; uwsgi_pass app; } } }`)
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	big := strings.Repeat("a", 30000)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nX-A: "+big+"\r\nX-B: "+big+"\r\nX-C: "+big+"\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 500 || accepted.Load() != 0 {
		t.Errorf("too big a request: %d with %d connections to the servers, want 500 with none", resp.StatusCode, accepted.Load())
	}
	if b, _ := os.ReadFile(errorLog); !strings.Contains(string(b), "uwsgi request is too big") {
		t.Errorf("error log: %q", b)
	}
	for i := 0; i < 2; i++ { // each server in turn
		resp, err := http.Get(base + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("an ordinary request after it: %d, want 200", resp.StatusCode)
		}
	}
}

// The answer's body as long as Content-Length says and no longer: the
// client's connection goes on after it (the rest stays with the
// application's connection, which uwsgi never reuses). Two lengths that
// disagree are an invalid header, 502, as NGINX 1.23 and later refuse a
// duplicate Content-Length.
func TestAnswerLengthFraming(t *testing.T) {
	for _, c := range []struct{ answer, want string }{
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n0123456789", "200 01234"},
		{"HTTP/1.1 200 OK\r\nContent-Length: 10\r\nContent-Length: 5\r\n\r\n0123456789", "502"},
		{"Content-Length: 5\r\nContent-Length: 10\r\n\r\n0123456789", "502"},
	} {
		addr, _ := fakeApp(t, c.answer)
		base := servertest.Start(t, `http { server { listen 127.0.0.1:0; location / { uwsgi_pass `+addr+`; } } }`)
		conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		br := bufio.NewReader(conn)
		var got []string
		for i := 0; i < 2; i++ {
			io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				got = append(got, err.Error())
				break
			}
			b, _ := io.ReadAll(resp.Body)
			got = append(got, strings.TrimSpace(fmt.Sprint(resp.StatusCode, " ", string(b))))
		}
		conn.Close()
		if !strings.HasPrefix(got[0], c.want) || len(got) != 2 || got[1] != got[0] {
			t.Errorf("%q: %q, want %q twice on one connection", c.answer, got, c.want)
		}
	}
}
