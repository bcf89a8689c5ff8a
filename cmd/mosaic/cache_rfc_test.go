package main

import (
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCacheConformance runs, through the binary against origins on
// loopback, the cache's rules for targeted fields (RFC 9213), heuristic
// freshness (RFC 9111 section 4.2.2), Vary normalisation (4.1),
// must-understand (5.2.2.3), If-Modified-Since without Last-Modified
// (4.3.2, where the server follows NGINX) and ranges answered from the
// cache (RFC 9110 section 14).
func TestCacheConformance(t *testing.T) {
	t.Parallel()
	const digits = "0123456789"
	ranged := func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("ETag", `"e1"`)
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("X-Range-Sent", r.Header.Get("Range"))
		w.Header().Set("Accept-Ranges", "bytes") // NGINX cuts ranges only then
		fmt.Fprint(w, digits)
	}
	targeted := func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("CDN-Cache-Control", "max-age=60")
		w.Header().Set("Surrogate-Control", "max-age=60")
		fmt.Fprint(w, vbody(n))
	}
	// modified40s has no explicit lifetime and was last modified 40 s
	// before its Date: a heuristic lifetime of 4 s, less the up to one
	// second of apparent age that a Date in whole seconds gives.
	modified40s := func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Last-Modified", time.Now().Add(-40*time.Second).UTC().Format(http.TimeFormat))
		fmt.Fprint(w, vbody(n))
	}
	rules := []cscenario{
		{
			name:   "9213/2.1 CDN-Cache-Control overrides Cache-Control and is passed on",
			origin: targeted,
			steps: []cstep{
				{cache: "MISS", origin: 1},
				{cache: "HIT", body: "v1", origin: 1, want: map[string]string{"Cdn-Cache-Control": "max-age=60", "Surrogate-Control": "max-age=60"}},
			},
		},
		{
			name: "9213/2.1 proxy_cache_targeted_headers: the first on the list decides and stops here",
			conf: "proxy_cache_targeted_headers Surrogate-Control CDN-Cache-Control;",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("CDN-Cache-Control", "no-store")
				w.Header().Set("Surrogate-Control", "max-age=60")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{cache: "MISS", origin: 1, want: map[string]string{"Surrogate-Control": "", "Cdn-Cache-Control": "no-store"}},
				{cache: "HIT", body: "v1", origin: 1, want: map[string]string{"Surrogate-Control": ""}},
			},
		},
		{
			name: "9213/2.1 CDN-Cache-Control private keeps the response out",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("CDN-Cache-Control", "private")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{{cache: "MISS", origin: 1}, {cache: "MISS", body: "v2", origin: 2}},
		},
		{
			name:   "9213 proxy_cache_targeted_headers off: Cache-Control decides",
			conf:   "proxy_cache_targeted_headers off;",
			origin: targeted,
			steps:  []cstep{{cache: "MISS", origin: 1}, {cache: "MISS", body: "v2", origin: 2}},
		},
		{
			name:   "9111/4.2.2 heuristic freshness from Last-Modified",
			origin: modified40s,
			steps: []cstep{
				{cache: "MISS", origin: 1},
				{sleep: fresh, cache: "HIT", body: "v1", origin: 1, want: map[string]string{"Warning": ""}},
				{sleep: 3200 * time.Millisecond, cache: "EXPIRED", body: "v2", origin: 2},
			},
		},
		{
			name:   "9111/4.2.2 proxy_cache_heuristic off (NGINX): not stored",
			conf:   "proxy_cache_heuristic off;",
			origin: modified40s,
			steps:  []cstep{{cache: "MISS", origin: 1}, {cache: "MISS", body: "v2", origin: 2}},
		},
		{
			name:   "9111/4.2.2 proxy_cache_valid comes before the heuristic",
			conf:   "proxy_cache_valid 200 1s;",
			origin: modified40s,
			// NGINX's whole seconds keep a 1s entry 1 to 2 s.
			steps: []cstep{{cache: "MISS", origin: 1}, {sleep: 2100 * time.Millisecond, cache: "EXPIRED", body: "v2", origin: 2}},
		},
		{
			name: "9111/4.1 Vary: Accept-Language variants by the normalised value",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Vary", "Accept-Language")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{header: []string{"Accept-Language", "en-US, fr;q=0.5"}, cache: "MISS", origin: 1},
				{header: []string{"Accept-Language", "fr;q=0.50,EN-us"}, cache: "HIT", body: "v1", origin: 1},
				{header: []string{"Accept-Language", "fr"}, cache: "MISS", body: "v2", origin: 2},
			},
		},
		{
			name: "9111/5.2.2.3 must-understand with an understood status is stored",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "must-understand, no-store, max-age=60")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{{cache: "MISS", origin: 1}, {cache: "HIT", body: "v1", origin: 1}},
		},
		{
			// The server answers conditionals as NGINX's not-modified
			// filter, which has no Date in place of a Last-Modified:
			// the RFC rule is the library's (cache/conformance_test.go).
			name: "9111/4.3.2 If-Modified-Since without Last-Modified: modified, as NGINX",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{cache: "MISS", origin: 1},
				{header: []string{"If-Modified-Since", "Fri, 01 Jan 2100 00:00:00 GMT"}, cache: "HIT", body: "v1", origin: 1},
				{header: []string{"If-Modified-Since", "Thu, 01 Jan 1970 00:00:00 GMT"}, cache: "HIT", body: "v1", origin: 1},
			},
		},
		{
			name:   "9110/14 ranges of a stored response: single, If-Range, 416",
			origin: ranged,
			steps: []cstep{
				{cache: "MISS", body: digits, origin: 1},
				{header: []string{"Range", "bytes=2-4"}, status: 206, cache: "HIT", body: "234", origin: 1,
					want: map[string]string{"Content-Range": "bytes 2-4/10"}},
				{header: []string{"Range", "bytes=0-1", "If-Range", `"e1"`}, status: 206, cache: "HIT", body: "01", origin: 1},
				{header: []string{"Range", "bytes=0-1", "If-Range", `"e2"`}, cache: "HIT", body: digits, origin: 1},
				{header: []string{"Range", "bytes=50-"}, status: 416, cache: "HIT", origin: 1,
					want: map[string]string{"Content-Range": "bytes */10"}},
			},
		},
		{
			name:   "9110/14 a range request fills the entry with the whole response",
			origin: ranged,
			steps: []cstep{
				{header: []string{"Range", "bytes=5-"}, status: 206, cache: "MISS", body: "56789", origin: 1,
					want: map[string]string{"X-Range-Sent": "", "Content-Range": "bytes 5-9/10"}},
				{cache: "HIT", body: digits, origin: 1},
			},
		},
	}
	runScenarios(t, "", rules)
}

// TestCacheMultipleRanges asks a stored response for several ranges
// through the binary: one multipart/byteranges body.
func TestCacheMultipleRanges(t *testing.T) {
	t.Parallel()
	o := newCacheOrigin(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Accept-Ranges", "bytes")
		fmt.Fprint(w, "0123456789")
	})
	url := cachingFront(t, o) + "/m"
	cacheDo(t, "GET", url)
	got := cacheDo(t, "GET", url, "Range", "bytes=0-1,8-")
	boundary, ok := strings.CutPrefix(got.header.Get("Content-Type"), "multipart/byteranges; boundary=")
	if got.status != 206 || !ok {
		t.Fatalf("%d %q", got.status, got.header.Get("Content-Type"))
	}
	want := "\r\n--" + boundary + "\r\nContent-Type: text/plain\r\nContent-Range: bytes 0-1/10\r\n\r\n01" +
		"\r\n--" + boundary + "\r\nContent-Type: text/plain\r\nContent-Range: bytes 8-9/10\r\n\r\n89" +
		"\r\n--" + boundary + "--\r\n"
	if got.body != want {
		t.Errorf("body %q, want %q", got.body, want)
	}
	o.waitHits(t, 1, "multiple ranges")
}

// TestCachePostContentLocation: with proxy_cache_post_reuse on, a POST
// response with a lifetime and a Content-Location naming its own URI
// answers the GETs that follow (RFC 9110 section 9.3.3); one without them
// invalidates the URI.
func TestCachePostContentLocation(t *testing.T) {
	t.Parallel()
	o := newCacheOrigin(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		if r.Method == http.MethodPost && r.URL.Path == "/reused" {
			w.Header().Set("Content-Location", "/reused")
		}
		fmt.Fprint(w, r.Method, vbody(n))
	})
	base := cachingFront(t, o, "proxy_cache_post_reuse on;")
	for i, s := range []struct{ method, path, cache, body string }{
		{"POST", "/reused", "", "POSTv1"},
		{"GET", "/reused", "HIT", "POSTv1"},
		{"GET", "/other", "MISS", "GETv2"},
		{"GET", "/other", "HIT", "GETv2"},
		{"POST", "/other", "", "POSTv3"},
		{"GET", "/other", "MISS", "GETv4"},
	} {
		got := cacheDo(t, s.method, base+s.path)
		if got.status != 200 || got.cacheStatus() != s.cache || got.body != s.body {
			t.Errorf("step %d: %s %s: %d %q %q, want %q %q", i, s.method, s.path, got.status, got.cacheStatus(), got.body, s.cache, s.body)
		}
	}
	o.waitHits(t, 4, "POST reuse")
}

// cachingFront starts a mosaic that caches everything it proxies to o,
// the URI unchanged, with the location directives extra, and returns its
// base URL.
func cachingFront(t *testing.T, o *cacheOrigin, extra ...string) string {
	t.Helper()
	port := freePort(t)
	startMosaic(t, t.TempDir(), `http {
    access_log off;
    proxy_cache_path memory keys_zone=r:1m;
    server {
        listen 127.0.0.1:{port};
        add_header X-Cache $upstream_cache_status always;
        location / { proxy_pass http://`+o.addr()+`; proxy_cache r; `+strings.Join(extra, " ")+` }
    }
}`, port)
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

// TestCacheConformanceDirectives checks what "mosaic -t" says of the
// directives of targeted fields and heuristics, and that the gateways have
// them under their names.
func TestCacheConformanceDirectives(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, c := range []struct{ conf, want string }{
		{"proxy_cache_targeted_headers off CDN-Cache-Control;", `invalid value "off" in "proxy_cache_targeted_headers" directive`},
		{"proxy_cache_targeted_headers Bad:Name;", `invalid value "Bad:Name" in "proxy_cache_targeted_headers" directive`},
		{"proxy_cache_heuristic sometimes;", `it must be "on" or "off"`},
	} {
		path := filepath.Join(dir, fmt.Sprintf("bad%d.conf", i))
		writeFile(t, path, "http {\n    proxy_cache_path memory keys_zone=z:1m;\n    server {\n        listen 127.0.0.1:1;\n        "+c.conf+"\n        location / { proxy_pass http://127.0.0.1:2; proxy_cache z; }\n    }\n}\n")
		out, err := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) || !strings.Contains(string(out), path+":") {
			t.Errorf("%s: %v\n%s\nwant %q", c.conf, err, out, c.want)
		}
	}
	good := filepath.Join(dir, "good.conf")
	writeFile(t, good, `http {
    proxy_cache_path memory keys_zone=z:1m;
    proxy_cache_targeted_headers Surrogate-Control CDN-Cache-Control;
    proxy_cache_heuristic off;
    server {
        listen 127.0.0.1:1;
        location / { proxy_pass http://127.0.0.1:2; proxy_cache z; proxy_cache_targeted_headers off; }
        location /f { fastcgi_pass 127.0.0.1:3; fastcgi_cache z; fastcgi_cache_key $uri; fastcgi_cache_targeted_headers CDN-Cache-Control; fastcgi_cache_heuristic on; }
        location /u { uwsgi_pass 127.0.0.1:4; uwsgi_cache z; uwsgi_cache_key $uri; uwsgi_cache_heuristic off; }
    }
}
`)
	configTest(t, good)
}
