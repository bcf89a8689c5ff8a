package http1

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// A CONNECT request's authority is its host, whatever Host says; an
// authority with a path is refused.
func TestParseConnectAuthority(t *testing.T) {
	var r http.Request
	if err := parseHead("CONNECT a.example:443 HTTP/1.1\r\nHost: b.example", &r); err != nil {
		t.Fatal(err)
	}
	if r.Host != "a.example:443" || r.URL.Host != "a.example:443" {
		t.Errorf("Host %q, URL.Host %q", r.Host, r.URL.Host)
	}
	var bad http.Request
	err := parseHead("CONNECT a/b HTTP/1.1\r\nHost: b.example", &bad)
	if re, ok := err.(*requestError); !ok || re.status != http.StatusBadRequest {
		t.Errorf("CONNECT a/b: %v", err)
	}
}

// "close" wins over "keep-alive" in an HTTP/1.0 request.
func TestParseHTTP10CloseWins(t *testing.T) {
	var r http.Request
	if err := parseHead("GET / HTTP/1.0\r\nConnection: keep-alive, close", &r); err != nil {
		t.Fatal(err)
	}
	if !r.Close {
		t.Error("Close = false")
	}
}

// Two Shutdowns at once both return when the last request is done.
func TestServeConcurrentShutdowns(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
	}))
	c := dial(t, ts.addr)
	c.send(get("/"))
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- ts.Shutdown(ctx) }()
	}
	for !ts.closing.Load() {
		runtime.Gosched() // until a Shutdown has begun
	}
	close(release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("Shutdown = %v", err)
		}
	}
}

// Serve closes its listener when it returns, even when the server was
// closed before it started.
func TestServeClosesListener(t *testing.T) {
	s := &Server{Handler: http.NotFoundHandler(), Logger: quietLogger}
	_ = s.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		t.Fatalf("Serve = %v", err)
	}
	if _, err := ln.Accept(); err == nil {
		t.Error("listener still open")
	}
}

// A source longer than the declared Content-Length is an error, through
// the buffer and through the socket's own ReadFrom.
func TestServeReadFromBeyondContentLength(t *testing.T) {
	errs := make(chan error, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := strings.Repeat("x", 100<<10)
		if r.URL.Path == "/small" {
			body = "hello world"
		}
		w.Header().Set("Content-Length", "5")
		_, err := w.(io.ReaderFrom).ReadFrom(&io.LimitedReader{R: strings.NewReader(body), N: int64(len(body))})
		errs <- err
	}))
	for _, path := range []string{"/small", "/large"} {
		c := dial(t, ts.addr)
		_, body := c.roundTrip("GET", get(path))
		if err := <-errs; !errors.Is(err, http.ErrContentLength) {
			t.Errorf("%s: ReadFrom = %v, want http.ErrContentLength", path, err)
		}
		if body != "hello" && body != "xxxxx" {
			t.Errorf("%s: body %q", path, body)
		}
	}
}

// A request trailer with a control character fails the body read.
func TestServeBadTrailerValue(t *testing.T) {
	errs := make(chan error, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		errs <- err
	}))
	c := dial(t, ts.addr)
	c.send("POST / HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\nTrailer: X-T\r\n\r\n" +
		"1\r\na\r\n0\r\nX-T: a\x00b\r\n\r\n")
	if err := <-errs; err == nil {
		t.Error("a trailer value with NUL was accepted")
	}
}

// Changes to the header after WriteHeader do not go out.
func TestServeHeaderAfterWriteHeader(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.Header().Set("X-After", "1")
		_, _ = io.WriteString(w, "ok")
	}))
	c := dial(t, ts.addr)
	resp, body := c.roundTrip("GET", get("/"))
	if body != "ok" || resp.Header.Get("X-After") != "" {
		t.Errorf("body %q, X-After %q", body, resp.Header.Get("X-After"))
	}
}
