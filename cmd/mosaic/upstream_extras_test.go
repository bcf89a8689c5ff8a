package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// countingOrigin answers "ok" and counts the connections opened to it.
type countingOrigin struct {
	*httptest.Server
	conns atomic.Int32
}

func newCountingOrigin(t *testing.T) *countingOrigin {
	t.Helper()
	o := &countingOrigin{}
	o.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	o.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			o.conns.Add(1)
		}
	}
	o.Start()
	t.Cleanup(o.Close)
	return o
}

// bothServers runs mosaic and Debian's NGINX (when installed) on the
// http block that block makes for a listen line, and returns their
// ports by name.
func bothServers(t *testing.T, block func(name, listen string) string) map[string]int {
	t.Helper()
	ports := map[string]int{"mosaic": freePort(t)}
	dir := t.TempDir()
	startMosaic(t, dir, "http {"+block("mosaic", "listen 127.0.0.1:{port};")+"}", ports["mosaic"])
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		ports["nginx"] = freePort(t)
		ndir := filepath.Join(dir, "nginx")
		if err := os.MkdirAll(ndir, 0o755); err != nil {
			t.Fatal(err)
		}
		startNGINX(t, ndir, block("nginx", fmt.Sprintf("listen 127.0.0.1:%d;", ports["nginx"])), ports["nginx"])
	}
	return ports
}

// TestUpstreamKeepaliveLimitsMatchNGINX: an upstream's keepalive_requests
// 2 makes the proxy open a new connection every second request, and its
// keepalive_timeout 1s a new one after 1.5 s idle (and none after a short
// pause), and either of them 0 a new one for every request, in mosaic as
// in NGINX; each server has origins of its own that count their
// connections.
func TestUpstreamKeepaliveLimitsMatchNGINX(t *testing.T) {
	t.Parallel()
	origins := map[string][3]*countingOrigin{}
	ports := bothServers(t, func(name, listen string) string {
		kr, kt, k0 := newCountingOrigin(t), newCountingOrigin(t), newCountingOrigin(t)
		origins[name] = [3]*countingOrigin{kr, kt, k0}
		return fmt.Sprintf(`access_log off;
			upstream kr { server %s; keepalive 4; keepalive_requests 2; }
			upstream kt { server %s; keepalive 4; keepalive_timeout 1s; }
			upstream k0 { server %s; keepalive 4; keepalive_requests 0; keepalive_timeout 0; }
			server {
				%s
				proxy_http_version 1.1;
				proxy_set_header Connection "";
				location /kr/ { proxy_pass http://kr; }
				location /kt/ { proxy_pass http://kt; }
				location /k0/ { proxy_pass http://k0; }
			}`, kr.Listener.Addr(), kt.Listener.Addr(), k0.Listener.Addr(), listen)
	})
	for name, port := range ports {
		get := func(path string) {
			t.Helper()
			// A connection of its own each time: only the proxy's
			// connections to the origin are counted.
			if body := closeGet(t, port, path); body != "ok" {
				t.Fatalf("%s %s: %q", name, path, body)
			}
			// Let the proxy put its connection back in the pool.
			time.Sleep(50 * time.Millisecond)
		}
		kr, kt, k0 := origins[name][0], origins[name][1], origins[name][2]
		for range 3 {
			get("/k0/")
		}
		if n := k0.conns.Load(); n != 3 {
			t.Errorf("%s: keepalive_requests 0, keepalive_timeout 0: 3 requests took %d connections, want 3", name, n)
		}
		for range 6 {
			get("/kr/")
		}
		if n := kr.conns.Load(); n != 3 {
			t.Errorf("%s: keepalive_requests 2: 6 requests took %d connections, want 3", name, n)
		}
		get("/kt/")
		time.Sleep(300 * time.Millisecond)
		get("/kt/")
		if n := kt.conns.Load(); n != 1 {
			t.Errorf("%s: keepalive_timeout 1s: two requests 0.3 s apart took %d connections, want 1", name, n)
		}
		time.Sleep(1500 * time.Millisecond)
		get("/kt/")
		if n := kt.conns.Load(); n != 2 {
			t.Errorf("%s: keepalive_timeout 1s: after 1.5 s idle %d connections, want 2", name, n)
		}
	}
}

// TestUpstreamDownAndRandomMatchNGINX: a server marked down gets no
// request; random and random two spread requests over every server, in
// no fixed rotation (round robin, which an ignored "random" would leave,
// rotates a, b, c, a, b, c); mosaic and NGINX alike.
func TestUpstreamDownAndRandomMatchNGINX(t *testing.T) {
	type group struct{ down, up, r1, r2 []*upOrigin }
	groups := map[string]*group{}
	ports := bothServers(t, func(name, listen string) string {
		g := &group{}
		mk := func(prefix string, n int) []*upOrigin {
			var out []*upOrigin
			for i := range n {
				out = append(out, newUpOrigin(t, fmt.Sprintf("%s%d", prefix, i), ""))
			}
			return out
		}
		g.down, g.up, g.r1, g.r2 = mk("down", 1), mk("up", 2), mk("r", 3), mk("t", 3)
		groups[name] = g
		return fmt.Sprintf(`access_log off;
			upstream d { server %s down; server %s; server %s; }
			upstream r1 { random; server %s; server %s; server %s; }
			upstream r2 { random two; server %s; server %s; server %s; }
			server {
				%s
				location /d/ { proxy_pass http://d; }
				location /r1/ { proxy_pass http://r1; }
				location /r2/ { proxy_pass http://r2; }
			}`, g.down[0].addr(), g.up[0].addr(), g.up[1].addr(),
			g.r1[0].addr(), g.r1[1].addr(), g.r1[2].addr(),
			g.r2[0].addr(), g.r2[1].addr(), g.r2[2].addr(), listen)
	})
	for name, port := range ports {
		g := groups[name]
		seen := map[string]int{}
		for range 12 {
			_, body := getBody(t, fmt.Sprintf("http://127.0.0.1:%d/d/", port))
			seen[body]++
		}
		if g.down[0].served.Load() != 0 || seen["up0"] != 6 || seen["up1"] != 6 {
			t.Errorf("%s: with one server down, 12 requests went to %v", name, seen)
		}
		for _, loc := range []string{"r1", "r2"} {
			var seq []string
			spread := map[string]int{}
			for range 90 {
				_, body := getBody(t, fmt.Sprintf("http://127.0.0.1:%d/%s/", port, loc))
				seq = append(seq, body)
				spread[body]++
			}
			rotation := true
			for i := 3; i < len(seq); i++ {
				rotation = rotation && seq[i] == seq[i-3]
			}
			// Each of 3 servers gets 30 on average; fewer than 10 is
			// over 4 standard deviations away.
			few := false
			for _, n := range spread {
				few = few || n < 10
			}
			if len(spread) != 3 || few || rotation {
				t.Errorf("%s: %s: 90 requests went to %v (in rotation: %v)", name, loc, spread, rotation)
			}
		}
	}
}
