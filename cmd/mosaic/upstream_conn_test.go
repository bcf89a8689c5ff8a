package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testuwsgi"
)

// The tests of the directives that the proxy and the FastCGI and uwsgi
// gateways share by prefix: *_bind, *_socket_keepalive, *_limit_rate,
// *_force_ranges, *_cache_max_range_offset, *_store.

// connOrigin is the proxied origin of these tests:
//
//	/peer           the address the connection came from
//	/hold           answers once release is closed (3 s at most)
//	/big            3000 bytes, with Content-Length
//	/noranges       "0123456789abcdefghij" with Accept-Ranges: none,
//	                whatever the Range
//	/noaccept       the same without Accept-Ranges
//	/cached/...     a cacheable body of 1000 bytes, ranges answered;
//	                counted, with the Range each request carried
type connOrigin struct {
	*httptest.Server
	release chan struct{}
	arrived chan struct{}
	cached  atomic.Int32
	mu      sync.Mutex
	ranges  []string
}

const rangedBody = "0123456789abcdefghij"

func newConnOrigin(t *testing.T) *connOrigin {
	o := &connOrigin{release: make(chan struct{}), arrived: make(chan struct{}, 10)}
	content := strings.Repeat("0123456789", 100)
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/peer":
			host, _, _ := net.SplitHostPort(r.RemoteAddr)
			io.WriteString(w, host)
		case r.URL.Path == "/hold":
			o.arrived <- struct{}{}
			select {
			case <-o.release:
			case <-time.After(3 * time.Second):
			}
			io.WriteString(w, "held")
		case r.URL.Path == "/big":
			w.Header().Set("Content-Length", "3000")
			io.WriteString(w, strings.Repeat("b", 3000))
		case r.URL.Path == "/noranges" || r.URL.Path == "/noaccept":
			if r.URL.Path == "/noranges" {
				w.Header().Set("Accept-Ranges", "none")
			}
			w.Header().Set("Content-Length", strconv.Itoa(len(rangedBody)))
			io.WriteString(w, rangedBody)
		case strings.HasPrefix(r.URL.Path, "/cached/"):
			o.cached.Add(1)
			o.mu.Lock()
			o.ranges = append(o.ranges, r.Header.Get("Range"))
			o.mu.Unlock()
			w.Header().Set("Cache-Control", "max-age=600")
			http.ServeContent(w, r, "", time.Time{}, strings.NewReader(content))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(o.Close)
	return o
}

// appPHP is the PHP application of these tests: ?n=N answers N bytes of
// "p" with Content-Length; ?ranged answers rangedBody with
// Accept-Ranges: none.
const appPHP = `<?php
if (isset($_GET['ranged'])) { header('Accept-Ranges: none'); header('Content-Length: 20'); echo "0123456789abcdefghij"; exit; }
$n = intval($_GET['n'] ?? '0');
header('Content-Type: text/plain');
header('Content-Length: ' . $n);
echo str_repeat('p', $n);
`

// gatewayApps runs php-fpm with appPHP and uWSGI on loopback ports.
func gatewayApps(t *testing.T, dir string) (fpm string, wsgi string) {
	fpmPath(t)
	testuwsgi.Skip(t)
	writeFile(t, filepath.Join(dir, "www", "app.php"), appPHP)
	f := startFPM(t, filepath.Join(dir, "fpm"), fmt.Sprintf("127.0.0.1:%d", freePort(t)), 2)
	u := testuwsgi.Start(t, false)
	return f.addr, u.Address
}

// startGatewaySite starts mosaic on conf, in which {origin}, {fpm} and
// {wsgi} are those servers' addresses, {params} the FastCGI parameters of
// app.php and {dir} the test's directory, and returns its base URL.
func startGatewaySite(t *testing.T, dir, origin, fpm, wsgi, conf string) string {
	t.Helper()
	port := freePort(t)
	params := strings.ReplaceAll(fcgiParams, "{dir}", dir)
	startMosaic(t, dir, strings.NewReplacer("{origin}", origin, "{fpm}", fpm, "{wsgi}", wsgi,
		"{params}", params, "{dir}", dir).Replace(conf), port)
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

// fcgiParams are the parameters php-fpm needs to run app.php.
const fcgiParams = `fastcgi_param SCRIPT_FILENAME {dir}/www/app.php;
	fastcgi_param REQUEST_METHOD $request_method;
	fastcgi_param QUERY_STRING $query_string;`

func TestUpstreamBindThroughBinary(t *testing.T) {
	dir := t.TempDir()
	fpm, wsgi := gatewayApps(t, dir)
	origin := newConnOrigin(t)
	fpmPeers, wsgiPeers := newTCPRelay(t, "tcp", fpm), newTCPRelay(t, "tcp", wsgi)
	transparent := ""
	if os.Getuid() == 0 {
		transparent = "location /transparent { proxy_bind 127.0.0.6 transparent; proxy_pass http://origin/peer; }"
	}
	port := freePort(t)
	params := strings.ReplaceAll(fcgiParams, "{dir}", dir)
	startMosaic(t, dir, strings.NewReplacer("{origin}", origin.Listener.Addr().String(), "{fpm}", fpmPeers.addr(),
		"{wsgi}", wsgiPeers.addr(), "{transparent}", transparent, "{params}", params, "{dir}", dir).Replace(`
	error_log {dir}/error.log info;
	http {
		upstream origin { server {origin}; keepalive 8; }
		server {
			listen 127.0.0.1:{port};
			include uwsgi_params;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
			location /fixed { proxy_bind 127.0.0.2; proxy_pass http://origin/peer; }
			location /var   { proxy_bind $arg_ip; proxy_pass http://origin/peer; }
			location /off   { proxy_bind 127.0.0.2; location /off/in { proxy_bind off; proxy_pass http://origin/peer; } }
			{transparent}
			location /fcgi  { fastcgi_bind 127.0.0.3; {params} fastcgi_pass {fpm}; }
			location /wsgi  { uwsgi_bind 127.0.0.4; uwsgi_pass {wsgi}; }
		}
	}`), port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for path, want := range map[string]string{
		"/fixed": "127.0.0.2", "/var?ip=127.0.0.3": "127.0.0.3", "/off/in": "127.0.0.1",
		// An empty value or one that is no address binds nothing.
		"/var": "127.0.0.1", "/var?ip=nonsense": "127.0.0.1",
	} {
		if code, body := getBody(t, base+path); code != 200 || body != want {
			t.Errorf("%s: %d %q, want the origin to see %s", path, code, body, want)
		}
	}
	// The keepalive pool gives a connection only to a request bound to
	// the same address: the connection of 127.0.0.5 is not reused for .7.
	for _, ip := range []string{"127.0.0.5", "127.0.0.7", "127.0.0.5"} {
		if _, body := getBody(t, base+"/var?ip="+ip); body != ip {
			t.Errorf("bound to %s after others: the origin saw %q", ip, body)
		}
	}
	if transparent != "" {
		if code, body := getBody(t, base+"/transparent"); code != 200 || body != "127.0.0.6" {
			t.Errorf("transparent: %d %q", code, body)
		}
	}
	if code, body := getBody(t, base+"/fcgi?n=3"); code != 200 || body != "ppp" {
		t.Errorf("fastcgi: %d %q", code, body)
	}
	if code, body := getBody(t, base+"/wsgi/size?n=3"); code != 200 || body != "xxx" {
		t.Errorf("uwsgi: %d %q", code, body)
	}
	if got := fpmPeers.list(); len(got) != 1 || got[0] != "127.0.0.3" {
		t.Errorf("php-fpm's connections came from %v, want 127.0.0.3", got)
	}
	if got := wsgiPeers.list(); len(got) != 1 || got[0] != "127.0.0.4" {
		t.Errorf("uWSGI's connections came from %v, want 127.0.0.4", got)
	}
}

// TestUpstreamBindCheck: the configuration check refuses an address that
// is none, and a second parameter other than transparent.
func TestUpstreamBindCheck(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"proxy_bind example.com;", "fastcgi_bind 127.0.0.1 opaque;", "uwsgi_bind 127.0.0.1; uwsgi_bind off;"} {
		dir := t.TempDir()
		path := filepath.Join(dir, "mosaic.conf")
		writeFile(t, path, "http { server { listen 127.0.0.1:1; location / { "+line+" } } }")
		out, err := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
		if err == nil {
			t.Errorf("%s: accepted\n%s", line, out)
		}
	}
}

// keepaliveTimer finds in /proc/net/tcp the socket connected to the
// loopback port and returns its timer: whether the keepalive timer runs
// (the "tr" column is 2 for an established socket only then) and in how
// many seconds it fires.
func keepaliveTimer(t *testing.T, port int) (bool, float64) {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		t.Skip("no /proc/net/tcp:", err)
	}
	defer f.Close()
	want := fmt.Sprintf("0100007F:%04X", port)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// sl local rem st tx:rx tr:when ...; state 01 is ESTABLISHED.
		if len(fields) < 6 || fields[2] != want || fields[3] != "01" {
			continue
		}
		tr, when, _ := strings.Cut(fields[5], ":")
		ticks, _ := strconv.ParseUint(when, 16, 64)
		return tr == "02", float64(ticks) / 100 // USER_HZ
	}
	all, _ := os.ReadFile("/proc/net/tcp")
	var near []string
	for _, l := range strings.Split(string(all), "\n") {
		if strings.Contains(l, fmt.Sprintf(":%04X", port)) {
			near = append(near, l)
		}
	}
	t.Fatalf("no connection to port %d in /proc/net/tcp:\n%s", port, strings.Join(near, "\n"))
	return false, 0
}

func TestUpstreamSocketKeepalive(t *testing.T) {
	if b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_keepalive_time"); err != nil || strings.TrimSpace(string(b)) == "15" {
		t.Skip("the system's keepalive time cannot be told from Go's default")
	}
	testuwsgi.Skip(t)
	wsgi := testuwsgi.Start(t, false)
	origin := newConnOrigin(t)
	port := freePort(t)
	startMosaic(t, t.TempDir(), strings.NewReplacer("{origin}", origin.Listener.Addr().String(), "{wsgi}", wsgi.Address).Replace(`
	http {
		server {
			listen 127.0.0.1:{port};
			include uwsgi_params;
			location /on  { proxy_socket_keepalive on; proxy_pass http://{origin}/hold; }
			location /off { proxy_pass http://{origin}/hold; }
			location /wsgi-on  { uwsgi_socket_keepalive on; uwsgi_pass {wsgi}; }
			location /wsgi-off { uwsgi_pass {wsgi}; }
		}
	}`), port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	_, originPort, _ := net.SplitHostPort(origin.Listener.Addr().String())
	op, _ := strconv.Atoi(originPort)
	_, wsgiPort, _ := net.SplitHostPort(wsgi.Address)
	wp, _ := strconv.Atoi(wsgiPort)
	check := func(path string, upstreamPort int, held, release func(), on bool) {
		t.Helper()
		done := make(chan struct{})
		go func() { defer close(done); getBody(t, base+path) }()
		held()
		running, in := keepaliveTimer(t, upstreamPort)
		release()
		<-done
		// On, the system's timing applies (two hours by default), not the
		// 15 s that Go sets; off, no keepalive timer runs at all.
		if on && (!running || in < 60) {
			t.Errorf("%s: keepalive timer %v in %.0fs, want SO_KEEPALIVE with the system's time", path, running, in)
		}
		if !on && running {
			t.Errorf("%s: keepalive timer running (in %.0fs), want none", path, in)
		}
	}
	for _, c := range []struct {
		path string
		on   bool
	}{{"/on", true}, {"/off", false}} {
		check(c.path, op, func() {
			<-origin.arrived
			time.Sleep(50 * time.Millisecond)
		}, func() { origin.release <- struct{}{} }, c.on)
	}
	for _, c := range []struct {
		path string
		on   bool
	}{{"/wsgi-on/slow?ms=700", true}, {"/wsgi-off/slow?ms=700", false}} {
		check(c.path, wp, func() { time.Sleep(300 * time.Millisecond) }, func() {}, c.on)
	}
}

// timedGet fetches url and returns its body and how long it took; a
// body not whole within 10 s is cut there.
func timedGet(t *testing.T, url string) (string, time.Duration) {
	start := time.Now()
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(url)
	if err != nil {
		t.Error(err)
		return "", 0
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b), time.Since(start)
}

// TestUpstreamLimitRate: at 1k a second, with the allowance of one second
// ahead, a 3000-byte response takes two seconds to read from the
// upstream; unbuffered, the rate does not apply, as in NGINX. Where no
// rate may apply (unbuffered, proxy_limit_rate 0) the rate that would
// wrongly apply is 1 byte a second: a throttled body would need most of
// an hour, so the whole body within 10 s shows none was, however slow
// the machine (a bound of 1 s failed when load delayed an answer).
func TestUpstreamLimitRate(t *testing.T) {
	dir := t.TempDir()
	fpm, wsgi := gatewayApps(t, dir)
	origin := newConnOrigin(t)
	base := startGatewaySite(t, dir, origin.Listener.Addr().String(), fpm, wsgi, `
	http {
		server {
			listen 127.0.0.1:{port};
			include uwsgi_params;
			proxy_limit_rate 1;
			fastcgi_limit_rate 1k;
			uwsgi_limit_rate 1k;
			location /proxy { proxy_limit_rate 1k; proxy_pass http://{origin}/big; }
			location /proxy-unbuffered { proxy_buffering off; proxy_pass http://{origin}/big; }
			location /proxy-unlimited { proxy_limit_rate 0; proxy_pass http://{origin}/big; }
			location /fcgi  { {params} fastcgi_pass {fpm}; }
			location /wsgi  { uwsgi_pass {wsgi}; }
			location /wsgi-unbuffered { uwsgi_buffering off; uwsgi_limit_rate 1; uwsgi_pass {wsgi}; }
		}
	}`)
	cases := []struct {
		path    string
		want    string
		limited bool
	}{
		{"/proxy", strings.Repeat("b", 3000), true},
		{"/proxy-unbuffered", strings.Repeat("b", 3000), false},
		{"/proxy-unlimited", strings.Repeat("b", 3000), false},
		{"/fcgi?n=3000", strings.Repeat("p", 3000), true},
		{"/wsgi/size?n=3000", strings.Repeat("x", 3000), true},
		{"/wsgi-unbuffered/size?n=3000", strings.Repeat("x", 3000), false},
	}
	var wg sync.WaitGroup
	for _, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body, took := timedGet(t, base+c.path)
			if body != c.want {
				t.Errorf("%s: %d bytes, want %d", c.path, len(body), len(c.want))
			}
			if c.limited && took < 1700*time.Millisecond {
				t.Errorf("%s took %v, want about 2s at 1k a second", c.path, took)
			}
		}()
	}
	wg.Wait()
}

// TestUpstreamForceRanges: a Range is answered from the upstream's whole
// 200 whatever its Accept-Ranges says, with *_force_ranges on.
func TestUpstreamForceRanges(t *testing.T) {
	dir := t.TempDir()
	fpm, wsgi := gatewayApps(t, dir)
	origin := newConnOrigin(t)
	base := startGatewaySite(t, dir, origin.Listener.Addr().String(), fpm, wsgi, `
	http {
		server {
			listen 127.0.0.1:{port};
			include uwsgi_params;
			location /forced/   { proxy_force_ranges on; proxy_pass http://{origin}/; }
			location /plain/    { proxy_pass http://{origin}/; }
			location /fcgi      { fastcgi_force_ranges on; {params} fastcgi_pass {fpm}; }
			location /wsgi      { uwsgi_force_ranges on; uwsgi_pass {wsgi}; }
		}
	}`)
	get := func(path, rng string) (*http.Response, string) {
		req, _ := http.NewRequest("GET", base+path, nil)
		if rng != "" {
			req.Header.Set("Range", rng)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	for _, c := range []struct {
		path, rng    string
		status       int
		body, crange string
		accept       string
	}{
		{"/forced/noranges", "bytes=2-5", 206, "2345", "bytes 2-5/20", ""},
		{"/forced/noaccept", "bytes=-3", 206, "hij", "bytes 17-19/20", ""},
		{"/forced/noranges", "bytes=50-", 416, "", "bytes */20", ""},
		// One range only, as NGINX for a response it does not cache.
		{"/forced/noranges", "bytes=0-1,4-5", 200, rangedBody, "", "bytes"},
		{"/forced/noranges", "", 200, rangedBody, "", "bytes"},
		{"/plain/noranges", "bytes=2-5", 200, rangedBody, "", "none"},
		{"/plain/noaccept", "bytes=2-5", 200, rangedBody, "", ""},
		{"/fcgi?ranged", "bytes=10-12", 206, "abc", "bytes 10-12/20", ""},
		{"/wsgi/size?n=40", "bytes=30-", 206, strings.Repeat("x", 10), "bytes 30-39/40", ""},
	} {
		resp, body := get(c.path, c.rng)
		if resp.StatusCode != c.status || (c.status != 416 && body != c.body) ||
			resp.Header.Get("Content-Range") != c.crange || resp.Header.Get("Accept-Ranges") != c.accept {
			t.Errorf("%s Range %q: %d %q Content-Range %q Accept-Ranges %q, want %d %q %q %q", c.path, c.rng,
				resp.StatusCode, body, resp.Header.Get("Content-Range"), resp.Header.Get("Accept-Ranges"),
				c.status, c.body, c.crange, c.accept)
		}
	}
}

// TestForceRangesMatchesNGINX: NGINX's range filter, which
// proxy_force_ranges lets at a proxied 200, does not look at the method:
// a HEAD gets the 206's header, a POST its range; and a range past the
// end is its own 416 page, with the upstream's other fields.
func TestForceRangesMatchesNGINX(t *testing.T) {
	nginxPath(t)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = io.WriteString(zw, "0123456789")
	_ = zw.Close()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("X-Up", "1")
		if strings.HasPrefix(r.URL.Path, "/gu/") {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gz.Bytes())
			return
		}
		io.WriteString(w, "0123456789")
	}))
	defer origin.Close()
	// gunzip and sub_filter rebuild the body before NGINX's range filter
	// sees it, without a length: no range of it is offered.
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; proxy_force_ranges on;
			location / { proxy_pass %[2]s; }
			location /gu/ { gunzip on; proxy_pass %[2]s; }
			location /sub/ { sub_filter_types text/plain; sub_filter 234 X; proxy_pass %[2]s; }
		}`, port, origin.URL)
	})
	for _, c := range []struct{ method, path, rng string }{
		{"GET", "/x", "bytes=1-2"}, {"HEAD", "/x", "bytes=1-2"}, {"POST", "/x", "bytes=1-2"},
		{"GET", "/x", "bytes=20-"}, {"HEAD", "/x", "bytes=20-"},
		{"GET", "/gu/x", "bytes=1-2"}, {"GET", "/sub/x", "bytes=1-2"},
	} {
		var got []string
		for _, port := range []int{mport, nport} {
			resp, body := do(t, c.method, fmt.Sprintf("http://127.0.0.1:%d%s", port, c.path), map[string]string{"Range": c.rng})
			length := resp.Header.Get("Content-Length")
			if resp.StatusCode != http.StatusPartialContent {
				// The error pages name their server, and net/http
				// sends a short whole body with its length where
				// NGINX sends it chunked.
				length = ""
			}
			got = append(got, fmt.Sprintf("%d %q Content-Type %q Content-Length %q Content-Range %q X-Up %q", resp.StatusCode,
				strings.ReplaceAll(body, "nginx/1.22.1", "mosaic"), resp.Header.Get("Content-Type"),
				length, resp.Header.Get("Content-Range"), resp.Header.Get("X-Up")))
		}
		if got[0] != got[1] {
			t.Errorf("%s %s Range %s: mosaic %s, nginx %s", c.method, c.path, c.rng, got[0], got[1])
		}
	}
}

// TestCacheMaxRangeOffset: a range request past the offset that the
// cache cannot answer goes upstream with its Range, and what comes back
// is not stored; one below it is filled and stored as usual, and a
// stored response answers any range.
func TestCacheMaxRangeOffset(t *testing.T) {
	origin := newConnOrigin(t)
	dir := t.TempDir()
	port := freePort(t)
	startMosaic(t, dir, strings.NewReplacer("{origin}", origin.Listener.Addr().String()).Replace(`
	http {
		proxy_cache_path memory keys_zone=z:1m;
		server {
			listen 127.0.0.1:{port};
			include uwsgi_params;
			location /cached/ { proxy_cache z; proxy_cache_max_range_offset 100; proxy_pass http://{origin}; }
			location /zero/   { proxy_cache z; proxy_cache_max_range_offset 0; proxy_pass http://{origin}/cached/; }
			location /fcgi    { fastcgi_cache z; fastcgi_cache_key $uri; fastcgi_cache_max_range_offset 1m; }
			location /wsgi    { uwsgi_cache z; uwsgi_cache_key $uri; uwsgi_cache_max_range_offset 1k; }
		}
	}`), port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	step := 0
	get := func(path, rng string, status int, body string, upstream int32, sentRange string) {
		t.Helper()
		step++
		req, _ := http.NewRequest("GET", base+path, nil)
		if rng != "" {
			req.Header.Set("Range", rng)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != status || string(b) != body {
			t.Errorf("step %d: %s %q: %d %q, want %d %q", step, path, rng, resp.StatusCode, b, status, body)
		}
		if got := origin.cached.Load(); got != upstream {
			t.Errorf("step %d: %s %q: the origin served %d requests, want %d", step, path, rng, got, upstream)
		}
		origin.mu.Lock()
		last := origin.ranges[len(origin.ranges)-1]
		origin.mu.Unlock()
		if last != sentRange {
			t.Errorf("step %d: the origin last got Range %q, want %q", step, last, sentRange)
		}
	}
	// Past the offset: upstream with the Range, not stored.
	get("/cached/a", "bytes=200-204", 206, "01234", 1, "bytes=200-204")
	get("/cached/a", "", 200, strings.Repeat("0123456789", 100), 2, "")
	// Stored now: a range past the offset is a hit.
	get("/cached/a", "bytes=200-204", 206, "01234", 2, "")
	// Below the offset: filled whole and stored.
	get("/cached/b", "bytes=10-12", 206, "012", 3, "")
	get("/cached/b", "", 200, strings.Repeat("0123456789", 100), 3, "")
	// A suffix range counts as past any offset, and with 0 every range is.
	get("/cached/c", "bytes=-2", 206, "89", 4, "bytes=-2")
	get("/zero/d", "bytes=0-1", 206, "01", 5, "bytes=0-1")
	get("/zero/d", "", 200, strings.Repeat("0123456789", 100), 6, "")
}

// TestGatewayStore: fastcgi_store and uwsgi_store save a complete 200 to
// the file that the root maps the URI to, or to a path with variables,
// with the access of *_store_access.
func TestGatewayStore(t *testing.T) {
	dir := t.TempDir()
	fpm, wsgi := gatewayApps(t, dir)
	base := startGatewaySite(t, dir, "", fpm, wsgi, `
	error_log {dir}/error.log info;
	http {
		server {
			listen 127.0.0.1:{port};
			include uwsgi_params;
			root {dir}/mirror;
			location /fcgi/ { fastcgi_store on; fastcgi_store_access user:rw group:r all:r; {params} fastcgi_pass {fpm}; }
			location /wsgi/ { uwsgi_store {dir}/saved/$arg_n.txt; uwsgi_pass {wsgi}; }
			location /nostore/ { uwsgi_pass {wsgi}; }
		}
	}`)
	if code, body := getBody(t, base+"/fcgi/page?n=5"); code != 200 || body != "ppppp" {
		t.Fatalf("fastcgi: %d %q", code, body)
	}
	if code, body := getBody(t, base+"/wsgi/size?n=7"); code != 200 || body != "xxxxxxx" {
		t.Fatalf("uwsgi: %d %q", code, body)
	}
	getBody(t, base+"/nostore/size?n=9")
	for path, want := range map[string]string{
		"mirror/fcgi/page": "ppppp", "saved/7.txt": "xxxxxxx",
	} {
		b, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil || string(b) != want {
			t.Errorf("%s: %q %v, want %q", path, b, err, want)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "mirror/fcgi/page")); err == nil && fi.Mode().Perm() != 0o644 {
		t.Errorf("fastcgi_store_access: mode %v, want 0644", fi.Mode().Perm())
	}
	if fi, err := os.Stat(filepath.Join(dir, "saved/7.txt")); err == nil && fi.Mode().Perm() != 0o600 {
		t.Errorf("uwsgi_store default access: mode %v, want 0600", fi.Mode().Perm())
	}
	if _, err := os.Stat(filepath.Join(dir, "mirror/nostore")); err == nil {
		t.Error("a location without uwsgi_store stored")
	}
}
