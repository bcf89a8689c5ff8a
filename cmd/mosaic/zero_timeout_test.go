package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/resolver/resolvertest"
)

// A timeout of 0, which NGINX takes, times a wait for the peer out at
// once: even a loopback origin that answers at once is a 504 under
// proxy_connect_timeout 0 or proxy_read_timeout 0. A send waits only when
// the socket buffer is full: a small response under send_timeout 0 and a
// request under proxy_send_timeout 0 go through, in both servers.
func TestZeroTimeoutsAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			time.Sleep(300 * time.Millisecond)
		}
		fmt.Fprint(w, "origin\n")
	}))
	defer origin.Close()
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			send_timeout 0; client_body_timeout 0;
			location /small { return 200 "small\n"; }
			location /connect { proxy_pass %s; proxy_connect_timeout 0; }
			location /send { proxy_pass %[2]s; proxy_send_timeout 0; }
			location /fast { proxy_pass %[2]s; proxy_read_timeout 0; }
			location /slow { proxy_pass %[2]s; proxy_read_timeout 0; } }`, port, origin.URL)
	})
	for _, path := range []string{"/small", "/connect", "/send", "/fast", "/slow"} {
		m, mb := do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d%s", mport, path), nil)
		n, nb := do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d%s", nport, path), nil)
		if m.StatusCode != n.StatusCode || (n.StatusCode == 200 && mb != nb) {
			t.Errorf("%s: mosaic %d %q, nginx %d %q", path, m.StatusCode, mb, n.StatusCode, nb)
		}
		if want := map[bool]int{true: 504, false: 200}[path != "/small" && path != "/send"]; n.StatusCode != want {
			t.Errorf("%s: nginx answered %d, the test expects %d", path, n.StatusCode, want)
		}
	}
}

// resolver_timeout 0 is no timeout in NGINX (ngx_resolver_set_timeout
// arms no timer for it), not one that expires at once: a name the DNS
// server answers is proxied to, in both servers.
func TestZeroResolverTimeoutAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "origin\n")
	}))
	defer origin.Close()
	_, originPort, _ := net.SplitHostPort(origin.Listener.Addr().String())
	dns := resolvertest.Start(t, map[string][]resolvertest.Record{
		"origin.test": {{Addr: netip.MustParseAddr("127.0.0.1"), TTL: 60}},
	})
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			resolver %s ipv6=off; resolver_timeout 0;
			location / { set $h origin.test; proxy_pass http://$h:%s; } }`, port, dns.Addr, originPort)
	})
	for who, port := range map[string]int{"mosaic": mport, "nginx": nport} {
		if r, body := do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d/", port), nil); r.StatusCode != 200 || body != "origin\n" {
			t.Errorf("%s: %d %q, want 200 \"origin\\n\"", who, r.StatusCode, body)
		}
	}
}
