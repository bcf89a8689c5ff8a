package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/mosaic-edge/mosaic/internal/testpki"
)

// The connection settings and request rules of HTTP/1.1 over HTTP/2 (Go's
// server behind the dispatcher), checked with a raw HTTP/2 client that
// can send what Go's own client will not.

// startH2 runs conf (its http block's contents; "{tls}" stands for a
// listener on 127.0.0.1:0 with "ssl http2" and a certificate for
// a.example) and returns the listener's address.
func startH2(t *testing.T, conf string) string {
	t.Helper()
	dir := t.TempDir()
	cert, key := testpki.WriteKeyPair(t, dir, "tls", testpki.SelfSigned(t, "a.example"))
	listen := fmt.Sprintf("listen 127.0.0.1:0 ssl http2; ssl_certificate %s; ssl_certificate_key %s;", cert, key)
	rt := NewRuntime()
	if err := rt.Apply(mustLoadNoCleanup(t, "http { "+strings.ReplaceAll(conf, "{tls}", listen)+" }")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rt.Shutdown(ctx)
	})
	return rt.Addrs()[0].String()
}

// h2Conn is a client connection that speaks HTTP/2 frame by frame.
type h2Conn struct {
	*tls.Conn
	fr  *http2.Framer
	enc *hpack.Encoder
	hb  bytes.Buffer
}

// dialH2 connects with ALPN h2; with preface, it sends the connection
// preface and its SETTINGS (settings, if any). rcvbuf, if not 0, is the
// socket's receive buffer.
func dialH2(t *testing.T, addr string, preface bool, rcvbuf int, settings ...http2.Setting) *h2Conn {
	t.Helper()
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if rcvbuf > 0 {
		_ = raw.(*net.TCPConn).SetReadBuffer(rcvbuf)
	}
	c := tls.Client(raw, &tls.Config{InsecureSkipVerify: true, ServerName: "a.example", NextProtos: []string{"h2"}})
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Handshake(); err != nil {
		t.Fatal(err)
	}
	if p := c.ConnectionState().NegotiatedProtocol; p != "h2" {
		t.Fatalf("ALPN chose %q", p)
	}
	h := &h2Conn{Conn: c, fr: http2.NewFramer(c, c)}
	h.fr.ReadMetaHeaders = hpack.NewDecoder(65536, nil)
	h.enc = hpack.NewEncoder(&h.hb)
	if preface {
		if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
			t.Fatal(err)
		}
		if err := h.fr.WriteSettings(settings...); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// request sends a request of the fields given as name, value pairs, in
// order (pseudo-fields first), on stream id.
func (h *h2Conn) request(t *testing.T, id uint32, fields ...string) {
	t.Helper()
	h.hb.Reset()
	for i := 0; i+1 < len(fields); i += 2 {
		if err := h.enc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: h.hb.Bytes(), EndStream: true, EndHeaders: true}); err != nil {
		t.Fatal(err)
	}
}

// h2Answer is what came back for a stream.
type h2Answer struct {
	status string
	body   string
	reset  bool // RST_STREAM
	goaway bool // a GOAWAY came before the stream ended
	err    error
}

// answer reads frames until stream id ends, is reset, or the connection
// ends (err).
func (h *h2Conn) answer(id uint32, within time.Duration) h2Answer {
	_ = h.SetReadDeadline(time.Now().Add(within))
	var a h2Answer
	for {
		f, err := h.fr.ReadFrame()
		if err != nil {
			a.err = err
			return a
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = h.fr.WriteSettingsAck()
			}
		case *http2.GoAwayFrame:
			a.goaway = true
		case *http2.MetaHeadersFrame:
			if f.StreamID == id {
				a.status = f.PseudoValue("status")
				if f.StreamEnded() {
					return a
				}
			}
		case *http2.DataFrame:
			if f.StreamID == id {
				a.body += string(f.Data())
				if f.StreamEnded() {
					return a
				}
			}
		case *http2.RSTStreamFrame:
			if f.StreamID == id {
				a.reset = true
				return a
			}
		}
	}
}

// get is a GET of path on a.example with the extra fields given.
func h2Get(path string, extra ...string) []string {
	return append([]string{":method", "GET", ":scheme", "https", ":authority", "a.example", ":path", path}, extra...)
}

// TestH2HostRules: :authority is the request's Host. A Host field beside
// it that names another host (which chose no server, and which
// $http_host would pass on unchecked), two Host fields, neither, or an
// absolute URI in :path, are refused as NGINX refuses them; $http_host
// reads :authority when the client sent no Host field, as NGINX's does.
func TestH2HostRules(t *testing.T) {
	addr := startH2(t, `
		server { {tls} server_name a.example; location / { return 200 "a $host $http_host"; } }
		server { {tls} server_name b.example; location / { return 200 "b $host $http_host"; } }`)
	base := []string{":method", "GET", ":scheme", "https"}
	for _, c := range []struct {
		name   string
		fields []string
		status string
		body   string
	}{
		{"authority alone", h2Get("/"), "200", "a a.example a.example"},
		{"authority and the same Host", h2Get("/", "host", "a.example"), "200", "a a.example a.example"},
		{"authority and the same Host, spelt otherwise", h2Get("/", "host", "A.Example:443"), "200", "a a.example A.Example:443"},
		{"Host alone", append(base, ":path", "/", "host", "b.example"), "200", "b b.example b.example"},
		{"authority and another Host", h2Get("/", "host", "b.example"), "400", ""},
		{"authority and an invalid Host", h2Get("/", "host", "../../etc"), "400", ""},
		{"neither authority nor Host", append(base, ":path", "/"), "400", ""},
		{"two Host fields", append(base, ":path", "/", "host", "a.example", "host", "b.example"), "400", ""},
		{"absolute URI in :path", append(base, ":authority", "a.example", ":path", "https://b.example/x"), "400", ""},
	} {
		h := dialH2(t, addr, true, 0)
		h.request(t, 1, c.fields...)
		a := h.answer(1, 5*time.Second)
		if a.status != c.status || c.body != "" && a.body != c.body {
			t.Errorf("%s: %s %q (%v), want %s %q", c.name, a.status, a.body, a.err, c.status, c.body)
		}
	}
}

// TestH2FieldLimits: large_client_header_buffers bounds each field as it
// bounds each line on HTTP/1.1: 414 for :path, 400 for a field (NGINX's
// 494); cookie
// crumbs, which Go's server joins, count one by one. A field that may
// come once (Authorization) is refused twice, as on HTTP/1.1.
func TestH2FieldLimits(t *testing.T) {
	addr := startH2(t, `large_client_header_buffers 4 1k;
		server { {tls} server_name a.example; location / { return 200 "ok"; } }`)
	big, crumb := strings.Repeat("x", 2000), strings.Repeat("c", 900)
	for _, c := range []struct {
		name   string
		fields []string
		status string
	}{
		{"fields within the limit", h2Get("/", "x-a", crumb, "x-b", crumb), "200"},
		{"a long field", h2Get("/", "x-big", big), "400"},
		{"a long :path", h2Get("/" + big), "414"},
		{"cookie crumbs within the limit", h2Get("/", "cookie", "a="+crumb, "cookie", "b="+crumb, "cookie", "c="+crumb), "200"},
		{"a long cookie crumb", h2Get("/", "cookie", "a="+big), "400"},
		{"a field that may come once, twice", h2Get("/", "authorization", "Basic YTpi", "authorization", "Basic YWRtaW46eA=="), "400"},
	} {
		h := dialH2(t, addr, true, 0)
		h.request(t, 1, c.fields...)
		if a := h.answer(1, 5*time.Second); a.status != c.status {
			t.Errorf("%s: %s (%v), want %s", c.name, a.status, a.err, c.status)
		}
	}
}

// TestH2KeepaliveRequests: after the last request keepalive_requests
// allows, the connection ends (GOAWAY) and serves no more streams.
func TestH2KeepaliveRequests(t *testing.T) {
	addr := startH2(t, `keepalive_requests 2;
		server { {tls} server_name a.example; location / { return 200 "ok"; } }`)
	h := dialH2(t, addr, true, 0)
	for _, id := range []uint32{1, 3} {
		h.request(t, id, h2Get("/")...)
		if a := h.answer(id, 5*time.Second); a.status != "200" {
			t.Fatalf("stream %d: %s (%v)", id, a.status, a.err)
		}
	}
	// GOAWAY may come before the second response ends or after it.
	h.request(t, 5, h2Get("/")...)
	if a := h.answer(5, 2*time.Second); a.status == "200" {
		t.Errorf("a third request served with keepalive_requests 2")
	}
}

// TestH2PrefaceTimeout: client_header_timeout bounds the wait for the
// connection preface, counted from the accept; once the preface came, a
// connection with no request waits keepalive_timeout (a browser's
// preconnection), not client_header_timeout.
func TestH2PrefaceTimeout(t *testing.T) {
	addr := startH2(t, `client_header_timeout 500ms; keepalive_timeout 30s;
		server { {tls} server_name a.example; location / { return 200 "ok"; } }`)

	silent := dialH2(t, addr, false, 0)
	start := time.Now()
	_ = silent.SetReadDeadline(start.Add(5 * time.Second))
	_, err := io.Copy(io.Discard, silent)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("a connection without a preface still open after %v", time.Since(start))
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("a connection without a preface closed after %v, want about 500ms", d)
	}

	greeted := dialH2(t, addr, true, 0)
	if a := greeted.answer(1, 1500*time.Millisecond); !errors.As(a.err, &ne) || !ne.Timeout() {
		t.Fatalf("a connection that sent its preface ended within 1.5s: %v", a.err)
	}
	greeted.request(t, 1, h2Get("/")...)
	if a := greeted.answer(1, 5*time.Second); a.status != "200" {
		t.Errorf("a request after 1.5s of idle: %s (%v)", a.status, a.err)
	}
}

// TestH2SendTimeoutClosesStalledConnection: a client that grants the
// whole flow-control window and then stops reading its socket blocks the
// connection's writer; send_timeout closes the connection, as NGINX
// does, rather than leave it (and the handler writing into it) until the
// client reads again.
func TestH2SendTimeoutClosesStalledConnection(t *testing.T) {
	addr := startH2(t, `send_timeout 500ms; keepalive_timeout 300s;
		server { {tls} server_name a.example; location / { subtest_zeros 67108864; } }`)
	h := dialH2(t, addr, true, 16<<10, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1<<31 - 1})
	if err := h.fr.WriteWindowUpdate(0, 1<<31-1-65535); err != nil {
		t.Fatal(err)
	}
	h.request(t, 1, h2Get("/")...)
	time.Sleep(3 * time.Second) // the client does not read
	// The server's socket holds up to tcp_wmem's maximum (4 MiB) queued
	// ahead of its close; through the 16 KiB receive buffer that made the
	// stall quick, a 64 KiB-MTU loopback delivers it in persist-timer
	// trickles (about 150 KB/s on Linux 6.18), past the deadline below.
	// A large buffer now drains it at once, so a close is seen in time.
	if err := h.NetConn().(*net.TCPConn).SetReadBuffer(8 << 20); err != nil {
		t.Fatal(err)
	}
	a := h.answer(1, 10*time.Second)
	var ne net.Error
	if a.status != "200" || a.err == nil || errors.As(a.err, &ne) && ne.Timeout() || a.reset || len(a.body) == 64<<20 {
		t.Errorf("after a stall past send_timeout: %s, %d body bytes, reset %v, %v; want 200 and the connection closed", a.status, len(a.body), a.reset, a.err)
	}
}

// TestH2PriorKnowledgeFollowsReload: "listen ... http2" on a plain
// socket that a reload keeps turns HTTP/2 with prior knowledge on and
// off for the connections accepted after it; HTTP/1.1 is served either
// way.
func TestH2PriorKnowledgeFollowsReload(t *testing.T) {
	rt, base := startRuntime(t, `http { server { listen 127.0.0.1:0; return 200 one; } }`)
	var protos http.Protocols
	protos.SetUnencryptedHTTP2(true)
	h2c := &http.Client{Transport: &http.Transport{Protocols: &protos}}
	defer h2c.CloseIdleConnections()
	for _, c := range []struct {
		conf string
		h2   bool
	}{
		{`http { server { listen 127.0.0.1:0 http2; return 200 two; } }`, true},
		{`http { server { listen 127.0.0.1:0; return 200 three; } }`, false},
	} {
		if err := rt.Apply(mustLoadNoCleanup(t, c.conf)); err != nil {
			t.Fatal(err)
		}
		h2c.CloseIdleConnections()
		resp, err := h2c.Get(base + "/")
		if served := err == nil && resp.ProtoMajor == 2; served != c.h2 {
			t.Errorf("%s: HTTP/2 with prior knowledge served %v (%v), want %v", c.conf, served, err, c.h2)
		}
		if err == nil {
			resp.Body.Close()
		}
		if _, body := get(t, base+"/"); body == "one" || body == "" {
			t.Errorf("%s: HTTP/1.1 answered %q", c.conf, body)
		}
	}
}

// TestH2ObsoleteDirectivesLoad: NGINX 1.22 still loads the HTTP/2
// directives that 1.19.7 made obsolete, each with a warning that names
// its replacement, and ignores them; mosaic refused the file.
func TestH2ObsoleteDirectivesLoad(t *testing.T) {
	cfg := mustLoadNoCleanup(t, `http {
		http2_idle_timeout 3m; http2_max_field_size 8k; http2_max_header_size 16k;
		server { listen 127.0.0.1:0 http2; http2_recv_timeout 30s; http2_max_requests 1000; }
	}`)
	defer cfg.Close()
	want := []string{
		`the "http2_idle_timeout" directive is obsolete, use the "keepalive_timeout" directive instead in test.conf:2`,
		`the "http2_max_field_size" directive is obsolete, use the "large_client_header_buffers" directive instead in test.conf:2`,
		`the "http2_max_header_size" directive is obsolete, use the "large_client_header_buffers" directive instead in test.conf:2`,
		`the "http2_recv_timeout" directive is obsolete, use the "client_header_timeout" directive instead in test.conf:3`,
		`the "http2_max_requests" directive is obsolete, use the "keepalive_requests" directive instead in test.conf:3`,
	}
	if got := cfg.Notices(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("notices\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
