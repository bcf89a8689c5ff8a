package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestCacheHopFieldsAsNGINX: an upstream's answer with the hop fields
// Proxy-Connection, TE, Upgrade and Keep-Alive (and Connection naming
// one of its own), through proxy_cache: the miss that stores it and the
// hit that reads it back carry the fields NGINX's do. NGINX's proxy
// hides some while relaying the upstream's header
// (ngx_http_proxy_hide_headers, the upstream's header handlers), and a
// hit rebuilds the header from the stored copy through the same
// handlers (ngx_http_upstream_cache_send). mosaic's Cache-Status and
// Age, which NGINX does not send, are set aside.
func TestCacheHopFieldsAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	body := "hop fields"
	o, _ := rawOrigin(t, fmt.Sprintf("HTTP/1.1 200 OK\r\nX-First: 1\r\nProxy-Connection: keep-alive\r\n"+
		"TE: trailers\r\nUpgrade: h2c\r\nKeep-Alive: timeout=5\r\nConnection: close, X-Named\r\nX-Named: n\r\n"+
		"Cache-Control: max-age=60\r\nX-Last: 2\r\nContent-Length: %d\r\n\r\n", len(body)), []byte(body))
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`proxy_cache_path %s/cache-%s keys_zone=z:1m;
			server { listen 127.0.0.1:%d; location / { proxy_pass http://%s; proxy_cache z;
				add_header X-Status $upstream_cache_status; } }`, dir, who, port, o.Addr())
	})
	for _, round := range []string{"miss", "hit"} {
		if m, n := hopAnswer(t, mport), hopAnswer(t, nport); m != n {
			t.Errorf("%s:\nmosaic %s\nnginx  %s", round, m, n)
		}
	}
}

// hopAnswer is the status, header and body of an HTTP/1.1 GET /a to port,
// less mosaic's own fields, kept on purpose (cache README).
func hopAnswer(t *testing.T, port int) string {
	t.Helper()
	resp, b := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port),
		"GET /a HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
	resp.Header.Del("Cache-Status")
	resp.Header.Del("Age")
	return fmt.Sprintf("%d\n%s\n\n%s", resp.StatusCode, shownHeader(resp.Header), b)
}

// TestCacheHopFieldsFilledOverH2AsNGINX: NGINX stores the upstream's
// header as it came, so an entry that an HTTP/2 client's miss filled
// gives a later HTTP/1.1 hit Proxy-Connection, TE and Upgrade as one an
// HTTP/1.1 miss filled does; mosaic kept them back from the HTTP/2
// client before the cache saw them, and its hits lacked them. The HTTP/2
// miss itself still carries none of them (RFC 9113, 8.2.2).
func TestCacheHopFieldsFilledOverH2AsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	body := "hop fields"
	o, _ := rawOrigin(t, fmt.Sprintf("HTTP/1.1 200 OK\r\nProxy-Connection: keep-alive\r\n"+
		"TE: trailers\r\nUpgrade: h2c\r\nKeep-Alive: timeout=5\r\nConnection: close\r\n"+
		"Cache-Control: max-age=60\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", len(body)), []byte(body))
	h2 := map[string]int{"m": freePort(t), "n": freePort(t)}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`proxy_cache_path %s/cache-%s keys_zone=z:1m;
			server { listen 127.0.0.1:%d; listen 127.0.0.1:%d http2;
				location / { proxy_pass http://%s; proxy_cache z; } }`, dir, who, port, h2[who], o.Addr())
	})
	c := dialH2C(t, h2["m"])
	c.headers(t, 1, true, h2cGet("/a")...)
	fields := c.responseFields(1)
	if fields == nil {
		t.Fatal("mosaic: no HTTP/2 response header")
	}
	for _, l := range fields {
		if name, _, _ := strings.Cut(l, ": "); slices.Contains([]string{"proxy-connection", "te", "upgrade"}, name) {
			t.Errorf("mosaic sent %q over HTTP/2", l)
		}
	}
	nc := dialH2C(t, h2["n"])
	nc.headers(t, 1, true, h2cGet("/a")...)
	if nc.responseFields(1) == nil {
		t.Fatal("nginx: no HTTP/2 response header")
	}
	if m, n := hopAnswer(t, mport), hopAnswer(t, nport); m != n {
		t.Errorf("HTTP/1.1 hit:\nmosaic %s\nnginx  %s", m, n)
	}
}
