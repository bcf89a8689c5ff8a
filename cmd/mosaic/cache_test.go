package main

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/rueidis"
)

// The cache through the real binary: mosaic proxies to origins on loopback
// that count their requests, so that hits, coalescing and refreshes are
// proven by what the origin saw. Every location adds $upstream_cache_status
// to its responses as X-Cache.

// cacheOrigin is a loopback origin that counts the requests it answers.
type cacheOrigin struct {
	*httptest.Server
	hits     atomic.Int64 // requests received
	answered atomic.Int64 // requests whose handler has returned
}

// newCacheOrigin starts an origin; h gets the number of the request (1 for
// the first).
func newCacheOrigin(t *testing.T, h func(n int64, w http.ResponseWriter, r *http.Request)) *cacheOrigin {
	t.Helper()
	o := &cacheOrigin{}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer o.answered.Add(1)
		withoutDate(w)
		h(o.hits.Add(1), w, r)
	}))
	t.Cleanup(o.Close)
	return o
}

// withoutDate keeps net/http from adding Date to an origin's response
// unless the handler sets one. The cache ages a response by its Date, in
// whole seconds (RFC 9111 section 4.2.3): a max-age=1 answer whose Date
// is stamped just before a second ends and that arrives just after it is
// stale on arrival and not stored, which would make a test's fill miss
// now and then on a loaded machine. NGINX does not read Date at all.
func withoutDate(w http.ResponseWriter) { w.Header()["Date"] = nil }

func (o *cacheOrigin) addr() string { return o.Listener.Addr().String() }

// waitHits waits until the origin has answered want requests (background
// updates finish after the client's response); it fails at once when it
// received more, and after waitCeiling when fewer.
func (o *cacheOrigin) waitHits(t *testing.T, want int64, what string) {
	t.Helper()
	deadline := time.Now().Add(waitCeiling)
	for {
		n := o.hits.Load()
		if n == want && o.answered.Load() == want {
			return
		}
		if n > want || time.Now().After(deadline) {
			t.Fatalf("%s: origin saw %d requests, want %d", what, n, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// cacheResp is a response read whole.
type cacheResp struct {
	status int
	header http.Header
	body   string
}

// cacheStatus is $upstream_cache_status, which the configurations send as
// X-Cache.
func (r cacheResp) cacheStatus() string { return r.header.Get("X-Cache") }

// cacheClient sends exactly the headers given (no transparent gzip) and
// does not follow redirects.
var cacheClient = &http.Client{
	Transport:     &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 64},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// cacheDo sends a request with header name/value pairs.
func cacheDo(t *testing.T, method, url string, header ...string) cacheResp {
	t.Helper()
	r, err := cacheTry(method, url, header...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// cacheTry is cacheDo for goroutines: it returns the error.
func cacheTry(method, url string, header ...string) (cacheResp, error) {
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		return cacheResp{}, err
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := cacheClient.Do(req)
	if err != nil {
		return cacheResp{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return cacheResp{}, fmt.Errorf("%s %s: reading body: %w", method, url, err)
	}
	return cacheResp{status: resp.StatusCode, header: resp.Header, body: string(b)}, nil
}

// cstep is one client request of a scenario and what it must produce.
type cstep struct {
	sleep  time.Duration // wait first (freshness is real time here)
	method string        // default GET
	path   string        // default /r
	header []string      // request header name/value pairs
	status int           // default 200
	cache  string        // $upstream_cache_status; "" = not checked
	body   string        // "" = not checked
	want   map[string]string
	origin int64 // origin requests so far (waited for: background updates)

	// atSecond starts the request (after sleep) as a wall-clock second
	// begins. A response that reaches mosaic in a later second than its
	// Date arrives a second old (RFC 9111 4.2.3's apparent_age, Date
	// having whole seconds), so a step whose answer must arrive with no
	// age (an exact Age later, a lifetime of 1 s) starts early in a
	// second; how often that crossing happened grew with the latency,
	// that is with the load beside the test.
	atSecond bool
}

// cscenario is one behaviour: the directives of its location, its origin
// and the requests that prove it.
type cscenario struct {
	name   string
	conf   string
	origin func(n int64, w http.ResponseWriter, r *http.Request)
	steps  []cstep
}

func vbody(n int64) string { return "v" + strconv.FormatInt(n, 10) }

// hangUpOrigin makes the origin unreachable for this request: the
// connection closes without a response.
func hangUpOrigin(w http.ResponseWriter) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		conn.Close()
	}
}

// runScenarios serves every scenario from one mosaic, each in a location
// /sN/ of its own with an origin of its own, and runs them in parallel.
// httpConf is added to the http block; the server caches in zone "rfc"
// unless a location says otherwise.
func runScenarios(t *testing.T, httpConf string, scs []cscenario) {
	t.Helper()
	origins := make([]*cacheOrigin, len(scs))
	var locs strings.Builder
	for i, sc := range scs {
		origins[i] = newCacheOrigin(t, sc.origin)
		fmt.Fprintf(&locs, "        location /s%d/ { proxy_pass http://%s/; %s }\n", i, origins[i].addr(), sc.conf)
	}
	port := freePort(t)
	startMosaic(t, t.TempDir(), `http {
    access_log off;
    proxy_cache_path memory keys_zone=rfc:64m;
    `+httpConf+`
    server {
        listen 127.0.0.1:{port};
        add_header X-Cache $upstream_cache_status always;
        proxy_cache rfc;
`+locs.String()+`    }
}`, port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for i, sc := range scs {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			o := origins[i]
			for j, s := range sc.steps {
				time.Sleep(s.sleep)
				if s.atSecond {
					now := time.Now()
					time.Sleep(now.Truncate(time.Second).Add(time.Second).Sub(now))
				}
				method, path := s.method, s.path
				if method == "" {
					method = http.MethodGet
				}
				if path == "" {
					path = "/r"
				}
				got := cacheDo(t, method, fmt.Sprintf("%s/s%d%s", base, i, path), s.header...)
				want := s.status
				if want == 0 {
					want = http.StatusOK
				}
				if got.status != want {
					t.Errorf("step %d: status %d, want %d", j, got.status, want)
				}
				if s.cache != "" && got.cacheStatus() != s.cache {
					t.Errorf("step %d: cache status %q, want %q (Cache-Status %q)", j, got.cacheStatus(), s.cache, got.header.Get("Cache-Status"))
				}
				if s.body != "" && got.body != s.body {
					t.Errorf("step %d: body %q, want %q", j, got.body, s.body)
				}
				for k, v := range s.want {
					if g := strings.Join(got.header.Values(k), ", "); g != v {
						t.Errorf("step %d: header %s = %q, want %q", j, k, g, v)
					}
				}
				o.waitHits(t, s.origin, fmt.Sprintf("step %d", j))
			}
		})
	}
}

// Freshness here is real time in whole seconds: a lifetime of 3 s is
// still fresh after fresh (1.2 s) and stale after a further past (2.2 s).
const (
	fresh = 1200 * time.Millisecond
	past  = 2200 * time.Millisecond
)

// TestCacheRFCRules runs the rule table of the cache package through the
// binary: RFC 9111 (shared cache), RFC 5861 and NGINX's rules.
func TestCacheRFCRules(t *testing.T) {
	t.Parallel()
	rules := []cscenario{
		{
			name:   "9111/4.2 a fresh response (max-age) is reused, then expires",
			origin: maxAge("max-age=3"),
			steps: []cstep{
				{cache: "MISS", body: "v1", origin: 1},
				{sleep: fresh, cache: "HIT", body: "v1", origin: 1},
				{sleep: past, cache: "EXPIRED", body: "v2", origin: 2},
			},
		},
		{
			name:   "9111/5.2.2.10 s-maxage overrides max-age in a shared cache",
			origin: maxAge("max-age=0, s-maxage=60"),
			steps:  []cstep{{cache: "MISS", origin: 1}, {cache: "HIT", body: "v1", origin: 1}},
		},
		{
			name: "9111/5.3 Expires gives the lifetime",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Expires", time.Now().Add(3*time.Second).UTC().Format(http.TimeFormat))
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{cache: "MISS", origin: 1},
				{sleep: 500 * time.Millisecond, cache: "HIT", origin: 1},
				{sleep: 3 * time.Second, cache: "EXPIRED", body: "v2", origin: 2},
			},
		},
		{
			name: "9111/5.3 max-age overrides Expires",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Expires", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
				w.Header().Set("Cache-Control", "max-age=1")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{{cache: "MISS", origin: 1}, {sleep: 1500 * time.Millisecond, cache: "EXPIRED", origin: 2}},
		},
		{
			name: "9111/5.3 an invalid Expires means already expired: not stored",
			conf: "proxy_cache_valid 1m;",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Expires", "0")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{{cache: "MISS", origin: 1}, {cache: "MISS", body: "v2", origin: 2}},
		},
		{
			name:   "9111/5.2.2.5 no-store is never stored",
			origin: maxAge("no-store, max-age=60"),
			steps: []cstep{
				{cache: "MISS", origin: 1, want: map[string]string{"Cache-Status": "mosaic; fwd=miss; fwd-status=200; detail=no-store"}},
				{cache: "MISS", origin: 2},
			},
		},
		{
			name:   "9111/5.2.2.7 private is not stored by a shared cache",
			origin: maxAge("private, max-age=60"),
			steps:  []cstep{{cache: "MISS", origin: 1}, {cache: "MISS", origin: 2}},
		},
		{
			name: "9111/5.2.2.7 private=field stores the response without the field",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", `private="X-User", max-age=60`)
				w.Header().Set("X-User", "alice")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{cache: "MISS", origin: 1, want: map[string]string{"X-User": "alice"}},
				{cache: "HIT", origin: 1, want: map[string]string{"X-User": ""}},
			},
		},
		{
			name: "9111/5.2.2.4 no-cache is stored but validated before every reuse",
			conf: "proxy_cache_revalidate on;",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "no-cache")
				w.Header().Set("ETag", `"e1"`)
				if r.Header.Get("If-None-Match") == `"e1"` {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{cache: "MISS", body: "v1", origin: 1},
				{cache: "REVALIDATED", body: "v1", origin: 2},
				{cache: "REVALIDATED", body: "v1", origin: 3},
			},
		},
		{
			name: "nginx: Set-Cookie prevents storing",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Set-Cookie", "id=1")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{{cache: "MISS", origin: 1}, {cache: "MISS", origin: 2}},
		},
		{
			name: "nginx: proxy_ignore_headers Set-Cookie stores, without sharing the cookie",
			conf: "proxy_ignore_headers Set-Cookie;",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Set-Cookie", "id=1")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{cache: "MISS", origin: 1, want: map[string]string{"Set-Cookie": "id=1"}},
				{cache: "HIT", origin: 1, want: map[string]string{"Set-Cookie": ""}},
			},
		},
		{
			name: "9111/4.1 Vary: * is never stored",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Vary", "*")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{{cache: "MISS", origin: 1}, {cache: "MISS", origin: 2}},
		},
		{
			name: "9111/4.1 Vary selects a variant per request header value",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Vary", "Accept-Language")
				fmt.Fprint(w, r.Header.Get("Accept-Language"))
			},
			steps: []cstep{
				{header: []string{"Accept-Language", "en"}, cache: "MISS", body: "en", origin: 1},
				{header: []string{"Accept-Language", "fr"}, cache: "MISS", body: "fr", origin: 2},
				{header: []string{"Accept-Language", "en"}, cache: "HIT", body: "en", origin: 2},
				{header: []string{"Accept-Language", "fr"}, cache: "HIT", body: "fr", origin: 2},
			},
		},
		{
			name: "Vary: Accept-Encoding is keyed on the normalised coding set",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Vary", "Accept-Encoding")
				fmt.Fprint(w, "[", r.Header.Get("Accept-Encoding"), "]")
			},
			steps: []cstep{
				{header: []string{"Accept-Encoding", "gzip, deflate, br"}, cache: "MISS", body: "[br,deflate,gzip]", origin: 1},
				{header: []string{"Accept-Encoding", "br;q=1.0, gzip;q=0.8, deflate, sdch"}, cache: "HIT", body: "[br,deflate,gzip]", origin: 1},
				{header: []string{"Accept-Encoding", "gzip;q=0, identity"}, cache: "MISS", body: "[]", origin: 2},
				{header: []string{"Accept-Encoding", "identity"}, cache: "HIT", body: "[]", origin: 2},
			},
		},
		{
			name:   "9111/3.5 a response to an authorized request is not shared",
			origin: maxAge("max-age=60"),
			steps: []cstep{
				{header: []string{"Authorization", "Basic YTpi"}, cache: "MISS", origin: 1},
				{cache: "MISS", origin: 2},
			},
		},
		{
			name:   "9111/3.5 public lets an authorized response be shared",
			origin: maxAge("public, max-age=60"),
			steps: []cstep{
				{header: []string{"Authorization", "Basic YTpi"}, cache: "MISS", origin: 1},
				{cache: "HIT", body: "v1", origin: 1},
			},
		},
		{
			name:   "9111/3.5 s-maxage lets an authorized response be shared",
			origin: maxAge("s-maxage=60"),
			steps: []cstep{
				{header: []string{"Authorization", "Basic YTpi"}, cache: "MISS", origin: 1},
				{cache: "HIT", body: "v1", origin: 1},
			},
		},
		{
			name:   "9111/5.1 Age is sent on every hit",
			origin: maxAge("max-age=100"),
			steps: []cstep{
				{atSecond: true, cache: "MISS", origin: 1, want: map[string]string{"Age": ""}},
				{sleep: fresh, cache: "HIT", origin: 1, want: map[string]string{"Age": "1"}},
			},
		},
		{
			name: "9111/4.2.3 the upstream's Age counts against freshness",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=5")
				w.Header().Set("Age", "3")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{cache: "MISS", origin: 1},
				{sleep: fresh, cache: "HIT", origin: 1, want: map[string]string{"Age": "4"}},
				{sleep: fresh, cache: "EXPIRED", origin: 2},
			},
		},
		{
			name:   "nginx: X-Accel-Expires overrides Cache-Control and is not passed on",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) { xAccel(n, w, "private, max-age=1", "3") },
			steps: []cstep{
				{cache: "MISS", origin: 1, want: map[string]string{"X-Accel-Expires": "", "Cache-Control": "private, max-age=1"}},
				{sleep: fresh, cache: "HIT", origin: 1, want: map[string]string{"X-Accel-Expires": ""}},
				// NGINX's whole seconds keep "X-Accel-Expires: 3" 3 to 4 s:
				// past (3.4 s in all) is still fresh for a fill made early
				// in its second.
				{sleep: 3 * time.Second, cache: "EXPIRED", origin: 2},
			},
		},
		{
			name:   "nginx: X-Accel-Expires: 0 disables caching",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) { xAccel(n, w, "max-age=60", "0") },
			steps:  []cstep{{cache: "MISS", origin: 1}, {cache: "MISS", origin: 2}},
		},
		{
			name: "nginx: proxy_cache_valid gives a lifetime per status",
			conf: "proxy_cache_valid 404 1m;",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusNotFound)
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{status: 404, cache: "MISS", origin: 1},
				{status: 404, cache: "HIT", body: "v1", origin: 1},
			},
		},
		{
			name: "9111/4.2.2 no explicit lifetime and no valid rule: not stored with proxy_cache_heuristic off",
			conf: "proxy_cache_heuristic off;",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{{cache: "MISS", origin: 1}, {cache: "MISS", origin: 2}},
		},
		{
			name: "9111/4.3.4 a 304 on revalidation refreshes the entry and merges its header",
			conf: "proxy_cache_revalidate on;",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=1")
				w.Header().Set("ETag", `"e1"`)
				w.Header().Set("X-Version", vbody(n))
				if r.Header.Get("If-None-Match") == `"e1"` {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{cache: "MISS", body: "v1", origin: 1},
				{sleep: 1500 * time.Millisecond, cache: "REVALIDATED", body: "v1", origin: 2, want: map[string]string{"X-Version": "v2"}},
				{cache: "HIT", body: "v1", origin: 2, want: map[string]string{"X-Version": "v2"}},
			},
		},
		{
			name: "9111/4.3.1 Last-Modified is revalidated with If-Modified-Since",
			conf: "proxy_cache_revalidate on;",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=1")
				w.Header().Set("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")
				if r.Header.Get("If-Modified-Since") == "Mon, 01 Jan 2024 00:00:00 GMT" {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{cache: "MISS", body: "v1", origin: 1},
				{sleep: 1500 * time.Millisecond, cache: "REVALIDATED", body: "v1", origin: 2},
			},
		},
		{
			name: "9111/4.3.3 a full response to a revalidation replaces the entry",
			conf: "proxy_cache_revalidate on;",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=1")
				w.Header().Set("ETag", `"`+vbody(n)+`"`)
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{cache: "MISS", body: "v1", origin: 1},
				{sleep: 1500 * time.Millisecond, atSecond: true, cache: "EXPIRED", body: "v2", origin: 2},
				{cache: "HIT", body: "v2", origin: 2},
			},
		},
		{
			name:   "5861/3 stale-while-revalidate serves stale and refreshes in the background",
			origin: maxAge("max-age=1, stale-while-revalidate=60"),
			steps: []cstep{
				{cache: "MISS", body: "v1", origin: 1},
				{sleep: 1500 * time.Millisecond, atSecond: true, cache: "STALE", body: "v1", origin: 2},
				// The update is stored just after the origin answered it.
				{sleep: 200 * time.Millisecond, cache: "HIT", body: "v2", origin: 2},
			},
		},
		{
			name: "5861/4 stale-if-error serves stale on a 5xx within the window only",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				if n > 1 {
					w.WriteHeader(http.StatusInternalServerError)
					fmt.Fprint(w, "broken")
					return
				}
				w.Header().Set("Cache-Control", "max-age=1, stale-if-error=3")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{cache: "MISS", body: "v1", origin: 1},
				{sleep: 1500 * time.Millisecond, cache: "STALE", body: "v1", origin: 2},
				{sleep: 3 * time.Second, status: 500, cache: "EXPIRED", body: "broken", origin: 3},
			},
		},
		{
			name: "9111/5.2.2.2 must-revalidate: 504 instead of stale when the origin is unreachable",
			conf: "proxy_cache_use_stale error timeout;",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				if n > 1 {
					hangUpOrigin(w)
					return
				}
				w.Header().Set("Cache-Control", "max-age=1, must-revalidate")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{cache: "MISS", body: "v1", origin: 1},
				{sleep: 1500 * time.Millisecond, status: 504, origin: 2},
			},
		},
		{
			name: "nginx: proxy_cache_use_stale error serves stale when the origin is unreachable",
			conf: "proxy_cache_use_stale error;",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				if n > 1 {
					hangUpOrigin(w)
					return
				}
				w.Header().Set("Cache-Control", "max-age=1")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{cache: "MISS", body: "v1", origin: 1},
				{sleep: 1500 * time.Millisecond, cache: "STALE", body: "v1", origin: 2},
			},
		},
		{
			name: "nginx: proxy_cache_use_stale http_500 serves stale on a 500",
			conf: "proxy_cache_use_stale http_500;",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				if n > 1 {
					w.WriteHeader(http.StatusInternalServerError)
					return
				}
				w.Header().Set("Cache-Control", "max-age=1")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{cache: "MISS", body: "v1", origin: 1},
				{sleep: 1500 * time.Millisecond, cache: "STALE", body: "v1", origin: 2},
			},
		},
		{
			name:   "9111/5.2.1.7 only-if-cached answers 504 without asking the origin",
			origin: maxAge("max-age=60"),
			steps: []cstep{
				{header: []string{"Cache-Control", "only-if-cached"}, status: 504, origin: 0},
				{cache: "MISS", origin: 1},
				{header: []string{"Cache-Control", "only-if-cached"}, cache: "HIT", body: "v1", origin: 1},
			},
		},
		{
			name:   "9111/5.2.1.5 a request with no-store is not stored",
			origin: maxAge("max-age=60"),
			steps: []cstep{
				{header: []string{"Cache-Control", "no-store"}, cache: "MISS", origin: 1},
				{cache: "MISS", origin: 2},
				{cache: "HIT", origin: 2},
			},
		},
		{
			name: "nginx: a HEAD miss is filled with a GET, which later GETs hit",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				fmt.Fprint(w, r.Method)
			},
			steps: []cstep{
				{method: http.MethodHead, cache: "MISS", origin: 1, want: map[string]string{"Content-Length": "3"}},
				{cache: "HIT", body: "GET", origin: 1},
				{method: http.MethodHead, cache: "HIT", origin: 1},
			},
		},
		{
			name:   "9111/4.4 a successful unsafe request invalidates the URI",
			origin: maxAge("max-age=60"),
			steps: []cstep{
				{cache: "MISS", origin: 1},
				{cache: "HIT", origin: 1},
				{method: http.MethodPost, origin: 2},
				{cache: "MISS", body: "v3", origin: 3},
			},
		},
		{
			name: "9111/4.3.2 a conditional request is answered 304 from the cache",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("ETag", `W/"e1"`)
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{header: []string{"If-None-Match", `"e1"`}, status: 304, cache: "MISS", origin: 1},
				{header: []string{"If-None-Match", `"e1"`}, status: 304, cache: "HIT", origin: 1},
				{header: []string{"If-None-Match", `"e2"`}, cache: "HIT", body: "v1", origin: 1},
			},
		},
		{
			name: "9110/14.2 Range is not sent upstream; the whole response is stored, the range answered from it",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Accept-Ranges", "bytes")
				fmt.Fprint(w, "range=", r.Header.Get("Range"))
			},
			steps: []cstep{
				{header: []string{"Range", "bytes=0-1"}, status: 206, cache: "MISS", body: "ra", origin: 1},
				{cache: "HIT", body: "range=", origin: 1},
			},
		},
	}
	if len(rules) < 25 {
		t.Fatalf("only %d rules", len(rules))
	}
	runScenarios(t, "", rules)
}

// maxAge is an origin that answers with Cache-Control cc.
func maxAge(cc string) func(n int64, w http.ResponseWriter, r *http.Request) {
	return func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", cc)
		fmt.Fprint(w, vbody(n))
	}
}

func xAccel(n int64, w http.ResponseWriter, cc, expires string) {
	w.Header().Set("Cache-Control", cc)
	w.Header().Set("X-Accel-Expires", expires)
	fmt.Fprint(w, vbody(n))
}

// TestCacheDirectives checks the location directives one by one: each
// scenario fails if its directive is ignored.
func TestCacheDirectives(t *testing.T) {
	t.Parallel()
	plain := func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, vbody(n))
	}
	scs := []cscenario{
		{
			name:   "the default proxy_cache_key includes the arguments",
			origin: plain,
			steps: []cstep{
				{path: "/r?a=1", cache: "MISS", origin: 1},
				{path: "/r?a=2", cache: "MISS", origin: 2},
				{path: "/r?a=1", cache: "HIT", body: "v1", origin: 2},
			},
		},
		{
			name:   "proxy_cache_key",
			conf:   "proxy_cache_key $scheme$proxy_host$uri;",
			origin: plain,
			steps: []cstep{
				{path: "/r?a=1", cache: "MISS", origin: 1},
				{path: "/r?a=2", cache: "HIT", body: "v1", origin: 1},
			},
		},
		{
			name:   "proxy_cache off",
			conf:   "proxy_cache off;",
			origin: plain,
			steps:  []cstep{{cache: "", body: "v1", origin: 1}, {cache: "", body: "v2", origin: 2}},
		},
		{
			name: "proxy_cache_methods POST",
			conf: "proxy_cache_methods GET HEAD POST;",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				fmt.Fprint(w, r.Method, vbody(n))
			},
			steps: []cstep{
				{method: http.MethodPost, cache: "MISS", body: "POSTv1", origin: 1},
				{method: http.MethodPost, cache: "HIT", body: "POSTv1", origin: 1},
			},
		},
		{
			name: "POST is not cached without proxy_cache_methods",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				fmt.Fprint(w, r.Method, vbody(n))
			},
			steps: []cstep{
				{method: http.MethodPost, body: "POSTv1", origin: 1},
				{method: http.MethodPost, body: "POSTv2", origin: 2},
			},
		},
		{
			name:   "proxy_cache_min_uses",
			conf:   "proxy_cache_min_uses 2;",
			origin: plain,
			steps: []cstep{
				{cache: "MISS", origin: 1, want: map[string]string{"Cache-Status": "mosaic; fwd=miss; fwd-status=200; detail=min-uses"}},
				{cache: "MISS", origin: 2},
				{cache: "HIT", body: "v2", origin: 2},
			},
		},
		{
			name:   "proxy_cache_bypass",
			conf:   "proxy_cache_bypass $http_x_bypass $arg_nocache;",
			origin: plain,
			steps: []cstep{
				{cache: "MISS", origin: 1},
				{cache: "HIT", body: "v1", origin: 1},
				{header: []string{"X-Bypass", "0"}, cache: "HIT", body: "v1", origin: 1},
				{header: []string{"X-Bypass", "yes"}, cache: "BYPASS", body: "v2", origin: 2},
				// A bypassed response is stored, as in NGINX.
				{cache: "HIT", body: "v2", origin: 2},
			},
		},
		{
			name:   "proxy_no_cache",
			conf:   "proxy_no_cache $http_x_nocache;",
			origin: plain,
			steps: []cstep{
				{header: []string{"X-Nocache", "1"}, cache: "MISS", origin: 1},
				{cache: "MISS", body: "v2", origin: 2},
				{cache: "HIT", body: "v2", origin: 2},
			},
		},
		{
			name: "proxy_cache_valid any",
			conf: "proxy_cache_valid 200 1m; proxy_cache_valid any 1m;",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusServiceUnavailable)
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{status: 503, cache: "MISS", origin: 1},
				{status: 503, cache: "HIT", body: "v1", origin: 1},
			},
		},
		{
			name: "proxy_cache_valid without a code covers 200, 301 and 302 only",
			conf: "proxy_cache_valid 1m;",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/moved" {
					http.Redirect(w, r, "/elsewhere", http.StatusFound)
					return
				}
				if r.URL.Path == "/missing" {
					w.WriteHeader(http.StatusNotFound)
				}
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{cache: "MISS", origin: 1},
				{cache: "HIT", body: "v1", origin: 1},
				{path: "/moved", status: 302, cache: "MISS", origin: 2},
				{path: "/moved", status: 302, cache: "HIT", origin: 2},
				{path: "/missing", status: 404, cache: "MISS", origin: 3},
				{path: "/missing", status: 404, cache: "MISS", origin: 4},
			},
		},
		{
			name:   "proxy_ignore_headers Cache-Control lets proxy_cache_valid decide",
			conf:   "proxy_ignore_headers Cache-Control; proxy_cache_valid 1m;",
			origin: maxAge("no-store"),
			steps:  []cstep{{cache: "MISS", origin: 1}, {cache: "HIT", body: "v1", origin: 1}},
		},
		{
			name:   "proxy_ignore_headers X-Accel-Expires",
			conf:   "proxy_ignore_headers X-Accel-Expires;",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) { xAccel(n, w, "max-age=60", "0") },
			steps:  []cstep{{cache: "MISS", origin: 1}, {cache: "HIT", body: "v1", origin: 1}},
		},
		{
			name: "proxy_cache_use_stale updating with proxy_cache_background_update",
			conf: "proxy_cache_use_stale updating; proxy_cache_background_update on;",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				if n > 1 {
					time.Sleep(300 * time.Millisecond) // the client must not wait for this
				}
				w.Header().Set("Cache-Control", "max-age=1")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{cache: "MISS", body: "v1", origin: 1},
				{sleep: 1500 * time.Millisecond, atSecond: true, cache: "STALE", body: "v1", origin: 2},
				{sleep: 600 * time.Millisecond, cache: "HIT", body: "v2", origin: 2},
			},
		},
		{
			name: "proxy_cache_use_stale http_404",
			conf: "proxy_cache_use_stale http_404;",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=1")
				if n > 1 {
					w.WriteHeader(http.StatusNotFound)
				}
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{cache: "MISS", body: "v1", origin: 1},
				{sleep: 1500 * time.Millisecond, cache: "STALE", body: "v1", origin: 2},
			},
		},
		{
			name: "without proxy_cache_use_stale an origin error is passed on",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				if n > 1 {
					hangUpOrigin(w)
					return
				}
				w.Header().Set("Cache-Control", "max-age=1")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{cache: "MISS", body: "v1", origin: 1},
				{sleep: 1500 * time.Millisecond, status: 502, cache: "EXPIRED", origin: 2},
			},
		},
		{
			name:   "proxy_cache_convert_head on is accepted",
			conf:   "proxy_cache_convert_head on;",
			origin: plain,
			steps:  []cstep{{method: http.MethodHead, cache: "MISS", origin: 1}, {cache: "HIT", body: "v1", origin: 1}},
		},
		{
			name: "tag fields are kept from clients",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Surrogate-Key", "a b")
				w.Header().Set("Cache-Tag", "c")
				fmt.Fprint(w, vbody(n))
			},
			steps: []cstep{
				{cache: "MISS", origin: 1, want: map[string]string{"Surrogate-Key": "", "Cache-Tag": ""}},
				{cache: "HIT", origin: 1, want: map[string]string{"Surrogate-Key": "", "Cache-Tag": ""}},
			},
		},
	}
	runScenarios(t, "", scs)
}

// startCacheSite runs mosaic with conf, in which {origin} stands for the
// origin's address and {dir} for a temporary directory, and returns the
// base URL.
func startCacheSite(t *testing.T, o *cacheOrigin, conf string) (string, *proc, string) {
	t.Helper()
	dir := t.TempDir()
	port := freePort(t)
	conf = strings.NewReplacer("{origin}", o.addr(), "{dir}", dir).Replace(conf)
	p := startMosaic(t, dir, conf, port)
	return fmt.Sprintf("http://127.0.0.1:%d", port), p, dir
}

// concurrent sends n GETs for url at once and returns the responses.
func concurrent(t *testing.T, n int, url string) []cacheResp {
	t.Helper()
	out := make([]cacheResp, n)
	errs := make(chan error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			r, err := cacheTry(http.MethodGet, url)
			if err != nil {
				errs <- err
			}
			out[i] = r
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return out
}

// slowOrigin answers after delay, with a body naming the request number.
func slowOrigin(delay time.Duration) func(n int64, w http.ResponseWriter, r *http.Request) {
	return func(n int64, w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay)
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, vbody(n))
	}
}

// TestCacheCoalescing: with proxy_cache_lock on, 100 concurrent requests
// for a cold key cause exactly one origin request; the others wait for it
// and are served what it stored.
func TestCacheCoalescing(t *testing.T) {
	o := newCacheOrigin(t, slowOrigin(300*time.Millisecond))
	base, _, _ := startCacheSite(t, o, `http {
    access_log off;
    proxy_cache_path memory keys_zone=z:16m;
    server {
        listen 127.0.0.1:{port};
        add_header X-Cache $upstream_cache_status always;
        location / { proxy_pass http://{origin}; proxy_cache z; proxy_cache_lock on; }
    }
}`)
	rs := concurrent(t, 100, base+"/cold")
	misses := 0
	for _, r := range rs {
		if r.status != 200 || r.body != "v1" {
			t.Fatalf("response %d %q", r.status, r.body)
		}
		if r.cacheStatus() == "MISS" {
			misses++
		}
	}
	if n := o.hits.Load(); n != 1 {
		t.Fatalf("100 concurrent cold requests made %d origin requests, want 1", n)
	}
	if misses != 1 {
		t.Fatalf("%d MISS responses, want 1 (the others wait and hit)", misses)
	}
}

// TestCacheLockTimeoutAndAge: a request that waits longer than
// proxy_cache_lock_timeout goes upstream itself and its response is not
// stored; a lock older than proxy_cache_lock_age lets one more request
// through. With the defaults (5 s each) the second request would wait for
// the slow first one instead.
func TestCacheLockTimeoutAndAge(t *testing.T) {
	t.Parallel()
	// The slow first answers are held until the second request has its
	// answer (or a ceiling), a waiter gives up after 200 or 300 ms: a
	// second request that waited would take the defaults' 5 s, and one
	// that gave up fails the 3 s bound only if load delays it over
	// 2.5 s (with a bound of 1 s, some 700 ms did). The hold was a 4 s
	// sleep, waited out twice.
	const gaveUp = 3 * time.Second
	release := make(chan struct{}, 2)
	o := newCacheOrigin(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		if n == 1 || r.URL.Query().Get("slow") != "" && n == 3 {
			select {
			case <-release:
			case <-time.After(waitCeiling):
			}
		}
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, vbody(n))
	})
	base, _, _ := startCacheSite(t, o, `http {
    access_log off;
    proxy_cache_path memory keys_zone=z:16m;
    server {
        listen 127.0.0.1:{port};
        add_header X-Cache $upstream_cache_status always;
        proxy_cache z;
        proxy_cache_lock on;
        location /timeout/ { proxy_pass http://{origin}; proxy_cache_lock_timeout 200ms; }
        location /age/ { proxy_pass http://{origin}; proxy_cache_lock_age 300ms; }
    }
}`)
	check := func(url string, firstN int64, wantDetail string) {
		t.Helper()
		first := make(chan cacheResp, 1)
		go func() {
			r, _ := cacheTry(http.MethodGet, url)
			first <- r
		}()
		// The second request must find the first one's lock: it goes once
		// the origin has the first (a fixed pause lost to a late goroutine
		// on a loaded machine, and the second request took the lock).
		waitFor(t, "the first request at the origin", func() bool { return o.hits.Load() == firstN })
		start := time.Now()
		r := cacheDo(t, http.MethodGet, url)
		if d := time.Since(start); d > gaveUp {
			t.Errorf("%s: the second request waited %v for the slow first", url, d)
		}
		release <- struct{}{}
		if r.body != vbody(firstN+1) || !strings.Contains(r.header.Get("Cache-Status"), wantDetail) {
			t.Errorf("%s: second request %q, Cache-Status %q", url, r.body, r.header.Get("Cache-Status"))
		}
		if f := <-first; f.body != vbody(firstN) {
			t.Errorf("%s: first request %q", url, f.body)
		}
	}
	// The waiter gave up after 200 ms: its response is not stored, the
	// slow first one is.
	check(base+"/timeout/a", 1, "detail=lock-timeout")
	if r := cacheDo(t, http.MethodGet, base+"/timeout/a"); r.cacheStatus() != "HIT" || r.body != "v1" {
		t.Errorf("after the lock timeout: %s %q", r.cacheStatus(), r.body)
	}
	check(base+"/age/b?slow=1", 3, "fwd=miss")
	if n := o.hits.Load(); n != 4 {
		t.Errorf("origin saw %d requests, want 4", n)
	}
}

// TestCacheRedisSharedByTwoInstances: two mosaic processes sharing one
// redis-server send one origin request for a cold key between them.
// Each Redis operation may take 5 s (redis_timeout=) rather than the
// default 250 ms: 100 requests against two -race processes on a loaded
// machine take longer than that, and a timeout rightly opens the breaker
// and sends requests around the cache, which is not what this test is
// about (TestCacheRedisPausedKeepsServing is).
func TestCacheRedisSharedByTwoInstances(t *testing.T) {
	redisAddr := startRedisServer(t)
	o := newCacheOrigin(t, slowOrigin(500*time.Millisecond))
	conf := `http {
    access_log off;
    proxy_cache_path redis://` + redisAddr + `/0 keys_zone=shared:16m redis_timeout=5s;
    server {
        listen 127.0.0.1:{port};
        add_header X-Cache $upstream_cache_status always;
        location / { proxy_pass http://{origin}; proxy_cache shared; proxy_cache_lock on; proxy_cache_lock_timeout 30s; proxy_cache_lock_age 30s; }
    }
}`
	a, _, _ := startCacheSite(t, o, conf)
	b, _, _ := startCacheSite(t, o, conf)
	var wg sync.WaitGroup
	var ra, rb []cacheResp
	wg.Add(2)
	go func() { defer wg.Done(); ra = concurrent(t, 50, a+"/cold") }()
	go func() { defer wg.Done(); rb = concurrent(t, 50, b+"/cold") }()
	wg.Wait()
	for _, r := range append(ra, rb...) {
		if r.status != 200 || r.body != "v1" {
			t.Fatalf("response %d %q", r.status, r.body)
		}
	}
	if n := o.hits.Load(); n != 1 {
		t.Fatalf("100 cold requests over two instances made %d origin requests, want 1", n)
	}
	// Either instance now hits what the other stored.
	for _, base := range []string{a, b} {
		if r := cacheDo(t, http.MethodGet, base+"/cold"); r.cacheStatus() != "HIT" || r.body != "v1" {
			t.Fatalf("%s: %s %q", base, r.cacheStatus(), r.body)
		}
	}
}

// startRedisServer runs a redis-server without persistence on a free
// loopback port for the test, or skips the test when it is not installed
// (.ci/run installs it).
func startRedisServer(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	port := freePort(t)
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--loglevel", "warning")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not start: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// redisKeys lists the keys of the Redis at addr that match pattern, for
// a test to wait for what a server writes there after its answer.
func redisKeys(t *testing.T, addr, pattern string) []string {
	t.Helper()
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	keys, err := c.Do(context.Background(), c.B().Keys().Pattern(pattern).Build()).AsStrSlice()
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestCacheDiskKillDuringWrite kills mosaic with SIGKILL while a large
// response is being written to the disk store, restarts it on the same
// directory, and checks that no half entry is ever served; then that a
// complete entry survives a restart, in the levels= layout.
func TestCacheDiskKillDuringWrite(t *testing.T) {
	const size = 4 << 20
	release := make(chan struct{})
	midway := make(chan struct{})
	o := newCacheOrigin(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		if n > 1 {
			fmt.Fprint(w, vbody(n))
			return
		}
		// The first response promises 4 MiB, sends half and stalls.
		w.Header().Set("Content-Length", strconv.Itoa(size))
		w.Write([]byte(strings.Repeat("x", size/2)))
		w.(http.Flusher).Flush()
		close(midway)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	dir := t.TempDir()
	conf := strings.NewReplacer("{origin}", o.addr(), "{dir}", dir).Replace(`http {
    access_log off;
    proxy_cache_path {dir}/cache levels=1:2 keys_zone=disk:10m;
    server {
        listen 127.0.0.1:{port};
        add_header X-Cache $upstream_cache_status always;
        location / { proxy_pass http://{origin}; proxy_cache disk; }
    }
}`)
	port := freePort(t)
	p := startMosaic(t, dir, conf, port)
	url := fmt.Sprintf("http://127.0.0.1:%d/big", port)

	got := make(chan int64, 1)
	go func() {
		resp, err := cacheClient.Get(url)
		if err != nil {
			got <- -1
			return
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		got <- n
	}()
	<-midway
	tmp := filepath.Join(dir, "cache", "tmp")
	waitFor(t, "a temporary entry file being written", func() bool {
		ents, _ := os.ReadDir(tmp)
		if len(ents) != 1 {
			return false
		}
		fi, err := ents[0].Info()
		return err == nil && fi.Size() >= size/4
	})
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.done
	p.done <- nil // for the cleanup
	close(release)
	if n := <-got; n >= size {
		t.Fatalf("the client got %d bytes of a response cut by SIGKILL", n)
	}

	// Restarted on the same directory: the half-written file is gone and
	// the key is a miss, filled anew.
	port = freePort(t)
	p = startMosaic(t, dir, conf, port)
	url = fmt.Sprintf("http://127.0.0.1:%d/big", port)
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Fatalf("%d temporary files left after the restart", len(ents))
	}
	if r := cacheDo(t, http.MethodGet, url); r.cacheStatus() != "MISS" || r.body != "v2" {
		t.Fatalf("after the restart: %s %q", r.cacheStatus(), r.body)
	}
	if r := cacheDo(t, http.MethodGet, url); r.cacheStatus() != "HIT" || r.body != "v2" {
		t.Fatalf("second request: %s %q", r.cacheStatus(), r.body)
	}
	// levels=1:2 names the file by the MD5 of the key, under directories
	// of its last hex digit and the two before, as NGINX does.
	sum := md5.Sum([]byte("http://" + o.addr() + "/big"))
	name := hex.EncodeToString(sum[:])
	file := filepath.Join(dir, "cache", name[31:], name[29:31], name)
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("entry file: %v", err)
	}

	// A graceful stop and a start keep the complete entry.
	p.cmd.Process.Signal(syscall.SIGTERM)
	<-p.done
	p.done <- nil
	port = freePort(t)
	startMosaic(t, dir, conf, port)
	url = fmt.Sprintf("http://127.0.0.1:%d/big", port)
	if r := cacheDo(t, http.MethodGet, url); r.cacheStatus() != "HIT" || r.body != "v2" {
		t.Fatalf("after a restart: %s %q", r.cacheStatus(), r.body)
	}
	if n := o.hits.Load(); n != 2 {
		t.Fatalf("origin saw %d requests, want 2", n)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitCeiling)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCacheReloadKeepsZones: a reload with the same zones keeps their
// stores (the memory store's entries too, as NGINX keeps its shared
// zones); a disk zone whose parameters changed is reopened on the same
// directory and finds its entries again.
func TestCacheReloadKeepsZones(t *testing.T) {
	o := newCacheOrigin(t, maxAge("max-age=60"))
	conf := func(gen, maxSize string) string {
		return `http {
    access_log off;
    proxy_cache_path memory keys_zone=mem:10m;
    proxy_cache_path {dir}/cache keys_zone=disk:10m max_size=` + maxSize + `;
    server {
        listen 127.0.0.1:{port};
        add_header X-Cache $upstream_cache_status always;
        location /m/ { proxy_pass http://{origin}; proxy_cache mem; }
        location /d/ { proxy_pass http://{origin}; proxy_cache disk; }
        location = /gen { return 200 "` + gen + `"; }
    }
}`
	}
	base, p, dir := startCacheSite(t, o, conf("1", "10m"))
	for _, path := range []string{"/m/a", "/d/a"} {
		cacheDo(t, http.MethodGet, base+path)
		if r := cacheDo(t, http.MethodGet, base+path); r.cacheStatus() != "HIT" {
			t.Fatalf("%s before reload: %s", path, r.cacheStatus())
		}
	}
	reload := func(c string) {
		t.Helper()
		port := strings.TrimPrefix(base, "http://127.0.0.1:")
		c = strings.NewReplacer("{origin}", o.addr(), "{dir}", dir, "{port}", port).Replace(c)
		writeFile(t, filepath.Join(dir, "mosaic.conf"), c)
		p.cmd.Process.Signal(syscall.SIGHUP)
	}
	reload(conf("2", "20m"))
	waitBody(t, base+"/gen", "2")
	for _, path := range []string{"/m/a", "/d/a"} {
		if r := cacheDo(t, http.MethodGet, base+path); r.cacheStatus() != "HIT" || r.body != vbody(map[string]int64{"/m/a": 1, "/d/a": 2}[path]) {
			t.Fatalf("%s after reload: %s %q", path, r.cacheStatus(), r.body)
		}
	}
	// New entries are stored and found by the reloaded configuration.
	cacheDo(t, http.MethodGet, base+"/d/b")
	if r := cacheDo(t, http.MethodGet, base+"/d/b"); r.cacheStatus() != "HIT" {
		t.Fatalf("/d/b after reload: %s", r.cacheStatus())
	}
	if n := o.hits.Load(); n != 3 {
		t.Fatalf("origin saw %d requests, want 3", n)
	}
}

// TestCacheZoneParameters checks proxy_cache_path's bounds on the memory
// store: inactive=, max_size=, and the keys_zone size when max_size is
// absent; each scenario fails if its parameter is ignored.
func TestCacheZoneParameters(t *testing.T) {
	t.Parallel()
	large := strings.Repeat("L", 200<<10)
	origin := func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		if strings.HasSuffix(r.URL.Path, "large") {
			fmt.Fprint(w, large)
			return
		}
		fmt.Fprint(w, vbody(n))
	}
	scs := []cscenario{
		{
			name:   "inactive",
			conf:   "proxy_cache short;",
			origin: origin,
			steps: []cstep{
				{cache: "MISS", origin: 1},
				{cache: "HIT", origin: 1},
				{sleep: 1600 * time.Millisecond, cache: "MISS", body: "v2", origin: 2},
			},
		},
		{
			name:   "max_size",
			conf:   "proxy_cache tiny;",
			origin: origin,
			steps: []cstep{
				{path: "/large", cache: "MISS", origin: 1},
				{sleep: 100 * time.Millisecond, path: "/large", cache: "MISS", origin: 2},
				{path: "/r", cache: "MISS", origin: 3},
				{path: "/r", cache: "HIT", origin: 3},
			},
		},
		{
			name:   "keys_zone size without max_size",
			conf:   "proxy_cache small;",
			origin: origin,
			steps: []cstep{
				{path: "/large", cache: "MISS", origin: 1},
				{sleep: 100 * time.Millisecond, path: "/large", cache: "MISS", origin: 2},
			},
		},
		{
			name:   "a large body within the bound is kept",
			conf:   "proxy_cache big;",
			origin: origin,
			steps: []cstep{
				{path: "/large", cache: "MISS", origin: 1},
				{path: "/large", cache: "HIT", body: large, origin: 1},
			},
		},
	}
	runScenarios(t, `proxy_cache_path memory keys_zone=short:1m inactive=1s;
    proxy_cache_path memory keys_zone=tiny:1m max_size=64k;
    proxy_cache_path keys_zone=small:100k;
    proxy_cache_path memory keys_zone=big:1m;`, scs)
}

// TestCachePurge purges through proxy_cache_purge locations: by key,
// prefix, tag, URL and everything, with the token and network checks.
func TestCachePurge(t *testing.T) {
	o := newCacheOrigin(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		// /a/1 carries the tags "a" and "one"; /b/1 "b" and "one".
		section, item, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		w.Header().Set("Surrogate-Key", section+" "+map[string]string{"1": "one", "2": "two"}[item])
		fmt.Fprint(w, vbody(n))
	})
	base, _, _ := startCacheSite(t, o, `http {
    access_log off;
    proxy_cache_path memory keys_zone=z:10m;
    server {
        listen 127.0.0.1:{port};
        add_header X-Cache $upstream_cache_status always;
        location / { proxy_pass http://{origin}; proxy_cache z; }
        location = /purge { proxy_cache_purge z token=s3cret allow=127.0.0.0/8; }
        location = /purge-elsewhere { proxy_cache_purge z allow=192.0.2.0/24; }
        location = /purge-realip {
            set_real_ip_from 127.0.0.1; real_ip_header X-Real-IP;
            proxy_cache_purge z allow=192.0.2.1;
        }
    }
}`)
	paths := []string{"/a/1", "/a/2", "/b/1", "/c/2"}
	fill := func() {
		t.Helper()
		for _, p := range paths {
			cacheDo(t, http.MethodGet, base+p)
			if r := cacheDo(t, http.MethodGet, base+p); r.cacheStatus() != "HIT" {
				t.Fatalf("%s: %s", p, r.cacheStatus())
			}
		}
	}
	// expect checks which paths are still cached.
	expect := func(what string, cached ...string) {
		t.Helper()
		for _, p := range paths {
			r := cacheDo(t, http.MethodGet, base+p)
			want := "MISS"
			if slices.Contains(cached, p) {
				want = "HIT"
			}
			if r.cacheStatus() != want {
				t.Errorf("after %s: %s is %s, want %s", what, p, r.cacheStatus(), want)
			}
		}
	}
	purge := func(query string, wantStatus int, wantBody string) {
		t.Helper()
		r := cacheDo(t, "PURGE", base+"/purge?"+query, "Authorization", "Bearer s3cret")
		if r.status != wantStatus || !strings.Contains(r.body, wantBody) {
			t.Fatalf("purge %s: %d %q", query, r.status, r.body)
		}
	}
	key := func(path string) string { return "http://" + o.addr() + path }

	fill()
	if r := cacheDo(t, "PURGE", base+"/purge?all=1"); r.status != 401 {
		t.Fatalf("purge without the token: %d", r.status)
	}
	if r := cacheDo(t, "PURGE", base+"/purge?all=1", "Authorization", "Bearer wrong"); r.status != 401 {
		t.Fatalf("purge with a wrong token: %d", r.status)
	}
	if r := cacheDo(t, "PURGE", base+"/purge-elsewhere?all=1"); r.status != 403 {
		t.Fatalf("purge from a network not allowed: %d", r.status)
	}
	if r := cacheDo(t, http.MethodGet, base+"/purge?all=1", "Authorization", "Bearer s3cret"); r.status != 405 {
		t.Fatalf("GET on the purge endpoint: %d", r.status)
	}
	expect("refused purges", paths...)

	purge("key="+neturl.QueryEscape(key("/a/1")), 200, `{"purged":1}`)
	expect("a key purge", "/a/2", "/b/1", "/c/2")

	fill()
	purge("prefix="+neturl.QueryEscape(key("/a/")), 200, `{"purged":2}`)
	expect("a prefix purge", "/b/1", "/c/2")

	fill()
	purge("tag=one", 200, `{"purged":2}`)
	expect("a tag purge", "/a/2", "/c/2")

	fill()
	purge("url="+neturl.QueryEscape("http://"+o.addr()+"/c/2"), 200, `{"purged":1}`)
	expect("a url purge", "/a/1", "/a/2", "/b/1")

	fill()
	purge("all=1", 200, `"generation":1`)
	expect("purging everything")
	if r := cacheDo(t, "POST", base+"/purge?nothing=1", "Authorization", "Bearer s3cret"); r.status != 400 {
		t.Fatalf("a purge naming nothing: %d", r.status)
	}

	// allow= reads the client's address as NGINX's allow does: the one
	// realip found when the location trusts the connection's peer for
	// it, never a field the configuration does not name.
	for _, c := range []struct {
		header []string
		want   int
	}{
		{[]string{"X-Real-IP", "192.0.2.1"}, 200},
		{nil, 403},
		{[]string{"X-Forwarded-For", "192.0.2.1"}, 403},
		{[]string{"X-Real-IP", "192.0.2.2"}, 403},
	} {
		if r := cacheDo(t, "PURGE", base+"/purge-realip?tag=none", c.header...); r.status != c.want {
			t.Errorf("purge with %q: %d, want %d", c.header, r.status, c.want)
		}
	}
}

// TestCacheStatusEndpoint reads the counters of proxy_cache_status as JSON
// and in the Prometheus text format.
func TestCacheStatusEndpoint(t *testing.T) {
	o := newCacheOrigin(t, maxAge("max-age=60"))
	base, _, _ := startCacheSite(t, o, `http {
    access_log off;
    proxy_cache_path memory keys_zone=pages:10m;
    proxy_cache_path {dir}/frags keys_zone=frags:10m;
    server {
        listen 127.0.0.1:{port};
        add_header X-Cache $upstream_cache_status always;
        location / { proxy_pass http://{origin}; proxy_cache pages; proxy_cache_bypass $arg_fresh; }
        location /f/ { proxy_pass http://{origin}; proxy_cache frags; }
        location = /cache-status { proxy_cache_status; }
        location = /pages-status { proxy_cache_status pages allow=127.0.0.1; }
        location = /hidden-status { proxy_cache_status allow=192.0.2.0/24; }
    }
}`)
	for _, p := range []string{"/a", "/a", "/a", "/a?fresh=1", "/f/x"} {
		cacheDo(t, http.MethodGet, base+p)
	}
	r := cacheDo(t, http.MethodGet, base+"/cache-status")
	var got struct {
		Zones map[string]map[string]any `json:"zones"`
	}
	if err := json.Unmarshal([]byte(r.body), &got); err != nil || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %q (%s): %v", r.body, r.header.Get("Content-Type"), err)
	}
	want := map[string]map[string]any{
		"pages": {"store": "memory", "hit": 2.0, "miss": 1.0, "bypass": 1.0, "stored": 2.0, "expired": 0.0},
		"frags": {"store": "disk", "hit": 0.0, "miss": 1.0, "stored": 1.0},
	}
	for zone, fields := range want {
		for k, v := range fields {
			if got.Zones[zone][k] != v {
				t.Errorf("zone %s: %s = %v, want %v (%s)", zone, k, got.Zones[zone][k], v, r.body)
			}
		}
	}
	r = cacheDo(t, http.MethodGet, base+"/pages-status?format=prometheus")
	for _, line := range []string{
		"# TYPE mosaic_cache_responses_total counter",
		`mosaic_cache_responses_total{zone="pages",status="hit"} 2`,
		`mosaic_cache_responses_total{zone="pages",status="bypass"} 1`,
		`mosaic_cache_stored_total{zone="pages"} 2`,
	} {
		if !strings.Contains(r.body, line+"\n") {
			t.Errorf("Prometheus text lacks %q:\n%s", line, r.body)
		}
	}
	if strings.Contains(r.body, "frags") {
		t.Errorf("the pages endpoint shows other zones:\n%s", r.body)
	}
	if r := cacheDo(t, http.MethodGet, base+"/pages-status", "Accept", "text/plain"); !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
		t.Errorf("Accept: text/plain got %s", r.header.Get("Content-Type"))
	}
	if r := cacheDo(t, http.MethodGet, base+"/hidden-status"); r.status != 403 {
		t.Errorf("status from a network not allowed: %d", r.status)
	}
}

// TestCacheConfigErrors checks that mistakes in the cache directives are
// refused by "mosaic -t" with NGINX-style messages naming the place.
func TestCacheConfigErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct{ conf, want string }{
		{"proxy_cache nowhere;", `"proxy_cache" zone "nowhere" is unknown in`},
		{"location /p { proxy_cache_purge nowhere token=x; }", `"proxy_cache_purge" zone "nowhere" is unknown in`},
		{"location /p { proxy_cache_purge z; }", `needs allow= networks or a token=`},
		{"location /p { proxy_cache_purge z allow=example; }", `invalid value "allow=example"`},
		{"location /s { proxy_cache_status nowhere; }", `"proxy_cache_status" zone "nowhere" is unknown in`},
		{"proxy_cache_valid 999 1m;", `invalid value "999" in "proxy_cache_valid" directive`},
		{"proxy_cache_valid 200 soon;", `invalid value "soon" in "proxy_cache_valid" directive`},
		{"proxy_cache_use_stale error sometimes;", `invalid value "sometimes" in proxy_cache_use_stale`},
		{"proxy_cache_methods GET PUT;", `invalid value "PUT" in "proxy_cache_methods" directive`},
		{"proxy_cache_min_uses -1;", `invalid value "-1" in "proxy_cache_min_uses" directive`},
		{"proxy_cache_lock maybe;", `it must be "on" or "off"`},
		{"proxy_cache_lock_timeout 5x;", `invalid value "5x" in "proxy_cache_lock_timeout" directive`},
		{"proxy_ignore_headers X-Other;", `invalid value "X-Other" in proxy_ignore_headers`},
		{"proxy_cache_convert_head off;", `"proxy_cache_convert_head off" is not supported`},
		{"proxy_cache_key $nonesuch;", `unknown "nonesuch" variable`},
		{"proxy_cache z; proxy_cache z;", `"proxy_cache" directive is duplicate`},
	}
	for i, c := range cases {
		path := filepath.Join(dir, fmt.Sprintf("bad%d.conf", i))
		writeFile(t, path, "http {\n    proxy_cache_path memory keys_zone=z:1m;\n    server {\n        listen 127.0.0.1:1;\n        "+c.conf+"\n        location / { proxy_pass http://127.0.0.1:2; }\n    }\n}\n")
		out, err := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) || !strings.Contains(string(out), path+":") {
			t.Errorf("%s: %v\n%s\nwant %q", c.conf, err, out, c.want)
		}
	}
	paths := []struct{ line, want string }{
		{"proxy_cache_path memory;", `"keys_zone" must be specified`},
		{"proxy_cache_path memory keys_zone=z;", `invalid keys zone size "keys_zone=z"`},
		{"proxy_cache_path memory keys_zone=z:1m levels=1:2;", `"levels" applies to a directory`},
		{"proxy_cache_path " + dir + "/c keys_zone=z:1m levels=3;", `invalid "levels"`},
		{"proxy_cache_path memory keys_zone=z:1m inactive=never;", `invalid inactive value`},
		{"proxy_cache_path memory keys_zone=z:1m colour=blue;", `invalid parameter "colour=blue"`},
		{"proxy_cache_path memory keys_zone=z:1m; proxy_cache_path memory keys_zone=z:2m;", `duplicate zone "z"`},
		{"proxy_cache_path " + dir + "/c keys_zone=a:1m; proxy_cache_path " + dir + "/c keys_zone=b:1m;", `duplicate "` + dir + `/c" path`},
	}
	for i, c := range paths {
		path := filepath.Join(dir, fmt.Sprintf("badpath%d.conf", i))
		writeFile(t, path, "http {\n    "+c.line+"\n}\n")
		out, err := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) || !strings.Contains(string(out), path+":2") {
			t.Errorf("%s: %v\n%s\nwant %q", c.line, err, out, c.want)
		}
	}
	// NGINX's loader and manager parameters are accepted.
	good := filepath.Join(dir, "good.conf")
	writeFile(t, good, "http {\n    proxy_cache_path "+dir+"/ok levels=1:2 keys_zone=ok:1m max_size=1g inactive=1h use_temp_path=off loader_files=100 manager_sleep=50ms;\n    proxy_cache_path redis://127.0.0.1:1/0 keys_zone=r:1m;\n    server { listen 127.0.0.1:1; location / { proxy_pass http://127.0.0.1:2; proxy_cache ok; proxy_cache_convert_head on; } }\n}\n")
	configTest(t, good)
}
