package http1

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/syncbuf"
)

// testTimeout bounds every wait in these tests; nothing should come near it.
const testTimeout = 10 * time.Second

var quietLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

// testServer is a Server serving on a loopback listener.
type testServer struct {
	*Server
	addr   string
	served chan error // Serve's result
	once   sync.Once
	err    error
}

// startServer serves h on 127.0.0.1 with keep-alive on; configure may
// change the Server before it starts. The keep-alive timeout is longer
// than testTimeout, so that a connection the server should close for
// another reason cannot pass for closed by it.
func startServer(t *testing.T, h http.Handler, configure ...func(*Server)) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return startServerOn(t, ln, h, configure...)
}

// startServerOn is startServer on the listener ln.
func startServerOn(t *testing.T, ln net.Listener, h http.Handler, configure ...func(*Server)) *testServer {
	t.Helper()
	s := &Server{Handler: h, Limits: Limits{KeepAliveTimeout: time.Minute}, Logger: quietLogger}
	if overTLS {
		s.TLSConfig = testServerTLS(t)
	}
	for _, f := range configure {
		f(s)
	}
	ts := &testServer{Server: s, addr: ln.Addr().String(), served: make(chan error, 1)}
	go func() { ts.served <- s.Serve(ln) }()
	t.Cleanup(func() {
		_ = s.Close()
		_ = ln.Close()
		if err := ts.serveResult(t); !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve = %v, want http.ErrServerClosed", err)
		}
	})
	return ts
}

// serveResult waits for Serve to return and reports its error.
func (ts *testServer) serveResult(t *testing.T) error {
	t.Helper()
	ts.once.Do(func() {
		select {
		case ts.err = <-ts.served:
		case <-time.After(testTimeout):
			ts.err = errors.New("Serve did not return")
		}
	})
	return ts.err
}

// client is a raw connection to a test server.
type client struct {
	t  *testing.T
	c  net.Conn
	br *bufio.Reader
}

func dial(t *testing.T, addr string) *client {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = nc.SetDeadline(time.Now().Add(testTimeout))
	c := clientConn(t, nc)
	t.Cleanup(func() { _ = c.Close() })
	return &client{t: t, c: c, br: bufio.NewReader(c)}
}

func (c *client) send(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.c, s); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// response reads the header of the next response, to a request with the
// given method.
func (c *client) response(method string) *http.Response {
	c.t.Helper()
	resp, err := http.ReadResponse(c.br, &http.Request{Method: method})
	if err != nil {
		c.t.Fatalf("reading response: %v", err)
	}
	return resp
}

// roundTrip sends a request and reads the whole response.
func (c *client) roundTrip(method, req string) (*http.Response, string) {
	c.t.Helper()
	c.send(req)
	resp := c.response(method)
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("reading body: %v", err)
	}
	return resp, string(body)
}

// rawHead reads a response's status line and header lines as they came.
func (c *client) rawHead() []string {
	c.t.Helper()
	var lines []string
	for {
		line, err := c.br.ReadString('\n')
		if err != nil {
			c.t.Fatalf("reading header: %v (so far %q)", err, lines)
		}
		if !strings.HasSuffix(line, "\r\n") {
			c.t.Fatalf("header line %q does not end with CRLF", line)
		}
		line = strings.TrimSuffix(line, "\r\n")
		if line == "" {
			return lines
		}
		lines = append(lines, line)
	}
}

// expectClosed checks that the server closes the connection with nothing
// more sent.
func (c *client) expectClosed() {
	c.t.Helper()
	rest, err := io.ReadAll(c.br)
	if err != nil && !errors.Is(err, syscall.ECONNRESET) {
		c.t.Fatalf("connection not closed: %v", err)
	}
	if len(rest) > 0 {
		c.t.Fatalf("unexpected bytes before close: %q", rest)
	}
}

func get(path string) string { return "GET " + path + " HTTP/1.1\r\nHost: test\r\n\r\n" }

// field returns the value of the header line named name in lines, and
// how many such lines there are.
func field(lines []string, name string) (string, int) {
	var v string
	n := 0
	for _, l := range lines[1:] {
		k, val, _ := strings.Cut(l, ":")
		if strings.EqualFold(k, name) {
			v, n = strings.TrimSpace(val), n+1
		}
	}
	return v, n
}

func TestServeKeepAlive(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s", r.URL.Path, r.RemoteAddr)
	}))
	c := dial(t, ts.addr)
	for _, path := range []string{"/one", "/two", "/three"} {
		resp, body := c.roundTrip("GET", get(path))
		if resp.StatusCode != 200 || resp.Close {
			t.Fatalf("%s: status %d, close %v", path, resp.StatusCode, resp.Close)
		}
		if want := path + " " + c.c.LocalAddr().String(); body != want {
			t.Fatalf("%s: body %q, want %q", path, body, want)
		}
	}
}

func TestServePipelining(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s:%s", r.URL.Path, b)
	}))
	c := dial(t, ts.addr)
	c.send(get("/1") +
		"POST /2 HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\n\r\nabc" +
		"POST /3 HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nde\r\n0\r\n\r\n" +
		get("/4"))
	for _, want := range []string{"/1:", "/2:abc", "/3:de", "/4:"} {
		resp := c.response("GET")
		body, err := io.ReadAll(resp.Body)
		if err != nil || string(body) != want || resp.Close {
			t.Fatalf("body %q, %v, close %v; want %q", body, err, resp.Close, want)
		}
	}
}

func TestServeHTTP10(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Proto)
	}))
	t.Run("close", func(t *testing.T) {
		c := dial(t, ts.addr)
		resp, body := c.roundTrip("GET", "GET / HTTP/1.0\r\n\r\n")
		if body != "HTTP/1.0" || !resp.Close {
			t.Fatalf("body %q, close %v", body, resp.Close)
		}
		c.expectClosed()
	})
	t.Run("keep-alive", func(t *testing.T) {
		c := dial(t, ts.addr)
		for range 2 {
			resp, body := c.roundTrip("GET", "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
			if body != "HTTP/1.0" || resp.Close || resp.Header.Get("Connection") != "keep-alive" {
				t.Fatalf("body %q, close %v, Connection %q", body, resp.Close, resp.Header["Connection"])
			}
		}
	})
}

func TestServeClientConnectionClose(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "bye")
	}))
	c := dial(t, ts.addr)
	resp, body := c.roundTrip("GET", "GET / HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
	if body != "bye" || !resp.Close {
		t.Fatalf("body %q, close %v", body, resp.Close)
	}
	c.expectClosed()
}

// pattern returns n bytes of a repeating, position-dependent pattern.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}

func TestServeResponseFraming(t *testing.T) {
	big := pattern(20000)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/small":
			_, _ = w.Write([]byte("hello"))
		case "/flush":
			_, _ = w.Write([]byte("a"))
			w.(http.Flusher).Flush()
			_, _ = w.Write([]byte("b"))
		case "/big":
			for p := big; len(p) > 0; p = p[1000:] {
				_, _ = w.Write(p[:1000])
			}
		case "/empty":
		}
	}))
	t.Run("content length", func(t *testing.T) {
		c := dial(t, ts.addr)
		resp, body := c.roundTrip("GET", get("/small"))
		if body != "hello" || resp.ContentLength != 5 || resp.TransferEncoding != nil || resp.Header.Get("Content-Length") != "5" {
			t.Fatalf("body %q, ContentLength %d, TransferEncoding %q", body, resp.ContentLength, resp.TransferEncoding)
		}
		resp, body = c.roundTrip("GET", get("/empty"))
		if body != "" || resp.ContentLength != 0 || resp.Header.Get("Content-Length") != "0" {
			t.Fatalf("empty: body %q, ContentLength %d", body, resp.ContentLength)
		}
	})
	for _, path := range []string{"/flush", "/big"} {
		want := "ab"
		if path == "/big" {
			want = string(big)
		}
		t.Run("chunked "+path, func(t *testing.T) {
			c := dial(t, ts.addr)
			for range 2 { // the connection stays usable
				resp, body := c.roundTrip("GET", get(path))
				if body != want {
					t.Fatalf("body of %d bytes, want %d", len(body), len(want))
				}
				if resp.ContentLength != -1 || len(resp.TransferEncoding) != 1 || resp.TransferEncoding[0] != "chunked" || resp.Close {
					t.Fatalf("ContentLength %d, TransferEncoding %q, close %v", resp.ContentLength, resp.TransferEncoding, resp.Close)
				}
			}
		})
		t.Run("HTTP/1.0 close-delimited "+path, func(t *testing.T) {
			c := dial(t, ts.addr)
			c.send("GET " + path + " HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
			head := c.rawHead()
			if _, n := field(head, "Content-Length"); n != 0 {
				t.Errorf("Content-Length sent: %q", head)
			}
			if _, n := field(head, "Transfer-Encoding"); n != 0 {
				t.Errorf("Transfer-Encoding sent: %q", head)
			}
			if v, _ := field(head, "Connection"); v != "close" {
				t.Errorf("Connection %q, want close", v)
			}
			body, err := io.ReadAll(c.br)
			if err != nil || string(body) != want {
				t.Fatalf("body of %d bytes, %v; want %d", len(body), err, len(want))
			}
		})
	}
}

func TestServeHEAD(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := 11
		if r.URL.Path == "/big" {
			n = 20000
		}
		_, _ = w.Write(pattern(n))
	}))
	c := dial(t, ts.addr)
	for _, tt := range []struct {
		path string
		n    int64
	}{{"/", 11}, {"/big", 20000}} {
		c.send("HEAD " + tt.path + " HTTP/1.1\r\nHost: test\r\n\r\n")
		head := c.rawHead()
		if v, _ := field(head, "Content-Length"); v != strconv.FormatInt(tt.n, 10) {
			t.Errorf("HEAD %s: Content-Length %q, want %d (%q)", tt.path, v, tt.n, head)
		}
		if _, n := field(head, "Transfer-Encoding"); n != 0 {
			t.Errorf("HEAD %s: Transfer-Encoding sent", tt.path)
		}
		// Had a body followed the HEAD response, this one would not parse.
		resp, body := c.roundTrip("GET", get(tt.path))
		if resp.StatusCode != 200 || int64(len(body)) != tt.n {
			t.Fatalf("GET %s after HEAD: status %d, %d bytes", tt.path, resp.StatusCode, len(body))
		}
	}
}

func TestServeBodylessStatus(t *testing.T) {
	writeErrs := make(chan error, 2)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.URL.Path[1:])
		w.Header().Set("ETag", `"x"`)
		w.WriteHeader(code)
		_, err := w.Write([]byte("not allowed"))
		writeErrs <- err
	}))
	c := dial(t, ts.addr)
	for _, code := range []int{204, 304} {
		c.send(get("/" + strconv.Itoa(code)))
		head := c.rawHead()
		if !strings.HasPrefix(head[0], "HTTP/1.1 "+strconv.Itoa(code)+" ") {
			t.Fatalf("status line %q", head[0])
		}
		for _, name := range []string{"Content-Length", "Transfer-Encoding", "Connection"} {
			if v, n := field(head, name); n != 0 {
				t.Errorf("%d: %s: %s sent", code, name, v)
			}
		}
		if err := <-writeErrs; !errors.Is(err, http.ErrBodyNotAllowed) {
			t.Errorf("%d: Write = %v, want http.ErrBodyNotAllowed", code, err)
		}
	}
	// Had a body followed either response, this one would not parse.
	c.send("HEAD /200 HTTP/1.1\r\nHost: test\r\n\r\n")
	if resp := c.response("HEAD"); resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	<-writeErrs
}

func TestServeShortBodyCloses(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "10")
		_, _ = w.Write([]byte("hello"))
	}))
	c := dial(t, ts.addr)
	c.send(get("/"))
	resp := c.response("GET")
	if resp.ContentLength != 10 {
		t.Fatalf("ContentLength %d", resp.ContentLength)
	}
	body, err := io.ReadAll(resp.Body)
	if string(body) != "hello" || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("body %q, %v; want hello, unexpected EOF", body, err)
	}
	c.expectClosed()
}

func TestServeWriteBeyondContentLength(t *testing.T) {
	errs := make(chan error, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5")
		if _, err := w.Write([]byte("hel")); err != nil {
			errs <- err
			return
		}
		n, err := w.Write([]byte("lo!"))
		if n != 0 {
			err = fmt.Errorf("wrote %d bytes, err %v", n, err)
		}
		errs <- err
		_, _ = w.Write([]byte("lo"))
	}))
	c := dial(t, ts.addr)
	for range 2 {
		resp, body := c.roundTrip("GET", get("/"))
		if body != "hello" || resp.Close {
			t.Fatalf("body %q, close %v", body, resp.Close)
		}
		if err := <-errs; !errors.Is(err, http.ErrContentLength) {
			t.Fatalf("Write = %v, want http.ErrContentLength", err)
		}
	}
}

func TestServeFlushBeforeReturn(t *testing.T) {
	release := make(chan struct{})
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("first"))
		if err := http.NewResponseController(w).Flush(); err != nil {
			_, _ = fmt.Fprintf(w, "flush: %v", err)
		}
		<-release
		_, _ = w.Write([]byte("second"))
	}))
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	c := dial(t, ts.addr)
	c.send(get("/"))
	resp := c.response("GET")
	buf := make([]byte, 5)
	if _, err := io.ReadFull(resp.Body, buf); err != nil || string(buf) != "first" {
		t.Fatalf("read %q, %v while the handler is blocked", buf, err)
	}
	close(release)
	rest, err := io.ReadAll(resp.Body)
	if err != nil || string(rest) != "second" {
		t.Fatalf("rest %q, %v", rest, err)
	}
}

func TestServeChunkedRequestTrailer(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, declared := r.Trailer["X-Sum"]
		body, err := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s|%v|%v %d|%d|%q|%q|%v",
			body, err, declared, len(v), r.ContentLength,
			r.Trailer.Get("X-Sum"), r.Trailer["X-Undeclared"], r.Header["Transfer-Encoding"])
	}))
	c := dial(t, ts.addr)
	req := "POST / HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n" +
		"5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Sum: 42\r\nX-Undeclared: 1\r\n\r\n"
	for range 2 {
		resp, body := c.roundTrip("POST", req)
		if want := `hello world|<nil>|true 0|-1|"42"|[]|[]`; body != want || resp.Close {
			t.Fatalf("got %q, close %v; want %q", body, resp.Close, want)
		}
	}
}

// TestServeChunkSizeLines: the chunk size lines NGINX takes, whitespace
// before an extension included (RFC 9112's BWS, which net/http's reader
// refuses), are read; lines that are not CRLF-ended or not a size fail
// the read, and the connection closes after a response that says so
// ("Connection: close", as NGINX's 400 does).
func TestServeChunkSizeLines(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s|%v", body, err != nil)
	}))
	for _, tc := range []struct{ chunks, want string }{
		{"3 ;x=y\r\nabc\r\n0\r\n\r\n", "abc|false"},
		{"3\t;x\r\nabc\r\n0 ;y\r\n\r\n", "abc|false"},
		{"3 \r\nabc\r\n0\r\n\r\n", "abc|false"},
		{"00000000000000000003\r\nabc\r\n0\r\n\r\n", "abc|false"},
		{"3 x\r\nabc\r\n0\r\n\r\n", "|true"},
		{" 3\r\nabc\r\n0\r\n\r\n", "|true"},
		{"0x3\r\nabc\r\n0\r\n\r\n", "|true"},
		{"3\nabc\r\n0\r\n\r\n", "|true"},
		{"\n", "|true"},
		{"3\r\nabcX\r\n0\r\n\r\n", "abc|true"},
		{"8000000000000000\r\n", "|true"},
	} {
		c := dial(t, ts.addr)
		resp, body := c.roundTrip("POST", "POST / HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"+tc.chunks)
		failed := strings.HasSuffix(tc.want, "true")
		if body != tc.want || resp.Close != failed {
			t.Errorf("%q: got %q, Connection: close %v; want %q", tc.chunks, body, resp.Close, tc.want)
		}
		if failed {
			c.expectClosed()
		}
	}
}

// TestServeChunkOverLimit: once LimitBody is set (client_max_body_size),
// a chunk whose size line takes the body past it fails the read at once,
// without its data, as NGINX answers 413 then.
func TestServeChunkOverLimit(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body.(interface{ LimitBody(int64) }).LimitBody(8)
		body, err := io.ReadAll(r.Body)
		var mb *http.MaxBytesError
		fmt.Fprintf(w, "%s|%v", body, errors.As(err, &mb))
	}))
	c := dial(t, ts.addr)
	c.c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, body := c.roundTrip("POST", "POST / HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n6\r\n"); body != "abc|true" {
		t.Errorf("got %q, want \"abc|true\"", body)
	}
	c.expectClosed()
	c = dial(t, ts.addr)
	if _, body := c.roundTrip("POST", "POST / HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n5\r\nabcde\r\n0\r\n\r\n"); body != "abcabcde|false" {
		t.Errorf("a body of exactly the limit: got %q", body)
	}
}

// TestServeHeaderBuffers: a header is held as NGINX holds it in its
// buffers (client_header_buffer_size, then large_client_header_buffers,
// here 2 of 1 KB): a line that fits the first buffer may be longer than a
// large one, lines move whole into large buffers, and a header that needs
// more of them than there are is refused, however few bytes it has.
func TestServeHeaderBuffers(t *testing.T) {
	line := func(n int) string {
		return "GET /" + strings.Repeat("a", n-len("GET / HTTP/1.1\r\n")) + " HTTP/1.1\r\n"
	}
	field := func(n int) string { return "X-F: " + strings.Repeat("v", n-len("X-F: \r\n")) + "\r\n" }
	two := line(1000) + "Host: t\r\n" + strings.Repeat(field(900), 2) + "\r\n"
	for _, tc := range []struct {
		first  int
		req    string
		status int // 400 is StatusHeaderTooLarge's
	}{
		{1 << 10, line(1024) + "Host: t\r\n\r\n", 200},
		{1 << 10, line(1025) + "Host: t\r\n\r\n", 414},
		{2 << 10, line(2000) + "Host: t\r\n\r\n", 200},
		{2 << 10, line(2100) + "Host: t\r\n\r\n", 414},
		{1 << 10, line(40) + "Host: t\r\n" + field(1024) + "\r\n", 200},
		{1 << 10, line(40) + "Host: t\r\n" + field(1025) + "\r\n", 400},
		{1 << 10, line(40) + "Host: t\r\n" + strings.Repeat(field(900), 3) + "\r\n", 200},
		{1 << 10, line(40) + "Host: t\r\n" + strings.Repeat(field(900), 4) + "\r\n", 400},
		{1 << 10, line(40) + "Host: t\r\n" + strings.Repeat(field(600), 4) + "\r\n", 400},
		// Empty lines take room in the first buffer, which starts over
		// when they fill it.
		{1 << 10, two, 200},
		{1 << 10, strings.Repeat("\r\n", 400) + two, 400},
		{1 << 10, strings.Repeat("\r\n", 512) + two, 200},
	} {
		ts := startServer(t, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), func(s *Server) {
			s.HeaderBufferBytes, s.MaxLineBytes, s.MaxHeaderBytes = tc.first, 1<<10, 2<<10
		})
		resp, _ := dial(t, ts.addr).roundTrip("GET", tc.req)
		if resp.StatusCode != tc.status {
			t.Errorf("first buffer %d, %d bytes: status %d, want %d", tc.first, len(tc.req), resp.StatusCode, tc.status)
		}
	}
}

func TestServeExpectContinue(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/read" {
			b, err := io.ReadAll(r.Body)
			fmt.Fprintf(w, "%s %v", b, err)
			return
		}
		_, _ = io.WriteString(w, "unread")
	}))
	t.Run("read", func(t *testing.T) {
		c := dial(t, ts.addr)
		c.send("POST /read HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
		if resp := c.response("POST"); resp.StatusCode != 100 {
			t.Fatalf("interim status %d, want 100", resp.StatusCode)
		}
		c.send("hello")
		resp := c.response("POST")
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || string(body) != "hello <nil>" || resp.Close {
			t.Fatalf("status %d, body %q, close %v", resp.StatusCode, body, resp.Close)
		}
		resp, b := c.roundTrip("GET", get("/unread"))
		if b != "unread" || resp.Close {
			t.Fatalf("next request: body %q, close %v", b, resp.Close)
		}
	})
	t.Run("unread", func(t *testing.T) {
		c := dial(t, ts.addr)
		c.send("POST /unread HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
		resp := c.response("POST")
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || string(body) != "unread" {
			t.Fatalf("status %d, body %q, want the final response without 100", resp.StatusCode, body)
		}
		c.expectClosed()
	})
	t.Run("HTTP/1.0", func(t *testing.T) {
		c := dial(t, ts.addr)
		c.send("POST /read HTTP/1.0\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhello")
		resp := c.response("POST")
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || string(body) != "hello <nil>" {
			t.Fatalf("status %d, body %q", resp.StatusCode, body)
		}
	})
}

func TestServeUnreadBody(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	// post writes a request with a body of n bytes, in the background as
	// the server reads it only after its response.
	post := func(c *client, n int, chunked bool) chan error {
		var b bytes.Buffer
		if chunked {
			b.WriteString("POST / HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n")
			for left := n; left > 0; left -= 4096 {
				m := min(left, 4096)
				fmt.Fprintf(&b, "%x\r\n%s\r\n", m, bytes.Repeat([]byte("x"), m))
			}
			b.WriteString("0\r\n\r\n")
		} else {
			fmt.Fprintf(&b, "POST / HTTP/1.1\r\nHost: test\r\nContent-Length: %d\r\n\r\n", n)
			b.Write(bytes.Repeat([]byte("x"), n))
		}
		done := make(chan error, 1)
		go func() {
			_, err := c.c.Write(b.Bytes())
			done <- err
		}()
		return done
	}
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprintf("drained chunked=%v", chunked), func(t *testing.T) {
			c := dial(t, ts.addr)
			done := post(c, 200<<10, chunked)
			resp := c.response("POST")
			body, _ := io.ReadAll(resp.Body)
			if string(body) != "ok" || resp.Close {
				t.Fatalf("body %q, close %v", body, resp.Close)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			resp, b := c.roundTrip("GET", get("/"))
			if b != "ok" || resp.Close {
				t.Fatalf("next request: body %q, close %v", b, resp.Close)
			}
		})
	}
	t.Run("too large", func(t *testing.T) {
		c := dial(t, ts.addr)
		done := post(c, 300<<10, false)
		resp := c.response("POST")
		body, _ := io.ReadAll(resp.Body)
		if string(body) != "ok" {
			t.Fatalf("body %q", body)
		}
		if !resp.Close {
			t.Error("the response does not say the connection closes")
		}
		c.expectClosed()
		_ = c.c.Close()
		<-done // fails or not: the server stopped reading
	})
}

func TestServeBadRequests(t *testing.T) {
	var called atomic.Int32
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		called.Add(1)
	}), func(s *Server) {
		s.MaxLineBytes = 1024
		s.MaxHeaderBytes = 4096
	})
	long := strings.Repeat("x", 2000)
	var many strings.Builder
	for i := range 8 {
		fmt.Fprintf(&many, "X-Field-%d: %s\r\n", i, strings.Repeat("y", 700))
	}
	tests := []struct {
		name   string
		req    string
		status int
	}{
		{"bad header name", "GET / HTTP/1.1\r\nHost: test\r\nBad Name: x\r\n\r\n", 400},
		{"missing Host", "GET / HTTP/1.1\r\n\r\n", 400},
		{"obs-fold", "GET / HTTP/1.1\r\nHost: test\r\nX-A: 1\r\n 2\r\n\r\n", 400},
		{"smuggling", "POST / HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400},
		{"request line too long", "GET /" + long + " HTTP/1.1\r\nHost: test\r\n\r\n", 414},
		{"header field too long", "GET / HTTP/1.1\r\nHost: test\r\nX-Long: " + long + "\r\n\r\n", 400},
		{"header too large", "GET / HTTP/1.1\r\nHost: test\r\n" + many.String() + "\r\n", 400},
		{"unknown transfer coding", "POST / HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
		{"HTTP/2.0", "GET / HTTP/2.0\r\nHost: test\r\n\r\n", 505},
		// HTTP/0.9's line has no header after it: answered at once, not
		// at the header timeout.
		{"HTTP/0.9", "GET /\r\n", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dial(t, ts.addr)
			resp, body := c.roundTrip("GET", tt.req)
			if resp.StatusCode != tt.status || !resp.Close {
				t.Fatalf("status %d, close %v; want %d, close", resp.StatusCode, resp.Close, tt.status)
			}
			if !strings.Contains(body, strconv.Itoa(tt.status)) || resp.Header.Get("Content-Type") != "text/html" {
				t.Errorf("body %q, Content-Type %q", body, resp.Header.Get("Content-Type"))
			}
			c.expectClosed()
		})
	}
	t.Run("after a good request", func(t *testing.T) {
		c := dial(t, ts.addr)
		c.roundTrip("GET", get("/"))
		resp, _ := c.roundTrip("GET", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n")
		if resp.StatusCode != 400 || !resp.Close {
			t.Fatalf("status %d, close %v", resp.StatusCode, resp.Close)
		}
		c.expectClosed()
	})
	if n := called.Load(); n != 1 {
		t.Errorf("handler called %d times, want once", n)
	}
}

func TestServeHeaderValueNewlines(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Evil", "a\r\nInjected: yes")
		w.Header().Set("X-Lf", "b\nSet-Cookie: c=d")
		w.Header().Set("X-Cr", "e\rX-Cr-Injected: f")
	}))
	c := dial(t, ts.addr)
	c.send(get("/"))
	head := c.rawHead()
	for _, l := range head {
		if strings.HasPrefix(l, "Injected") || strings.HasPrefix(l, "Set-Cookie") || strings.HasPrefix(l, "X-Cr-Injected") || strings.ContainsAny(l, "\r\n") {
			t.Errorf("injected header line %q", l)
		}
	}
	for name, want := range map[string]string{
		"X-Evil": "a  Injected: yes",
		"X-Lf":   "b Set-Cookie: c=d",
		"X-Cr":   "e X-Cr-Injected: f",
	} {
		if v, n := field(head, name); v != want || n != 1 {
			t.Errorf("%s: %q (%d lines), want %q", name, v, n, want)
		}
	}
}

// TestServeKeepAliveAndTrailerFields: a handler's Keep-Alive field goes
// out while the connection stays open and not with a response that
// closes it; a field the Trailer field names waits for the trailer, and
// the Trailer field itself goes out in the header.
func TestServeKeepAliveAndTrailerFields(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Keep-Alive", "timeout=5")
		w.Header().Set("X-Kept", "1")
		if r.URL.Path == "/close" {
			w.Header().Set("Connection", "close")
		}
		if r.URL.Path == "/trailer" {
			w.Header().Set("Trailer", "X-Sum")
			w.Header().Set("X-Sum", "early")
		}
	}))
	c := dial(t, ts.addr)
	c.send(get("/trailer"))
	head := c.rawHead()
	for name, want := range map[string]int{"Keep-Alive": 1, "X-Kept": 1, "Trailer": 1, "X-Sum": 0} {
		if _, n := field(head, name); n != want {
			t.Errorf("/trailer: %d %s lines, want %d", n, name, want)
		}
	}
	c = dial(t, ts.addr) // a fresh connection: the body above is not read
	c.send(get("/close"))
	head = c.rawHead()
	for name, want := range map[string]int{"Keep-Alive": 0, "X-Kept": 1} {
		if _, n := field(head, name); n != want {
			t.Errorf("/close: %d %s lines, want %d", n, name, want)
		}
	}
	if v, _ := field(head, "Connection"); v != "close" {
		t.Errorf("/close: Connection %q", v)
	}
}

func TestServeDate(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/fixed":
			w.Header().Set("Date", "Mon, 02 Jan 2006 15:04:05 GMT")
		case "/none":
			w.Header()["Date"] = nil
		}
	}))
	c := dial(t, ts.addr)
	// The Date is the clock read while the response is made: between
	// the request's sending and the answer's arrival, to the second
	// (which Date drops), however long a loaded machine takes.
	before := time.Now().Truncate(time.Second)
	c.send(get("/"))
	head := c.rawHead()
	after := time.Now()
	v, n := field(head, "Date")
	d, err := http.ParseTime(v)
	if n != 1 || err != nil {
		t.Fatalf("Date %q (%d lines): %v", v, n, err)
	}
	if d.Before(before) || d.After(after) {
		t.Errorf("Date %v, not between the request (%v) and its answer (%v)", d, before, after)
	}
	c.send(get("/fixed"))
	if v, n := field(c.rawHead(), "Date"); v != "Mon, 02 Jan 2006 15:04:05 GMT" || n != 1 {
		t.Errorf("handler's Date: %q (%d lines)", v, n)
	}
	c.send(get("/none"))
	if v, n := field(c.rawHead(), "Date"); n != 0 {
		t.Errorf("Date %q sent though the handler set it to nil", v)
	}
}

func TestServeResponseTrailers(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/declared":
			w.Header().Set("Trailer", "X-Declared")
			_, _ = io.WriteString(w, "body")
			w.Header().Set("X-Declared", "d")
			w.Header().Set(http.TrailerPrefix+"X-Prefixed", "p")
		case "/flushed":
			_, _ = io.WriteString(w, "a")
			w.(http.Flusher).Flush()
			_, _ = io.WriteString(w, "b")
			w.Header().Set(http.TrailerPrefix+"X-Late", "late")
		case "/swapped":
			// As many keys at the end as at the head, one of them a
			// trailer's: the end must not take the map for the head's.
			w.Header().Set("X-Head", "h")
			_, _ = io.WriteString(w, "s")
			w.(http.Flusher).Flush()
			w.Header().Del("X-Head")
			w.Header().Set(http.TrailerPrefix+"X-Swapped", "late")
		case "/early":
			// A "Trailer:" key set before the head, and the same keys at
			// the end: the head's keys are no proof of no trailer here.
			w.Header().Set(http.TrailerPrefix+"X-Early", "e")
			_, _ = io.WriteString(w, "e")
			w.(http.Flusher).Flush()
		case "/declared-nil":
			// The declared field is a key without values at the head (no
			// line) and gets its value after: the key set is unchanged,
			// but the Trailer field makes it a trailer.
			w.Header().Set("Trailer", "X-Sum")
			w.Header()["X-Sum"] = nil
			_, _ = io.WriteString(w, "n")
			w.(http.Flusher).Flush()
			w.Header()["X-Sum"] = []string{"v"}
		}
	}))
	tr, base := &http.Transport{}, "http://"+ts.addr
	if overTLS {
		// A TLS configuration of its own keeps the transport on HTTP/1.1.
		tr.TLSClientConfig, base = &tls.Config{InsecureSkipVerify: true}, "https://"+ts.addr
	}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: testTimeout}
	for _, tt := range []struct {
		path, body string
		trailer    http.Header
	}{
		{"/declared", "body", http.Header{"X-Declared": {"d"}, "X-Prefixed": {"p"}}},
		{"/flushed", "ab", http.Header{"X-Late": {"late"}}},
		{"/swapped", "s", http.Header{"X-Swapped": {"late"}}},
		{"/early", "e", http.Header{"X-Early": {"e"}}},
		{"/declared-nil", "n", http.Header{"X-Sum": {"v"}}},
	} {
		resp, err := hc.Get(base + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil || string(body) != tt.body {
			t.Fatalf("%s: body %q, %v", tt.path, body, err)
		}
		if len(resp.TransferEncoding) != 1 || resp.TransferEncoding[0] != "chunked" {
			t.Errorf("%s: TransferEncoding %q", tt.path, resp.TransferEncoding)
		}
		for k, want := range tt.trailer {
			if got := resp.Trailer[k]; len(got) != 1 || got[0] != want[0] {
				t.Errorf("%s: trailer %s = %q, want %q", tt.path, k, got, want)
			}
			if v, ok := resp.Header[k]; ok {
				t.Errorf("%s: %s = %q sent in the header", tt.path, k, v)
			}
		}
	}
}

func TestServeReadFromFile(t *testing.T) {
	const size = 1 << 20
	data := pattern(size)
	name := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(name, data, 0o600); err != nil {
		t.Fatal(err)
	}
	type result struct {
		n   int64
		err error
	}
	results := make(chan result, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Open(name)
		if err != nil {
			results <- result{0, err}
			return
		}
		defer f.Close()
		n := int64(size)
		if r.URL.Path == "/small" {
			n = 1000
		}
		if r.URL.Path != "/nolength" {
			w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
		}
		got, err := io.Copy(w, &io.LimitedReader{R: f, N: n})
		results <- result{got, err}
	}))
	c := dial(t, ts.addr)
	for _, tt := range []struct {
		path string
		n    int
	}{{"/file", size}, {"/small", 1000}, {"/nolength", size}, {"/file", size}} {
		resp, body := c.roundTrip("GET", get(tt.path))
		if res := <-results; res.err != nil || res.n != int64(tt.n) {
			t.Fatalf("%s: io.Copy = %d, %v; want %d", tt.path, res.n, res.err, tt.n)
		}
		if !bytes.Equal([]byte(body), data[:tt.n]) {
			t.Fatalf("%s: body of %d bytes differs from the file's first %d", tt.path, len(body), tt.n)
		}
		if resp.Close {
			t.Fatalf("%s: connection closes", tt.path)
		}
	}
}

func TestServeHijack(t *testing.T) {
	errs := make(chan error, 2)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			errs <- err
			return
		}
		if _, err := w.Write([]byte("x")); !errors.Is(err, http.ErrHijacked) {
			errs <- fmt.Errorf("Write after Hijack = %v", err)
		}
		// Serve the rest after the handler returns: the connection is ours.
		go func() {
			defer conn.Close()
			buf := make([]byte, 9)
			if _, err := io.ReadFull(brw, buf); err != nil {
				errs <- err
				return
			}
			fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(buf), buf)
			errs <- nil
		}()
	}))
	c := dial(t, ts.addr)
	c.send("GET / HTTP/1.1\r\nHost: test\r\n\r\nPING")
	c.send(" PONG")
	resp, body := c.roundTrip("GET", "")
	if resp.StatusCode != 200 || body != "PING PONG" {
		t.Fatalf("status %d, body %q", resp.StatusCode, body)
	}
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	c.expectClosed()
}

// syncBuffer is a bytes.Buffer for a logger written from other goroutines.
type syncBuffer = syncbuf.Buffer

func TestServePanic(t *testing.T) {
	var logs syncBuffer
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/panic":
			w.Header().Set("X-Before", "1")
			_, _ = io.WriteString(w, "partial")
			panic("boom")
		case "/abort":
			panic(http.ErrAbortHandler)
		}
	}), func(s *Server) {
		s.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	t.Run("panic", func(t *testing.T) {
		c := dial(t, ts.addr)
		resp, body := c.roundTrip("GET", get("/panic"))
		if resp.StatusCode != 500 || !resp.Close || body != "" || resp.Header.Get("X-Before") != "" {
			t.Fatalf("status %d, close %v, body %q, header %v", resp.StatusCode, resp.Close, body, resp.Header)
		}
		c.expectClosed()
		if l := logs.String(); !strings.Contains(l, "level=ERROR") || !strings.Contains(l, "boom") {
			t.Errorf("panic not logged: %q", l)
		}
	})
	t.Run("ErrAbortHandler", func(t *testing.T) {
		before := logs.String()
		c := dial(t, ts.addr)
		c.send(get("/abort"))
		c.expectClosed()
		if l := logs.String(); l != before {
			t.Errorf("http.ErrAbortHandler logged: %q", strings.TrimPrefix(l, before))
		}
	})
}

func TestServeClientGoneCancelsContext(t *testing.T) {
	started := make(chan struct{})
	cancelled := make(chan error, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		select {
		case <-r.Context().Done():
			cancelled <- r.Context().Err()
		case <-time.After(testTimeout):
			cancelled <- errors.New("context not cancelled")
		}
	}))
	c := dial(t, ts.addr)
	c.send(get("/"))
	<-started
	_ = c.c.Close()
	select {
	case err := <-cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
	case <-time.After(testTimeout):
		t.Fatalf("request context not cancelled within %v of the client closing", testTimeout)
	}
}

func TestServeShutdown(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(started)
			<-release
		}
		_, _ = io.WriteString(w, "done")
	}))
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	idle := dial(t, ts.addr)
	if resp, _ := idle.roundTrip("GET", get("/")); resp.Close {
		t.Fatal("idle connection not kept alive")
	}
	busy := dial(t, ts.addr)
	busy.send(get("/slow"))
	<-started

	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		shut <- ts.Shutdown(ctx)
	}()
	idle.expectClosed()
	if err := ts.serveResult(t); !errors.Is(err, http.ErrServerClosed) {
		t.Fatalf("Serve = %v, want http.ErrServerClosed", err)
	}
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v with a request in flight", err)
	default:
	}
	if c, err := net.Dial("tcp", ts.addr); err == nil {
		_ = c.Close()
		t.Error("listener still accepts after Shutdown")
	}

	close(release)
	resp, body := busy.roundTrip("GET", "")
	if body != "done" || !resp.Close {
		t.Fatalf("in-flight response: body %q, close %v", body, resp.Close)
	}
	busy.expectClosed()
	select {
	case err := <-shut:
		if err != nil {
			t.Fatalf("Shutdown = %v", err)
		}
	case <-time.After(testTimeout):
		t.Fatal("Shutdown did not return")
	}
}

func TestServeKeepAliveTimeout(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), func(s *Server) {
		s.KeepAliveTimeout = 100 * time.Millisecond
	})
	c := dial(t, ts.addr)
	if resp, _ := c.roundTrip("GET", get("/")); resp.Close {
		t.Fatal("connection not kept alive")
	}
	c.expectClosed()
}

func TestServeKeepAliveOff(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), func(s *Server) {
		s.KeepAliveTimeout = 0
	})
	c := dial(t, ts.addr)
	if resp, _ := c.roundTrip("GET", "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"); !resp.Close {
		t.Fatal("response does not close with KeepAliveTimeout zero")
	}
	c.expectClosed()
}

// A header not whole within HeaderTimeout closes the connection with
// nothing sent, as NGINX 1.22 does (no 408 goes out, whatever its
// documentation says), logged at info as NGINX logs it.
func TestServeHeaderTimeout(t *testing.T) {
	log := &syncbuf.Buffer{}
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), func(s *Server) {
		s.HeaderTimeout = 300 * time.Millisecond
		s.Logger = slog.New(slog.NewTextHandler(log, nil))
	})
	tests := []struct {
		name, first, send, while string
	}{
		{"nothing sent", "", "", "waiting for request"},
		{"partial request line", "", "GET /fo", "reading client request line"},
		{"empty lines only", "", "\r\n", "reading client request line"},
		{"partial header", "", "GET / HTTP/1.1\r\nHost: te", "reading client request headers"},
		{"later partial request line", get("/"), "GET / HT", "reading client request line"},
		{"later partial header", get("/"), "GET / HTTP/1.1\r\n", "reading client request headers"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// A first request's timeout runs from the accept, which the
			// TLS handshake in dial shares (NGINX's timer too): measured
			// from after dial, a slow handshake (-race, a loaded machine)
			// made the close look early. A later request's runs from its
			// first byte.
			start := time.Now()
			c := dial(t, ts.addr)
			if tc.first != "" {
				c.roundTrip("GET", tc.first)
				start = time.Now()
			}
			if tc.send != "" {
				c.send(tc.send)
			}
			c.expectClosed()
			if d := time.Since(start); d < 250*time.Millisecond {
				t.Errorf("closed after %v, before the header timeout", d)
			}
			want := `msg="client timed out" client=` + c.c.LocalAddr().String() + ` while="` + tc.while + `"`
			waitFor(t, func() bool { return strings.Contains(log.String(), want) }, "log line "+want+" in "+log.String())
		})
	}
}

// waitFor polls cond until it holds, failing the test after testTimeout.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for end := time.Now().Add(testTimeout); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// A connection waiting for its next request holds neither a read buffer
// nor its header's nor the response's, and once parked no goroutine (or,
// without epoll, one with a small stack), whatever the handler grew: the
// live heap and the stacks that N idle connections add (both ends here,
// in one process) stay far below the 4 KB read buffer each that they held
// before.
func TestServeIdleConnectionsAreCheap(t *testing.T) {
	if overTLS {
		t.Skip("the record layer keeps its own buffers")
	}
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		growStack(64)
		w.Header().Set("X-Test", "idle")
		_, _ = io.WriteString(w, "hello")
	}))
	const n = 200
	var ms runtime.MemStats
	measure := func() (heap, stack uint64) {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc, ms.StackInuse
	}
	conns := make([]net.Conn, 0, n)
	t.Cleanup(func() {
		for _, c := range conns {
			_ = c.Close()
		}
	})
	heap0, stack0 := measure()
	req := get("/")
	var buf [512]byte
	for range n {
		c, err := net.Dial("tcp", ts.addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		_ = c.SetDeadline(time.Now().Add(testTimeout))
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		if m, err := c.Read(buf[:]); err != nil || !strings.HasSuffix(string(buf[:m]), "hello") {
			t.Fatalf("response %q, %v", buf[:m], err)
		}
	}
	waitParked(t, n)
	heap1, stack1 := measure()
	heapEach, stackEach := (int64(heap1)-int64(heap0))/n, (int64(stack1)-int64(stack0))/n
	t.Logf("per idle connection: %d bytes of heap, %d of stack", heapEach, stackEach)
	if heapEach > 3<<10 {
		t.Errorf("idle connections hold %d bytes of heap each, want at most 3 KB", heapEach)
	}
	if stackEach > 4<<10 {
		t.Errorf("idle connections hold %d bytes of stack each, want at most 4 KB", stackEach)
	}
}

// growStack uses about n KB of stack, as a handler with a deep call chain
// does.
//
//go:noinline
func growStack(n int) byte {
	var pad [1 << 10]byte
	if n <= 1 {
		return pad[0]
	}
	pad[n%len(pad)] = byte(n)
	return growStack(n-1) + pad[(n+1)%len(pad)]
}

func TestServeMaxRequests(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), func(s *Server) {
		s.MaxRequests = 2
	})
	c := dial(t, ts.addr)
	if resp, _ := c.roundTrip("GET", get("/")); resp.Close {
		t.Fatal("first response closes")
	}
	if resp, _ := c.roundTrip("GET", get("/")); !resp.Close {
		t.Fatal("second response does not say Connection: close")
	}
	c.expectClosed()
}

type ctxKey struct{}

func TestServeContext(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		fmt.Fprintf(w, "%v|%v|%s", r.Context().Value(ctxKey{}), local, r.RemoteAddr)
	}), func(s *Server) {
		s.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, ctxKey{}, "conn "+c.RemoteAddr().String())
		}
	})
	c := dial(t, ts.addr)
	me := c.c.LocalAddr().String()
	for range 2 {
		_, body := c.roundTrip("GET", get("/"))
		if want := "conn " + me + "|" + ts.addr + "|" + me; body != want {
			t.Fatalf("got %q, want %q", body, want)
		}
	}
}

// A handler that answers 499 (NGINX's "client closed request", a status
// for the logs) sends nothing, even to a client that only half-closed its
// side and could still read, and the connection closes.
func TestServeClientClosedSendsNothing(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(499)
		_, _ = io.WriteString(w, "never sent")
	}))
	c := dial(t, ts.addr)
	c.send(get("/"))
	c.expectClosed()
}

// Server.Refused may answer a refused request through Refusal.Answer,
// which closes the connection whatever its header says; what it leaves
// unwritten gets the server's own page, also when it panics.
func TestRefusedAnswer(t *testing.T) {
	var got []*Refusal
	var mu sync.Mutex
	ts := startServer(t, http.NotFoundHandler(), func(s *Server) {
		s.Refused = func(rf *Refusal) {
			mu.Lock()
			got = append(got, rf)
			mu.Unlock()
			switch {
			case strings.Contains(rf.Line, "/answer"):
				rf.Answer.Header().Set("X-Refused", strconv.Itoa(rf.Status))
				rf.Answer.Header().Set("Connection", "keep-alive")
				rf.Answer.WriteHeader(rf.Status)
				io.WriteString(rf.Answer, "own page")
			case strings.Contains(rf.Line, "/panic"):
				panic("refusal handler")
			}
		}
	})
	for _, tc := range []struct {
		req, method, body string
		status            int
	}{
		{"GET /answer HTTP/1.1\r\nHost: a\r\nBad Name: x\r\n\r\n", "GET", "own page", 400},
		{"GET /panic HTTP/1.1\r\nHost: a\r\nBad Name: x\r\n\r\n", "GET", "<html>", 400},
		{"GET /plain HTTP/1.1\r\nHost: a\r\nX: " + strings.Repeat("x", 9000) + "\r\n\r\n", "GET", "Request Header Or Cookie Too Large", 400},
		{"GET /answer HTTP/2.0\r\nHost: a\r\n\r\n", "", "own page", 505},
	} {
		c := dial(t, ts.addr)
		resp, body := c.roundTrip("GET", tc.req)
		if resp.StatusCode != tc.status || !resp.Close || !strings.Contains(body, tc.body) {
			t.Errorf("%.30q: %d close=%v %q", tc.req, resp.StatusCode, resp.Close, body)
		}
		c.expectClosed()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 4 || got[2].Status != StatusHeaderTooLarge || got[0].Method != "GET" || got[3].Method != "" {
		for _, rf := range got {
			t.Logf("%+v", *rf)
		}
		t.Error("refusals reported wrong")
	}
}

// A refused request whose answer runs past WriteTimeout closes by the
// server's ResetTimedOut, not by the SetResetTimedOut of the request
// served before it on the connection: NGINX frees a request refused at
// parse with the default server's reset_timedout_connection. The client
// reads nothing until the answer, too large for the socket's buffers,
// has timed out.
func TestRefusedAnswerTimedOutResets(t *testing.T) {
	for _, on := range []bool{true, false} {
		// The client reads only once the answer's write has timed out: a
		// fixed wait let a server delayed by a loaded CPU finish the
		// write into a reading client, which then saw no reset.
		timedOut := make(chan struct{})
		ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.(interface{ SetResetTimedOut(bool) }).SetResetTimedOut(!on)
			io.WriteString(w, "ok")
		}), func(s *Server) {
			s.ResetTimedOut, s.WriteTimeout = on, 300*time.Millisecond
			s.Refused = func(rf *Refusal) {
				if rf.Answer != nil {
					rf.Answer.Write(make([]byte, 32<<20))
					close(timedOut)
				}
			}
		})
		c := dial(t, ts.addr)
		c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")
		select {
		case <-timedOut:
		case <-time.After(30 * time.Second):
			t.Fatalf("ResetTimedOut %v: the refusal's answer never ended", on)
		}
		_, err := io.Copy(io.Discard, c.br)
		if reset := errors.Is(err, syscall.ECONNRESET); reset != on {
			t.Errorf("ResetTimedOut %v: read ended with %v", on, err)
		}
	}
}

// SpellFields' names replace the keys they spell in case alone; a key
// that several names spell sends its values under them in turn, the
// last for the values past them; a field no name spells keeps its key,
// and the next response on the connection has no names.
func TestServeSpellFields(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["X-Dup"] = []string{"1", "2", "3"}
		h["X_a"] = []string{"a"}
		h["X-Plain"] = []string{"p"}
		if r.URL.Path == "/spelt" {
			w.(interface{ SpellFields([]string) }).SpellFields([]string{"X_A", "X-DUP", "x-dup"})
		}
	}))
	c := dial(t, ts.addr)
	for _, path := range []string{"/spelt", "/plain"} {
		c.send(get(path))
		var got []string
		for _, l := range c.rawHead()[1:] {
			if l[0] == 'X' || l[0] == 'x' {
				got = append(got, l)
			}
		}
		want := "[X-DUP: 1 x-dup: 2 x-dup: 3 X-Plain: p X_A: a]"
		if path == "/plain" {
			want = "[X-Dup: 1 X-Dup: 2 X-Dup: 3 X-Plain: p X_a: a]"
		}
		if fmt.Sprint(got) != want {
			t.Errorf("%s: %q, want %s", path, got, want)
		}
	}
}

// SetReason's text goes out after its code only, and not when it holds
// a control byte; the status lines are NGINX's otherwise.
func TestServeSetReason(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs := w.(interface{ SetReason(int, string) })
		switch r.URL.Path {
		case "/fine":
			rs.SetReason(200, " Fine")
		case "/other":
			rs.SetReason(404, " Nope")
		case "/bad":
			rs.SetReason(200, " Fine\r\nX-Injected: 1")
		case "/bare":
			rs.SetReason(200, "")
		case "/418":
			w.WriteHeader(418)
			return
		}
		w.WriteHeader(200)
	}))
	c := dial(t, ts.addr)
	for path, want := range map[string]string{
		"/fine": "HTTP/1.1 200 Fine", "/other": "HTTP/1.1 200 OK", "/bad": "HTTP/1.1 200 OK", "/418": "HTTP/1.1 418 ",
		"/bare": "HTTP/1.1 200",
	} {
		c.send(get(path))
		if lines := c.rawHead(); lines[0] != want {
			t.Errorf("%s: %q, want %q", path, lines, want)
		}
	}
}
