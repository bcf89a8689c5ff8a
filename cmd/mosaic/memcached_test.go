package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testmemcached"
)

// memcachedConf is the configuration TestMemcachedMatchesNGINX runs under
// both servers: mc is the running memcached, gone a stopped one, unix the
// socket of one more, fallback the origin of misses.
func memcachedConf(port int, mc, gone, fallback, unix string) string {
	return fmt.Sprintf(`
		types { text/html html; application/json json; }
		default_type text/plain;
		upstream mc { server %[2]s; keepalive 2; }
		upstream bound { server %[2]s; keepalive 1; }
		server {
			listen 127.0.0.1:%[1]d;
			location /mc/ { set $memcached_key $uri; memcached_pass mc; error_page 404 = @fallback; }
			location @fallback { proxy_pass http://%[4]s; }
			location /plain/ { set $memcached_key $uri; memcached_pass %[2]s; }
			location /gz/ { set $memcached_key $uri; memcached_gzip_flag 2; memcached_pass %[2]s; }
			location /k/ { set $memcached_key $uri; memcached_pass %[2]s; }
			location /nokey/ { memcached_pass %[2]s; }
			location /gone/ { set $memcached_key $uri; memcached_pass %[3]s; }
			location /unix/ { set $memcached_key $uri; memcached_pass unix:%[5]s; }
			location /bind/ { set $memcached_key $uri; memcached_pass bound; memcached_bind 127.0.0.2; }
			location /slow/ { set $memcached_key $uri; memcached_pass %[2]s; memcached_read_timeout 300ms; }
			location /gu/ { set $memcached_key $uri; gunzip on; memcached_gzip_flag 2; memcached_pass %[2]s; }
			location /sub/ { set $memcached_key $uri; sub_filter page PAGE; memcached_pass %[2]s; }
		}`, port, mc, gone, fallback, unix)
}

// memcachedFields are the fields compared; Date, Server and Connection
// are each server's own.
var memcachedFields = []string{"Content-Type", "Content-Length", "Content-Encoding", "Content-Range", "Accept-Ranges"}

// TestMemcachedMatchesNGINX runs the same memcached_pass configuration
// under Debian's NGINX and mosaic, in front of the same real memcached,
// and compares the answers: hits by type, a miss that error_page sends to
// a proxied fallback, the gzip flag, keys that must be escaped, a key
// over memcached's 250 bytes, no key, memcached stopped (502) and not
// answering (504), HEAD, POST, a range; then the connections that an
// upstream group with keepalive opens to memcached.
func TestMemcachedMatchesNGINX(t *testing.T) {
	nginxPath(t)
	mc := testmemcached.Start(t)
	gone := testmemcached.Start(t)
	gone.Stop()
	fallback := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "fallback for "+r.URL.Path)
	}))
	defer fallback.Close()
	mc.Set(t, "/mc/page.html", 0, "<p>page</p>")
	mc.Set(t, "/mc/data.json", 0, `{"a":1}`)
	mc.Set(t, "/plain/noext", 0, "plain")
	mc.Set(t, "/gz/on", 3, "\x1f\x8bnot really gzip")
	mc.Set(t, "/gz/off", 1, "flag 1")
	mc.Set(t, "/k/a%20b%01%25\u00e9\x7f", 0, "escaped")
	mc.Set(t, "/slow/x", 0, "slow")
	mc.Set(t, "/bind/x", 0, "bound")
	// A value read in many pieces, its trailer in another.
	big := strings.Repeat("0123456789abcdef", 300<<10/16)
	mc.Set(t, "/plain/big", 0, big)
	// The longest key memcached takes: 250 bytes.
	longest := "/k/" + strings.Repeat("k", 247)
	mc.Set(t, longest, 0, "longest")
	// A gzip value, decoded by gunzip for a client that takes no gzip,
	// and a page that sub_filter rewrites: NGINX's range filter runs
	// after those filters and finds no length, so a Range gets all of it.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = io.WriteString(zw, "plain text once gzipped")
	_ = zw.Close()
	mc.Set(t, "/gu/a", 2, gz.String())
	mc.Set(t, "/sub/x.html", 0, "<p>page</p>")
	mcUnix := testmemcached.StartUnix(t)
	mcUnix.Set(t, "/unix/x", 0, "over a socket")
	for i := range 3 {
		mc.Set(t, fmt.Sprintf("/mc/other%d", i), 0, "other")
	}

	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return memcachedConf(port, mc.Addr, gone.Addr, strings.TrimPrefix(fallback.URL, "http://"), mcUnix.Addr)
	})
	// The connections an upstream group with keepalive opens for hits and
	// misses alike: one, as NGINX's, which keeps a connection after END.
	for _, s := range []struct {
		name string
		port int
	}{{"nginx", nport}, {"mosaic", mport}} {
		before := memcachedConns(t, mc)
		for i := range 3 {
			for _, path := range []string{"/mc/page.html", fmt.Sprintf("/mc/other%d", i), fmt.Sprintf("/mc/miss%d", i)} {
				if resp, _ := do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d%s", s.port, path), nil); resp.StatusCode != 200 {
					t.Fatalf("%s %s: %d", s.name, path, resp.StatusCode)
				}
			}
		}
		// One for the requests, one for Stats.
		if n := memcachedConns(t, mc) - before; n != 2 {
			t.Errorf("%s opened %d connections to memcached for 9 requests, want 1", s.name, n-1)
		}
	}

	// A HEAD leaves the value unread and its connection closed: the
	// next request opens another.
	var heads []int
	for _, port := range []int{nport, mport} {
		before := memcachedConns(t, mc)
		for range 2 {
			if resp, _ := do(t, "HEAD", fmt.Sprintf("http://127.0.0.1:%d/mc/page.html", port), nil); resp.StatusCode != 200 {
				t.Fatalf("HEAD: %d", resp.StatusCode)
			}
		}
		heads = append(heads, memcachedConns(t, mc)-before)
	}
	if heads[0] != heads[1] {
		t.Errorf("connections opened for two HEADs: nginx %d, mosaic %d (stats included)", heads[0], heads[1])
	}

	long := "/k/" + strings.Repeat("k", 250)
	gzipOK := map[string]string{"Accept-Encoding": "gzip"}
	for _, c := range []struct {
		method, path string
		hdr          map[string]string
		status       int // mosaic's, besides NGINX's
		body         string
	}{
		{"GET", "/mc/page.html", nil, 200, "<p>page</p>"},
		{"GET", "/mc/data.json", nil, 200, `{"a":1}`},
		{"GET", "/mc/missing", nil, 200, "fallback for /mc/missing"},
		{"GET", "/plain/noext", nil, 200, "plain"},
		{"GET", "/plain/missing", nil, 404, ""},
		// Accept-Encoding set by hand: Go's client leaves the body as it came.
		{"GET", "/gz/on", gzipOK, 200, "\x1f\x8bnot really gzip"},
		{"GET", "/gz/off", gzipOK, 200, "flag 1"},
		{"GET", "/k/a%20b%01%25%C3%A9%7F", nil, 200, "escaped"},
		{"GET", "/k/a%20b", nil, 404, ""},
		{"GET", long, nil, 502, ""},
		{"GET", longest, nil, 200, "longest"},
		{"GET", "/plain/big", nil, 200, big},
		{"GET", "/nokey/x", nil, 500, ""},
		{"GET", "/gone/x", nil, 502, ""},
		{"GET", "/unix/x", nil, 200, "over a socket"},
		{"GET", "/unix/missing", nil, 404, ""},
		{"HEAD", "/mc/page.html", nil, 200, ""},
		{"HEAD", "/plain/missing", nil, 404, ""},
		{"POST", "/mc/page.html", nil, 405, ""},
		{"GET", "/mc/page.html", map[string]string{"Range": "bytes=3-5"}, 206, "pag"},
		// NGINX's range filter answers a HEAD's range too, and a range
		// past the end with its 416 page.
		{"HEAD", "/mc/page.html", map[string]string{"Range": "bytes=3-5"}, 206, ""},
		{"GET", "/mc/page.html", map[string]string{"Range": "bytes=50-"}, 416, ""},
		{"HEAD", "/mc/page.html", map[string]string{"Range": "bytes=50-"}, 416, ""},
		{"GET", "/gu/a", map[string]string{"Accept-Encoding": "identity", "Range": "bytes=0-3"}, 200, "plain text once gzipped"},
		{"GET", "/gu/a", map[string]string{"Accept-Encoding": "gzip", "Range": "bytes=0-3"}, 206, gz.String()[:4]},
		{"GET", "/sub/x.html", map[string]string{"Range": "bytes=0-3"}, 200, "<p>PAGE</p>"},
	} {
		m, mb := do(t, c.method, fmt.Sprintf("http://127.0.0.1:%d%s", mport, c.path), c.hdr)
		n, nb := do(t, c.method, fmt.Sprintf("http://127.0.0.1:%d%s", nport, c.path), c.hdr)
		what := c.method + " " + c.path[:min(len(c.path), 40)]
		if m.StatusCode != c.status || c.status < 300 && mb != c.body {
			t.Errorf("%s: mosaic %d %q, want %d %q", what, m.StatusCode, mb[:min(len(mb), 100)], c.status, c.body[:min(len(c.body), 100)])
		}
		compareMemcached(t, what, m, mb, n, nb)
	}

	// memcached_bind: the connection each server keeps in the group's
	// pool comes from the address asked for.
	for i, port := range []int{mport, nport} {
		if resp, body := do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d/bind/x", port), nil); resp.StatusCode != 200 || body != "bound" {
			t.Fatalf("bind: %d %q", resp.StatusCode, body)
		}
		var bound int
		for _, a := range mc.ClientAddrs(t) {
			if strings.HasPrefix(a, "127.0.0.2:") {
				bound++
			}
		}
		if bound != i+1 {
			t.Errorf("after %d servers' requests, %d connections from 127.0.0.2 (%v)", i+1, bound, mc.ClientAddrs(t))
		}
	}

	// memcached stopped with SIGSTOP accepts connections and never
	// answers: both time out.
	mc.Signal(t, syscall.SIGSTOP)
	m, mb := do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d/slow/x", mport), nil)
	n, nb := do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d/slow/x", nport), nil)
	mc.Signal(t, syscall.SIGCONT)
	if m.StatusCode != http.StatusGatewayTimeout {
		t.Errorf("memcached not answering: mosaic %d", m.StatusCode)
	}
	compareMemcached(t, "GET /slow/x", m, mb, n, nb)
}

func compareMemcached(t *testing.T, what string, m *http.Response, mb string, n *http.Response, nb string) {
	t.Helper()
	if m.StatusCode != n.StatusCode || m.StatusCode < 300 && mb != nb {
		t.Errorf("%s: mosaic %d %q, nginx %d %q", what, m.StatusCode, mb[:min(len(mb), 100)], n.StatusCode, nb[:min(len(nb), 100)])
		return
	}
	for _, k := range memcachedFields {
		if m.StatusCode >= 300 && k == "Content-Length" {
			continue // the error pages name their server
		}
		if mv, nv := m.Header.Values(k), n.Header.Values(k); strings.Join(mv, ",") != strings.Join(nv, ",") {
			t.Errorf("%s: %s mosaic %q, nginx %q", what, k, mv, nv)
		}
	}
}

func memcachedConns(t *testing.T, s *testmemcached.Server) int {
	t.Helper()
	n, err := strconv.Atoi(s.Stats(t)["total_connections"])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMemcachedNextNotFoundKeepsConnection: with memcached_next_upstream
// not_found, a miss sends the get on to the group's next server, and
// NGINX keeps the connection of the miss for the next request, as after
// a miss that error_page answers. Counted in the missing server's
// statistics: one connection for the requests that reached it, as NGINX's.
func TestMemcachedNextNotFoundKeepsConnection(t *testing.T) {
	nginxPath(t)
	empty, full := testmemcached.Start(t), testmemcached.Start(t)
	for i := range 6 {
		full.Set(t, fmt.Sprintf("/n/%d", i), 0, "found")
	}
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return fmt.Sprintf(`
		upstream g { server %s; server %s; keepalive 4; }
		server {
			listen 127.0.0.1:%d;
			location /n/ { set $memcached_key $uri; memcached_pass g; memcached_next_upstream not_found; }
		}`, empty.Addr, full.Addr, port)
	})
	for _, s := range []struct {
		name string
		port int
	}{{"nginx", nport}, {"mosaic", mport}} {
		before := memcachedConns(t, empty)
		for i := range 6 {
			if resp, body := do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d/n/%d", s.port, i), nil); resp.StatusCode != 200 || body != "found" {
				t.Fatalf("%s /n/%d: %d %q", s.name, i, resp.StatusCode, body)
			}
		}
		// One for the misses, one for Stats.
		if n := memcachedConns(t, empty) - before; n != 2 {
			t.Errorf("%s opened %d connections to the server that misses, want 1", s.name, n-1)
		}
	}
}

// TestMemcachedUpstreamVarsMatchNGINX compares the $upstream_* variables
// of memcached_pass in the two servers' access logs: a hit (whose
// $upstream_response_length counts the value's trailer, as NGINX reads
// it with the value), a HEAD, a miss, one that error_page answers, one
// that memcached_next_upstream sends on to the next server, and memcached
// stopped.
func TestMemcachedUpstreamVarsMatchNGINX(t *testing.T) {
	nginxPath(t)
	mc, empty, gone := testmemcached.Start(t), testmemcached.Start(t), testmemcached.Start(t)
	gone.Stop()
	mc.Set(t, "/mc/a", 0, "AAA")
	mc.Set(t, "/n/a", 0, "AAA")
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"m": "mosaic", "n": "nginx"}[who]
		return fmt.Sprintf(`
		log_format up '$request $status us=$upstream_status url=$upstream_response_length ubr=$upstream_bytes_received ubs=$upstream_bytes_sent';
		access_log %[5]s up;
		upstream g { server %[3]s; server %[2]s; }
		server {
			listen 127.0.0.1:%[1]d;
			location /mc/ { set $memcached_key $uri; memcached_pass %[2]s; }
			location /e/ { set $memcached_key $uri; memcached_pass %[2]s; error_page 404 = @f; }
			location @f { return 200 "f"; }
			location /n/ { set $memcached_key $uri; memcached_pass g; memcached_next_upstream not_found; }
			location /gone/ { set $memcached_key $uri; memcached_pass %[4]s; }
		}`, port, mc.Addr, empty.Addr, gone.Addr, filepath.Join(dir, sub, "access.log"))
	})
	reqs := []struct{ method, path string }{
		{"GET", "/mc/a"}, {"HEAD", "/mc/a"}, {"GET", "/mc/miss"}, {"GET", "/e/miss"},
		{"GET", "/n/a"}, {"GET", "/n/a"}, {"GET", "/n/b"}, {"GET", "/gone/x"},
	}
	for _, port := range []int{nport, mport} {
		for _, r := range reqs {
			do(t, r.method, fmt.Sprintf("http://127.0.0.1:%d%s", port, r.path), nil)
		}
	}
	sameAccessLogs(t, dir, len(reqs))
}
