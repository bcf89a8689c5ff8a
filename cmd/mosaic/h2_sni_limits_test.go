package main

import (
	"crypto/tls"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// TestH2ConnectionLimitsOfSNIServerAsNGINX: an HTTP/2 connection takes
// its connection settings from the server that SNI chose, as NGINX reads
// them in that server (hc->conf_ctx), whatever server each stream's
// :authority chooses and whatever its location says:
// large_client_header_buffers bounds each field, keepalive_requests ends
// the connection (GOAWAY) at the stream that reaches it, keepalive_timeout
// closes it when idle. The default server's, and a location's, do not
// apply.
func TestH2ConnectionLimitsOfSNIServerAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`ssl_certificate %[2]s; ssl_certificate_key %[3]s;
			server { listen 127.0.0.1:%[1]d ssl http2; server_name a;
				large_client_header_buffers 4 1k; location / { keepalive_requests 1; return 200 "a"; } }
			server { listen 127.0.0.1:%[1]d ssl http2; server_name b;
				large_client_header_buffers 4 8k; keepalive_requests 3; return 200 "b"; }
			server { listen 127.0.0.1:%[1]d ssl http2; server_name c; keepalive_timeout 1s; return 200 "c"; }`, port, cert, key)
	})
	big := strings.Repeat("x", 2000)
	cases := []struct{ sni, authority, field string }{
		{"b", "b", big}, // b's 8k buffers, not the default server's 1k
		{"b", "a", big}, // the SNI server's, not :authority's
		{"a", "a", "y"}, // a location's keepalive_requests does not end it
		{"b", "a", "y"}, // b's keepalive_requests
		{"c", "a", "y"}, // c's keepalive_timeout closes it once idle
		{"", "c", "y"},  // no name: the default server's
		{"a", "b", "y"}, // a's, which the default server has too
	}
	// Every connection's streams first, then all of them read at once
	// until one deadline: each still has at least 2.5 seconds after its
	// last stream to be closed, and the test waits them out once rather
	// than once a connection (14 times).
	conns := make([][2]*h2Outcome, len(cases))
	for i, c := range cases {
		conns[i] = [2]*h2Outcome{h2Streams(t, mport, c.sni, c.authority, c.field), h2Streams(t, nport, c.sni, c.authority, c.field)}
	}
	deadline := time.Now().Add(2500 * time.Millisecond)
	ends := make([][2]string, len(cases))
	var wg sync.WaitGroup
	for i := range conns {
		for j, o := range conns[i] {
			wg.Go(func() { ends[i][j] = o.closedBy(deadline) })
		}
	}
	wg.Wait()
	for i, c := range cases {
		if m, n := ends[i][0], ends[i][1]; m != n {
			t.Errorf("server name %q, :authority %q: mosaic %q, nginx %q", c.sni, c.authority, m, n)
		}
	}
}

// TestH2LimitConnOfAuthorityServerAsNGINX: limit_conn counts each HTTP/2
// stream as a request of the location that its :authority chose, as
// NGINX does (its preaccess phase runs in that location), whatever server
// SNI chose: with SNI naming a server without limits, a second stream to
// the limited server's location, while the first is held at the origin,
// is refused; a stream to the unlimited server passes.
func TestH2LimitConnOfAuthorityServerAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	origins := map[string]*heldOrigin{"m": newHeldOrigin(t, "up"), "n": newHeldOrigin(t, "up")}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`ssl_certificate %[2]s; ssl_certificate_key %[3]s;
			limit_conn_zone $binary_remote_addr zone=one:1m;
			server { listen 127.0.0.1:%[1]d ssl http2; server_name a; return 200 "a"; }
			server { listen 127.0.0.1:%[1]d ssl http2; server_name b;
				location / { limit_conn one 1; limit_conn_status 429; proxy_pass http://%[4]s; } }`,
			port, cert, key, origins[who].addr)
	})
	for who, port := range map[string]int{"m": mport, "n": nport} {
		c, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port),
			&tls.Config{InsecureSkipVerify: true, ServerName: "a", NextProtos: []string{"h2"}})
		if err != nil {
			t.Fatal(err)
		}
		h := startH2(t, c)
		get := func(id uint32, authority, path string) {
			h.headers(t, id, true, ":method", "GET", ":scheme", "https", ":authority", authority, ":path", path)
		}
		get(1, "b", "/slow")
		select {
		case <-origins[who].arrived:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the first stream never reached the origin", who)
		}
		get(3, "b", "/fast")
		second := h.status(3)
		get(5, "a", "/")
		third := h.status(5)
		close(origins[who].release)
		if got := second + " " + third; got != "429 200" {
			t.Errorf("%s: second stream to b, stream to a: %s, want 429 200", who, got)
		}
	}
}

// h2Outcome is a connection of h2Streams and how its streams ended.
type h2Outcome struct {
	h   *h2cConn
	out []string
}

// h2Streams opens an HTTP/2 connection over TLS with server name sni and
// sends up to four GETs of :authority, one after the other, each with a
// field X-F of value field; its outcome says how each ended and where the
// server sent GOAWAY.
func h2Streams(t *testing.T, port int, sni, authority, field string) *h2Outcome {
	t.Helper()
	c, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port),
		&tls.Config{InsecureSkipVerify: true, ServerName: sni, NextProtos: []string{"h2"}})
	if err != nil {
		t.Fatal(err)
	}
	h := startH2(t, c)
	var out []string
	for id := uint32(1); id <= 7; id += 2 {
		h.headers(t, id, true, ":method", "GET", ":scheme", "https", ":authority", authority, ":path", "/", "x-f", field)
		ended, goaway := h.streamEnd(id)
		out = append(out, ended)
		if goaway {
			out = append(out, "goaway")
			break
		}
		if !strings.HasPrefix(ended, "200") {
			break
		}
	}
	return &h2Outcome{h: h, out: out}
}

// closedBy reads the connection until deadline and returns the outcome,
// with "closed" where the server closed it by then.
func (o *h2Outcome) closedBy(deadline time.Time) string {
	_ = o.h.SetReadDeadline(deadline)
	for {
		if _, err := o.h.fr.ReadFrame(); err != nil {
			if !strings.Contains(err.Error(), "timeout") {
				o.out = append(o.out, "closed")
			}
			return strings.Join(o.out, " ")
		}
	}
}

// streamEnd reads frames until stream id ends: its status (and body) or
// its reset, and whether a GOAWAY came before its end.
func (h *h2cConn) streamEnd(id uint32) (ended string, goaway bool) {
	_ = h.SetReadDeadline(time.Now().Add(3 * time.Second))
	for {
		f, err := h.fr.ReadFrame()
		if err != nil {
			return ended + " no end", goaway
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = h.fr.WriteSettingsAck()
			}
		case *http2.GoAwayFrame:
			goaway = true
		case *http2.MetaHeadersFrame:
			if f.StreamID == id {
				ended = f.PseudoValue("status")
				if f.StreamEnded() {
					return ended, goaway
				}
			}
		case *http2.DataFrame:
			if f.StreamID == id {
				ended += " " + string(f.Data())
				if f.StreamEnded() {
					return ended, goaway
				}
			}
		case *http2.RSTStreamFrame:
			if f.StreamID == id {
				return "reset " + f.ErrCode.String(), goaway
			}
		}
	}
}
