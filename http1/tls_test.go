package http1

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/syncbuf"
	"github.com/mosaic-edge/mosaic/internal/testpki"
)

// overTLS makes startServer serve TLS and dial (and clientConn) complete
// a handshake that offers only "http/1.1": TestServeOverTLS sets it to run
// the connection tests again over TLS.
var overTLS bool

// testServerTLS is a TLS configuration with a self-signed certificate
// for "test".
func testServerTLS(t testing.TB) *tls.Config {
	t.Helper()
	return &tls.Config{
		Certificates: []tls.Certificate{testpki.SelfSigned(t, "test")},
		NextProtos:   []string{"h2", "http/1.1"},
	}
}

// clientConn returns nc, or when overTLS a TLS client on it that has
// completed its handshake with "http/1.1" as its only protocol.
func clientConn(t *testing.T, nc net.Conn) net.Conn {
	t.Helper()
	if !overTLS {
		return nc
	}
	return tlsClient(t, nc, "http/1.1")
}

// tlsClient completes a client handshake on nc offering protos.
func tlsClient(t *testing.T, nc net.Conn, protos ...string) *tls.Conn {
	t.Helper()
	tc := tls.Client(nc, &tls.Config{InsecureSkipVerify: true, ServerName: "test", NextProtos: protos})
	if err := tc.Handshake(); err != nil {
		_ = nc.Close()
		t.Fatalf("TLS handshake: %v", err)
	}
	return tc
}

// dialTLS connects to addr as a TLS client offering protos.
func dialTLS(t *testing.T, addr string, protos ...string) *client {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = nc.SetDeadline(time.Now().Add(testTimeout))
	tc := tlsClient(t, nc, protos...)
	t.Cleanup(func() { _ = tc.Close() })
	return &client{t: t, c: tc, br: bufio.NewReader(tc)}
}

// socket returns the TCP connection under a test client's connection.
func socket(c net.Conn) *net.TCPConn {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	return c.(*net.TCPConn)
}

// TestServeOverTLS runs the connection tests again on TLS connections
// that chose HTTP/1.1: the server's rules (framing, keep-alive and its
// limits, header limits and timeouts, refusals, lingering, the watch,
// shutdown, hijacking) must hold the same over TLS.
func TestServeOverTLS(t *testing.T) {
	tests := []struct {
		name string
		f    func(*testing.T)
	}{
		{"KeepAlive", TestServeKeepAlive},
		{"Pipelining", TestServePipelining},
		{"HTTP10", TestServeHTTP10},
		{"ClientConnectionClose", TestServeClientConnectionClose},
		{"ResponseFraming", TestServeResponseFraming},
		{"HEAD", TestServeHEAD},
		{"BodylessStatus", TestServeBodylessStatus},
		{"ShortBodyCloses", TestServeShortBodyCloses},
		{"WriteBeyondContentLength", TestServeWriteBeyondContentLength},
		{"FlushBeforeReturn", TestServeFlushBeforeReturn},
		{"ChunkedRequestTrailer", TestServeChunkedRequestTrailer},
		{"ExpectContinue", TestServeExpectContinue},
		{"UnreadBody", TestServeUnreadBody},
		{"BadRequests", TestServeBadRequests},
		{"HeaderValueNewlines", TestServeHeaderValueNewlines},
		{"ResponseTrailers", TestServeResponseTrailers},
		{"ReadFromFile", TestServeReadFromFile},
		{"ReadFromBuffers", TestServeReadFromBuffers},
		{"Hijack", TestServeHijack},
		{"Panic", TestServePanic},
		{"ClientGoneCancelsContext", TestServeClientGoneCancelsContext},
		{"Shutdown", TestServeShutdown},
		{"NoDrainWhenClosing", TestServeNoDrainWhenClosing},
		{"KeepAliveTimeout", TestServeKeepAliveTimeout},
		{"KeepAliveOff", TestServeKeepAliveOff},
		{"HeaderTimeout", TestServeHeaderTimeout},
		{"MaxRequests", TestServeMaxRequests},
		{"LingeringClose", TestServeLingeringClose},
		{"LingerWithBytesUnwatched", TestLingerWithBytesUnwatched},
		{"WriteTimeout", TestServeWriteTimeout},
		{"Informational", TestServeInformational},
		{"Context", TestServeContext},
		{"WireSizes", TestServeWireSizes},
		{"HeaderTextOutlivesReadBuffer", TestHeaderTextOutlivesReadBuffer},
	}
	overTLS = true
	t.Cleanup(func() { overTLS = false })
	for _, tc := range tests {
		t.Run(tc.name, tc.f)
	}
}

// Requests on a TLS connection carry its state in r.TLS, whether the
// client chose HTTP/1.1 by ALPN or offered no protocol at all.
func TestServeTLSState(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil {
			_, _ = io.WriteString(w, "no TLS")
			return
		}
		fmt.Fprintf(w, "%s|%q|%v", r.TLS.ServerName, r.TLS.NegotiatedProtocol, r.TLS.HandshakeComplete)
	}), func(s *Server) { s.TLSConfig = testServerTLS(t) })
	for _, protos := range [][]string{{"http/1.1"}, nil} {
		c := dialTLS(t, ts.addr, protos...)
		want := `test|"http/1.1"|true`
		if protos == nil {
			want = `test|""|true`
		}
		for range 2 {
			if _, body := c.roundTrip("GET", get("/")); body != want {
				t.Errorf("ALPN %q: body %q, want %q", protos, body, want)
			}
		}
	}
}

// A connection whose ALPN protocol is in TLSNextProto is handed over
// after its handshake, without a deadline, and is the other server's:
// Shutdown neither waits for it nor closes it.
func TestServeTLSNextProto(t *testing.T) {
	handed := make(chan *tls.Conn, 1)
	// The handshake must end within it: 100 ms, under -race on a loaded
	// machine, once cut it short, and nothing was handed over.
	const headerTimeout = time.Second
	ts := startServer(t, http.NotFoundHandler(), func(s *Server) {
		s.TLSConfig = testServerTLS(t)
		s.HeaderTimeout = headerTimeout
		s.TLSNextProto = map[string]func(*tls.Conn){"h2": func(c *tls.Conn) { handed <- c }}
	})
	dialed := time.Now()
	client := dialTLS(t, ts.addr, "h2", "http/1.1").c
	var server *tls.Conn
	select {
	case server = <-handed:
	case <-time.After(testTimeout):
		t.Fatal("the h2 connection was not handed over")
	}
	defer server.Close()
	if p := server.ConnectionState().NegotiatedProtocol; p != "h2" {
		t.Fatalf("handed over with protocol %q", p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := ts.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown = %v", err)
	}
	time.Sleep(time.Until(dialed.Add(headerTimeout + 100*time.Millisecond))) // past the handshake's deadline
	go func() { _, _ = io.WriteString(server, "still here") }()
	buf := make([]byte, len("still here"))
	if _, err := io.ReadFull(client, buf); err != nil || string(buf) != "still here" {
		t.Fatalf("after Shutdown the handed-over connection read %q, %v", buf, err)
	}
}

// The handshake runs off the accept loop, within HeaderTimeout: a client
// that never sends its hello holds up no other and is cut off.
func TestServeTLSHandshakeTimeout(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}), func(s *Server) {
		s.TLSConfig = testServerTLS(t)
		s.HeaderTimeout = 500 * time.Millisecond
	})
	silent, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	start := time.Now()
	closed := make(chan error, 1)
	go func() {
		_ = silent.SetReadDeadline(time.Now().Add(testTimeout))
		_, err := silent.Read(make([]byte, 1))
		closed <- err
	}()

	if _, body := dialTLS(t, ts.addr, "http/1.1").roundTrip("GET", get("/")); body != "ok" {
		t.Fatalf("body %q", body)
	}
	select {
	case err := <-closed:
		t.Fatalf("the silent client was cut off before another was served: %v", err)
	default:
	}
	if err := <-closed; !errors.Is(err, io.EOF) {
		t.Fatalf("the silent client's read ended with %v, want EOF", err)
	}
	if d := time.Since(start); d < 400*time.Millisecond || d > 5*time.Second {
		t.Fatalf("the silent client was cut off after %v, want about 500ms", d)
	}
}

// The handshake and the first request's header share one HeaderTimeout
// from the accept, as they share NGINX's client_header_timeout timer: a
// client that handshakes late has only the rest for its header.
//
// The close is told from one timed from the handshake's end by coming
// before that end plus the timeout (less a margin for the client's and
// the server's ends of the handshake), not by a bound on the time from
// the connect: with the client's wait before its handshake half the
// timeout, load may delay the close by nearly that half before the
// test fails, where a bound 400 ms past the timeout failed when it
// delayed it 400 ms.
func TestServeTLSHandshakeAndHeaderShareTimeout(t *testing.T) {
	const timeout = 2 * time.Second
	ts := startServer(t, http.NotFoundHandler(), func(s *Server) {
		s.TLSConfig = testServerTLS(t)
		s.HeaderTimeout = timeout
	})
	start := time.Now()
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(testTimeout))
	time.Sleep(timeout / 2)
	tc := tlsClient(t, nc, "http/1.1")
	handshaken := time.Now()
	if _, err := io.WriteString(tc, "GET / HTTP/1.1\r\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(tc); err != nil {
		t.Fatal(err)
	}
	closed := time.Now()
	if d := closed.Sub(start); d < timeout-100*time.Millisecond {
		t.Errorf("closed %v after the connect, before the timeout, %v", d, timeout)
	}
	if d := closed.Sub(handshaken); d > timeout-100*time.Millisecond {
		t.Errorf("closed %v after the handshake (%v after the connect); want the timeout, %v, from the connect",
			d, closed.Sub(start), timeout)
	}
}

// startLoggedTLS starts a TLS server that answers 404 and logs into the
// buffer it returns.
func startLoggedTLS(t *testing.T) (*testServer, *syncbuf.Buffer) {
	t.Helper()
	log := &syncbuf.Buffer{}
	ts := startServer(t, http.NotFoundHandler(), func(s *Server) {
		s.TLSConfig = testServerTLS(t)
		s.Logger = slog.New(slog.NewTextHandler(log, nil))
	})
	return ts, log
}

// A client that speaks plain HTTP to the TLS port gets a 400 that says
// so, and the failed handshake is logged at info.
func TestServeTLSPlainHTTP(t *testing.T) {
	ts, log := startLoggedTLS(t)
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = nc.SetDeadline(time.Now().Add(testTimeout))
	c := &client{t: t, c: nc, br: bufio.NewReader(nc)}
	resp, body := c.roundTrip("GET", get("/"))
	if resp.StatusCode != http.StatusBadRequest || !resp.Close || !strings.Contains(body, "The plain HTTP request was sent to HTTPS port") {
		t.Fatalf("status %d, close %v, body %q", resp.StatusCode, resp.Close, body)
	}
	c.expectClosed()
	if got := log.String(); !strings.Contains(got, `level=INFO msg="TLS handshake failed"`) || !strings.Contains(got, "plain HTTP request") {
		t.Fatalf("log %q", got)
	}
}

// With PlainHTTP, such a client is served as a plain connection, for the
// handler to answer (NGINX's 497), and a TLS client on the same port as
// before: the look at the first byte takes nothing from either.
func TestServeTLSPlainHTTPServed(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "tls=%v", r.TLS != nil)
	}), func(s *Server) {
		s.TLSConfig = testServerTLS(t)
		s.PlainHTTP = true
	})
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	_ = nc.SetDeadline(time.Now().Add(testTimeout))
	c := &client{t: t, c: nc, br: bufio.NewReader(nc)}
	if resp, body := c.roundTrip("GET", get("/")); resp.StatusCode != http.StatusOK || body != "tls=false" {
		t.Fatalf("plain: status %d, body %q", resp.StatusCode, body)
	}
	if _, body := dialTLS(t, ts.addr, "http/1.1").roundTrip("GET", get("/")); body != "tls=true" {
		t.Fatalf("TLS: body %q", body)
	}
}

// A connection still in its handshake is idle to Shutdown: closed at once
// (and not logged as a failed handshake), not waited for.
func TestServeTLSShutdownDuringHandshake(t *testing.T) {
	ts, log := startLoggedTLS(t)
	silent, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	for deadline := time.Now().Add(testTimeout); ; time.Sleep(time.Millisecond) {
		ts.mu.Lock()
		n := len(ts.conns)
		ts.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the connection was never accepted")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	start := time.Now()
	if err := ts.Shutdown(ctx); err != nil || time.Since(start) > time.Second {
		t.Fatalf("Shutdown = %v after %v", err, time.Since(start))
	}
	_ = silent.SetReadDeadline(time.Now().Add(testTimeout))
	if _, err := silent.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("the client's read ended with %v, want EOF", err)
	}
	if log.String() != "" {
		t.Fatalf("logged %q", log.String())
	}
}

// A failed handshake is told to TLSHandshakeFailed with the connection
// that TLS ran over, the one GetConfigForClient saw.
func TestServeTLSHandshakeFailedHook(t *testing.T) {
	seen := make(chan net.Conn, 1)
	failed := make(chan net.Conn, 1)
	ts := startServer(t, http.NotFoundHandler(), func(s *Server) {
		cfg := testServerTLS(t)
		cfg.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
			seen <- hello.Conn
			return nil, nil
		}
		cfg.MinVersion = tls.VersionTLS13
		s.TLSConfig = cfg
		s.TLSHandshakeFailed = func(c net.Conn) { failed <- c }
	})
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	// A client of a version the server does not speak: the handshake
	// fails after the ClientHello.
	tc := tls.Client(nc, &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS12})
	_ = tc.SetDeadline(time.Now().Add(testTimeout))
	if err := tc.Handshake(); err == nil {
		t.Fatal("the handshake succeeded")
	}
	var hello, got net.Conn
	select {
	case hello = <-seen:
	case <-time.After(testTimeout):
		t.Fatal("GetConfigForClient was not called")
	}
	select {
	case got = <-failed:
	case <-time.After(testTimeout):
		t.Fatal("TLSHandshakeFailed was not called")
	}
	if got != hello {
		t.Fatalf("TLSHandshakeFailed got %T %p, GetConfigForClient saw %T %p", got, got, hello, hello)
	}
}
