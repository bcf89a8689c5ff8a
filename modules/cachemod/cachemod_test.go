package cachemod_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/internal/testorigin"
	_ "github.com/mosaic-edge/mosaic/modules/cachemod"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// The directives' behaviour is tested through the binary (cmd/mosaic);
// these tests check what this package composes: the cache in front of
// the location's own proxy, inside the core's steps.

// flakyOrigin answers the first request for each path with a response the
// cache may keep for a second (X-Accel-Expires, which the proxy hides
// from clients unless told to pass it), and fails every later one as the
// path says: /hangup/ closes the connection, /garbage/ answers with
// something that is not HTTP. Under /broken/ every answer breaks off
// after ten bytes of its body.
type flakyOrigin struct {
	*testorigin.Raw
	mu   sync.Mutex
	seen map[string]int
}

func newFlakyOrigin(t *testing.T) *flakyOrigin {
	t.Helper()
	o := &flakyOrigin{seen: map[string]int{}}
	o.Raw = testorigin.NewRaw(t, o.serve)
	return o
}

func (o *flakyOrigin) serve(c net.Conn, br *bufio.Reader) {
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	o.mu.Lock()
	o.seen[req.URL.Path]++
	n := o.seen[req.URL.Path]
	o.mu.Unlock()
	switch {
	case strings.HasPrefix(req.URL.Path, "/broken"):
		io.WriteString(c, "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 1000\r\n\r\n0123456789")
	case n == 1:
		io.WriteString(c, "HTTP/1.1 200 OK\r\nCache-Control: private\r\nX-Accel-Expires: 1\r\nContent-Length: 2\r\n\r\nv1")
	case strings.HasPrefix(req.URL.Path, "/garbage"):
		io.WriteString(c, "NOT HTTP AT ALL\r\n\r\n")
	}
}

func (o *flakyOrigin) requests(path string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.seen[path]
}

type answer struct {
	status      int
	body        string
	cacheStatus string
	accel       string // X-Accel-Expires as the client got it
}

func get(t *testing.T, url string) answer {
	t.Helper()
	resp, body := testclient.Get(t, url)
	return answer{resp.StatusCode, body, resp.Header.Get("Cache-Status"), resp.Header.Get("X-Accel-Expires")}
}

func TestCacheInFrontOfProxy(t *testing.T) {
	o := newFlakyOrigin(t)
	base := servertest.Start(t, fmt.Sprintf(`error_log stderr crit; # the failures are on purpose
	http {
		proxy_cache_path memory keys_zone=z:1m;
		server {
			listen 127.0.0.1:0;
			proxy_cache z;
			location /hangup/          { proxy_pass http://%[1]s; proxy_cache_use_stale error; }
			location /garbage/stale/   { proxy_pass http://%[1]s; proxy_cache_use_stale invalid_header; }
			location /garbage/error/   { proxy_pass http://%[1]s; proxy_cache_use_stale error; }
			location /broken/          { proxy_pass http://%[1]s; }
			location /internal/        { internal; proxy_pass http://%[1]s; }
			location /fallback/        { try_files /nonexistent @cached; }
			location @cached           { proxy_pass http://%[1]s; }
		}
	}`, o.Addr()))

	// X-Accel-Expires reaches the cache through the proxy, and not the
	// client.
	for _, path := range []string{"/hangup/a", "/garbage/stale/a", "/garbage/error/a"} {
		if a := get(t, base+path); a.status != 200 || !strings.Contains(a.cacheStatus, "fwd=miss") ||
			!strings.Contains(a.cacheStatus, "stored") || a.accel != "" {
			t.Fatalf("%s, first request: %+v", path, a)
		}
		if a := get(t, base+path); !strings.Contains(a.cacheStatus, "; hit") || a.body != "v1" {
			t.Fatalf("%s, second request: %+v", path, a)
		}
	}

	time.Sleep(2100 * time.Millisecond) // the entries expire: X-Accel-Expires 1 keeps them 1 to 2 s, as NGINX
	for _, c := range []struct {
		path   string
		status int
		stale  bool
	}{
		// The proxy's failures reach the cache as what they are.
		{"/hangup/a", 200, true},
		{"/garbage/stale/a", 200, true},
		{"/garbage/error/a", 502, false},
	} {
		a := get(t, base+c.path)
		served := strings.Contains(a.cacheStatus, "; hit") && strings.Contains(a.cacheStatus, "detail=upstream-failure")
		if a.status != c.status || served != c.stale || (c.stale && a.body != "v1") {
			t.Errorf("%s, origin failing: %+v, want %d (stale: %t)", c.path, a, c.status, c.stale)
		}
		if !c.stale && !strings.Contains(a.cacheStatus, "detail=upstream-failure") {
			t.Errorf("%s: the proxy's error page was not known as a failure: %q", c.path, a.cacheStatus)
		}
	}

	// A body that breaks off reaches the client as received, its header
	// included, then the connection breaks (as in NGINX, which sent the
	// header when it had read it); it is not stored.
	for i := range 2 {
		resp, err := http.Get(base + "/broken/a")
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != "0123456789" || err == nil {
			t.Fatalf("request %d: a broken upstream body: %d %q, error %v; want 200, the ten bytes, an error", i+1, resp.StatusCode, body, err)
		}
	}
	if n := o.requests("/broken/a"); n != 2 {
		t.Errorf("broken body: %d origin requests, want 2 (nothing stored)", n)
	}

	// The core's internal check runs before the cache: a client gets the
	// 404, and neither reads nor fills the cache.
	if a := get(t, base+"/internal/a"); a.status != 404 || a.cacheStatus != "" || o.requests("/internal/a") != 0 {
		t.Errorf("internal location: %+v, %d origin requests", a, o.requests("/internal/a"))
	}

	// The cache is the content of its location, so an internal redirect
	// to it (try_files, error_page) is cached too.
	get(t, base+"/fallback/a")
	if a := get(t, base+"/fallback/a"); !strings.Contains(a.cacheStatus, "; hit") || o.requests("/fallback/a") != 1 {
		t.Errorf("try_files to a cached location: %+v, %d origin requests", a, o.requests("/fallback/a"))
	}
}

// A proxy_pass with variables has no fixed key or upstream: proxy_cache
// there is refused, not silently skipped.
func TestCacheRefusesVariablePass(t *testing.T) {
	servertest.WantError(t, `http {
		proxy_cache_path memory keys_zone=z:1m;
		server {
			listen 127.0.0.1:0;
			location / { proxy_cache z; proxy_pass http://$arg_to; }
		}
	}`, `a "proxy_pass" with variables cannot be cached`)
}

// A zone that does not exist is found when the location is built, but
// the error names the line that names the zone, once, as NGINX prints a
// configuration error: not the location's line before it as well.
func TestUnknownZoneNamesItsLine(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{"location / {\nproxy_cache nowhere;\nproxy_pass http://127.0.0.1:1;\n}", `"proxy_cache" zone "nowhere" is unknown in test.conf:5`},
		{"location / {\nproxy_cache_purge nowhere token=x;\n}", `"proxy_cache_purge" zone "nowhere" is unknown in test.conf:5`},
		{"location / {\nproxy_cache_status nowhere;\n}", `"proxy_cache_status" zone "nowhere" is unknown in test.conf:5`},
	} {
		cfg, err := server.LoadString("test.conf", "http {\nserver {\nlisten 127.0.0.1:0;\n"+c.conf+"\n}\n}")
		if err == nil {
			cfg.Close()
			t.Errorf("%q loaded", c.conf)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("%q:\n got  %v\n want %s", c.conf, err, c.want)
		}
	}
}
