package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The cache's concurrency against NGINX: both servers proxy to one origin
// that counts the requests of each (X-Who) per path, and the same
// concurrent clients must cause the same origin requests and get the same
// statuses, bodies and $upstream_cache_status.

// whoOrigin counts requests per server and path; h gets the request's
// number for that pair (1 for the first).
type whoOrigin struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newWhoOrigin(t *testing.T, h func(n int, w http.ResponseWriter, r *http.Request)) *whoOrigin {
	t.Helper()
	o := &whoOrigin{hits: map[string]int{}}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.hits[r.Header.Get("X-Who")+" "+r.URL.Path]++
		n := o.hits[r.Header.Get("X-Who")+" "+r.URL.Path]
		o.mu.Unlock()
		withoutDate(w)
		h(n, w, r)
	}))
	t.Cleanup(o.Close)
	return o
}

// awaitHits holds an origin's answer until the origin has had n requests
// from who for path, or 10 s have passed: the barrier of a test whose
// concurrent clients all go upstream, so that none is answered before
// every client is past its cache lookup. Waiting for a sleep instead
// assumed the clients all arrive within it, which a loaded machine need
// not do. A server that sends fewer than n is let through at the
// deadline, for the comparison to show it.
func (o *whoOrigin) awaitHits(who, path string, n int) {
	for deadline := time.Now().Add(10 * time.Second); o.count(who, path) < n && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
}

func (o *whoOrigin) count(who, path string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.hits[who+" "+path]
}

// startCacheBoth runs NGINX and mosaic with a disk cache zone "z" on
// loopback and the server directives given (in which {origin} is the
// origin's address); every response carries $upstream_cache_status as
// X-Cache and every origin request says which server sent it.
func startCacheBoth(t *testing.T, o *whoOrigin, server string) (mport, nport int) {
	t.Helper()
	return startCacheBothIn(t, t.TempDir(), o, server)
}

// startCacheBothIn is startCacheBoth with the zones' files under
// dir/mosaic/cache and dir/nginx/cache.
func startCacheBothIn(t *testing.T, dir string, o *whoOrigin, server string) (mport, nport int) {
	t.Helper()
	names := map[string]string{"m": "mosaic", "n": "nginx"}
	return startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`proxy_cache_path %s/%s/cache keys_zone=z:10m;
		access_log off;
		server {
			listen 127.0.0.1:%d;
			add_header X-Cache $upstream_cache_status always;
			proxy_cache z;
			proxy_set_header X-Who %s;
			%s
		}`, dir, names[who], port, who, strings.ReplaceAll(server, "{origin}", o.Listener.Addr().String()))
	})
}

// sameConcurrent sends n concurrent GETs for path to each server (both at
// once) and compares what the clients got, "status/X-Cache/body" counted,
// and how many requests the origin saw from each.
func sameConcurrent(t *testing.T, o *whoOrigin, mport, nport, n int, path string) {
	t.Helper()
	got := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for who, port := range map[string]int{"m": mport, "n": nport} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var answers []string
			for _, r := range concurrent(t, n, fmt.Sprintf("http://127.0.0.1:%d%s", port, path)) {
				answers = append(answers, fmt.Sprintf("%d/%s/%s", r.status, r.cacheStatus(), r.body))
			}
			slices.Sort(answers)
			mu.Lock()
			got[who] = fmt.Sprintf("%s; origin requests %d", strings.Join(answers, " "), o.count(who, path))
			mu.Unlock()
		}()
	}
	wg.Wait()
	if got["m"] != got["n"] {
		t.Errorf("%d concurrent GET %s:\nmosaic %s\nnginx  %s", n, path, got["m"], got["n"])
	}
}

// TestCacheLockAfterFailedFillAsNGINX: when the lock holder's response is
// not stored (an origin error), one waiter takes the lock and fills, and
// the others keep waiting for it, within one proxy_cache_lock_timeout in
// all; they do not all go upstream at once.
//
// The waiters never reach the origin, so the origin cannot count them:
// the failing answer is held until the server's stub_status counts every
// client as being served (they are past their cache lookup, waiting on
// the lock), which NGINX's and mosaic's pages both do. A client that came
// after the 503 would get the same answer as a waiter, so without that
// barrier a loaded machine left the test passing without any waiter.
func TestCacheLockAfterFailedFillAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	const clients = 20
	var ports sync.Map // "m" or "n" -> its port
	unseen := sync.Map{}
	o := newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			who := r.Header.Get("X-Who")
			port, _ := ports.Load(who)
			if page, ok := awaitWriting(port.(int), clients+1); !ok {
				unseen.Store(who, page)
			}
			w.WriteHeader(http.StatusServiceUnavailable)
		} else {
			w.Header().Set("Cache-Control", "max-age=60")
		}
		fmt.Fprintf(w, "v%d", n)
	})
	mport, nport := startCacheBoth(t, o, `
		location = /status { stub_status; }
		location / { proxy_pass http://{origin}; proxy_cache_lock on; }`)
	ports.Store("m", mport)
	ports.Store("n", nport)
	sameConcurrent(t, o, mport, nport, clients, "/failed")
	unseen.Range(func(who, page any) bool {
		t.Errorf("%s's stub_status never counted the %d clients and itself as writing: %q", who, clients, page)
		return true
	})
}

// awaitWriting polls the stub_status page at /status on port until it
// counts n requests as writing (itself included), for 10 s at most; it
// returns the last page read and whether it got there.
func awaitWriting(port, n int) (string, bool) {
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	want := fmt.Sprintf("Writing: %d ", n)
	var page string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d/status", port))
		if err != nil {
			page = err.Error()
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if page = string(b); strings.Contains(page, want) {
			return page, true
		}
	}
	return page, false
}

// sameSequence sends each GET (a path and header name/value pairs) to
// both servers in turn and compares "status/X-Cache/body".
func sameSequence(t *testing.T, mport, nport int, reqs [][]string) {
	t.Helper()
	for _, req := range reqs {
		var got [2]string
		for i, port := range []int{mport, nport} {
			r := cacheDo(t, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d%s", port, req[0]), req[1:]...)
			got[i] = fmt.Sprintf("%d/%s/%s", r.status, r.cacheStatus(), r.body)
		}
		if got[0] != got[1] {
			t.Errorf("GET %v: mosaic %s, nginx %s", req, got[0], got[1])
		}
	}
}

// TestCacheDefaultKeyAsNGINX: without proxy_cache_key, NGINX keys an entry
// by the URI its proxy sends, not by $request_uri: a rewrite that puts a
// request header in the URI keeps the answers for each value apart (one
// client must not get the page made for another), and locations that send
// the same URI to the same origin share the entry.
func TestCacheDefaultKeyAsNGINX(t *testing.T) {
	nginxPath(t)
	o := newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprintf(w, "%s#%d", r.URL.RequestURI(), n)
	})
	mport, nport := startCacheBoth(t, o, `
		location /lang/ { rewrite ^/lang/(.*)$ /$http_x_lang/$1 break; proxy_pass http://{origin}; }
		location /one/ { proxy_pass http://{origin}/same/; }
		location /two/ { proxy_pass http://{origin}/same/; }
		location /e/ { error_page 404 = /fallback; return 404; }
		location = /fallback { proxy_pass http://{origin}; }`)
	sameSequence(t, mport, nport, [][]string{
		{"/lang/p", "X-Lang", "en"}, {"/lang/p", "X-Lang", "fr"}, {"/lang/p", "X-Lang", "en"},
		{"/one/p?a=1"}, {"/two/p?a=1"},
		{"/e/1"}, {"/e/2"},
	})
}

// TestCacheLockExpiredAsNGINX: proxy_cache_lock holds back the requests
// for a new entry only. Without "proxy_cache_use_stale updating", the
// requests for an expired entry that another request is refreshing go
// upstream at once, EXPIRED, as in NGINX; they do not wait for the
// refresh and report a HIT.
func TestCacheLockExpiredAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	const clients = 10
	var o *whoOrigin
	o = newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n > 1 { // every request finds the refresh under way
			o.awaitHits(r.Header.Get("X-Who"), r.URL.Path, 1+clients)
		}
		w.Header().Set("Cache-Control", "max-age=1")
		fmt.Fprintf(w, "v%d", n)
	})
	mport, nport := startCacheBoth(t, o, `location / { proxy_pass http://{origin}; proxy_cache_lock on; }`)
	sameSequence(t, mport, nport, [][]string{{"/expired"}})
	time.Sleep(2500 * time.Millisecond) // NGINX counts whole seconds
	sameConcurrent(t, o, mport, nport, clients, "/expired")
}

// TestCacheValidAnyFirstAsNGINX: NGINX takes the first proxy_cache_valid
// that matches a status, and "any" matches every status, so codes named
// after it are never reached.
func TestCacheValidAnyFirstAsNGINX(t *testing.T) {
	nginxPath(t)
	o := newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "v%d", n)
	})
	mport, nport := startCacheBoth(t, o, `
		location /first/ { proxy_pass http://{origin}; proxy_cache_valid any 0; proxy_cache_valid 200 1m; }
		location /last/ { proxy_pass http://{origin}; proxy_cache_valid 200 1m; proxy_cache_valid any 0; }`)
	sameSequence(t, mport, nport, [][]string{{"/first/a"}, {"/first/a"}, {"/last/a"}, {"/last/a"}})
}

// TestCacheLockZeroTimesAsNGINX: "proxy_cache_lock_timeout 0" sends the
// requests that find the lock held upstream at once, their responses not
// stored; "proxy_cache_lock_age 0" lets every request take the lock over.
// Neither is the 5s default.
func TestCacheLockZeroTimesAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	const clients = 5
	var o *whoOrigin
	o = newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		o.awaitHits(r.Header.Get("X-Who"), r.URL.Path, clients) // each goes upstream
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprintf(w, "v%d", n)
	})
	mport, nport := startCacheBoth(t, o, `
		proxy_cache_lock on;
		location /timeout/ { proxy_pass http://{origin}; proxy_cache_lock_timeout 0; }
		location /age/ { proxy_pass http://{origin}; proxy_cache_lock_age 0; }`)
	sameConcurrent(t, o, mport, nport, clients, "/timeout/a")
	sameConcurrent(t, o, mport, nport, clients, "/age/a")
}

// TestCacheLockPerVariantAsNGINX: once a resource is known to vary, the
// lock is the variant's, as NGINX's is (it reopens the entry under the
// variant's key): concurrent misses for different variants are filled at
// once and all stored, where one lock for the resource would queue them
// behind each other until proxy_cache_lock_timeout sent the rest upstream
// unstored.
func TestCacheLockPerVariantAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	langs := []string{"aa", "bb", "cc", "dd", "ee", "ff", "gg", "hh"}
	var o *whoOrigin
	o = newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n > 1 { // the variants' fills wait for each other: all at once
			o.awaitHits(r.Header.Get("X-Who"), r.URL.Path, 1+len(langs))
		}
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("Vary", "Accept-Language")
		fmt.Fprint(w, r.Header.Get("Accept-Language"))
	})
	mport, nport := startCacheBoth(t, o, `location / { proxy_pass http://{origin}; proxy_cache_lock on; proxy_cache_lock_timeout 1s; }`)
	reqs := [][]string{{"/v", "Accept-Language", "en"}}
	for _, l := range langs {
		reqs = append(reqs, []string{"/v", "Accept-Language", l})
	}
	sameSequence(t, mport, nport, reqs[:1]) // the resource is known to vary
	var wg sync.WaitGroup
	for _, port := range []int{mport, nport} {
		for _, l := range langs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := cacheTry(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/v", port), "Accept-Language", l); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	wg.Wait()
	sameSequence(t, mport, nport, reqs) // every variant was stored
}

// TestCacheMinUsesZeroAsNGINX: NGINX accepts "proxy_cache_min_uses 0" and
// stores from the first request, as with 1.
func TestCacheMinUsesZeroAsNGINX(t *testing.T) {
	nginxPath(t)
	o := newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprintf(w, "v%d", n)
	})
	mport, nport := startCacheBoth(t, o, `location / { proxy_pass http://{origin}; proxy_cache_min_uses 0; }`)
	sameSequence(t, mport, nport, [][]string{{"/a"}, {"/a"}})
}

// TestCacheRangesAsNGINX: NGINX's range filter cuts a range out of a
// proxied response only when the upstream's header had Accept-Ranges
// (ngx_http_upstream_copy_allow_ranges), served from the cache or filling
// it, and a fill answers one range at most (single_range): several get
// the whole 200. A range request that may not be stored (past
// proxy_cache_max_range_offset, proxy_cache_min_uses not reached) goes
// upstream with its Range, and the answer, a 206 or a 200, is relayed.
func TestCacheRangesAsNGINX(t *testing.T) {
	nginxPath(t)
	o := newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		body := fmt.Sprintf("0123456789abcdef#%d", n)
		switch {
		case strings.HasPrefix(r.URL.Path, "/uses/"):
			http.ServeContent(w, r, "", time.Time{}, strings.NewReader(body)) // answers ranges
			return
		case !strings.HasPrefix(r.URL.Path, "/plain/"):
			w.Header().Set("Accept-Ranges", "bytes")
		}
		fmt.Fprint(w, body)
	})
	mport, nport := startCacheBoth(t, o, `
		location / { proxy_pass http://{origin}; }
		location /offset/ { proxy_pass http://{origin}; proxy_cache_max_range_offset 4; }
		location /uses/ { proxy_pass http://{origin}; proxy_cache_min_uses 2; }`)
	sameSequence(t, mport, nport, [][]string{
		{"/plain/a", "Range", "bytes=2-5"}, {"/plain/a", "Range", "bytes=2-5"},
		{"/ranged/b", "Range", "bytes=2-5"}, {"/ranged/b", "Range", "bytes=6-9"},
		{"/ranged/c", "Range", "bytes=0-1,4-5"}, {"/ranged/c", "Range", "bytes=2-5"},
		{"/offset/d", "Range", "bytes=8-9"}, {"/offset/d", "Range", "bytes=1-2"},
		{"/uses/e", "Range", "bytes=1-2"}, {"/uses/e", "Range", "bytes=3-4"}, {"/uses/e", "Range", "bytes=3-4"},
	})
	// NGINX's range filter does not look at the method: a HEAD gets the
	// 206, filling the entry and from it.
	for range 2 {
		sameAnswer(t, mport, nport, "HEAD /ranged/head HTTP/1.1\r\nHost: a.test\r\nRange: bytes=1-2", "")
	}
}

// TestCacheAccelExpiresTimeAsNGINX: "X-Accel-Expires: @T" with T already
// past stores the response expired in NGINX, so the next request finds
// it EXPIRED rather than missing. "@0" sets no time (NGINX's valid_sec
// 0: not stored without another lifetime) and a negative T is not a
// number to it (Cache-Control decides).
func TestCacheAccelExpiresTimeAsNGINX(t *testing.T) {
	nginxPath(t)
	o := newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/zero":
			w.Header().Set("X-Accel-Expires", "@0")
		case "/negative":
			w.Header().Set("X-Accel-Expires", "@-5")
			w.Header().Set("Cache-Control", "max-age=60")
		default:
			w.Header().Set("X-Accel-Expires", fmt.Sprintf("@%d", time.Now().Unix()-100))
		}
		fmt.Fprintf(w, "v%d", n)
	})
	mport, nport := startCacheBoth(t, o, `location / { proxy_pass http://{origin}; }`)
	sameSequence(t, mport, nport, [][]string{{"/past"}, {"/past"}, {"/zero"}, {"/zero"}, {"/negative"}, {"/negative"}})
}

// TestCacheAccelExpiresSignAsNGINX: NGINX reads "X-Accel-Expires: N"
// with ngx_atoi too, to which "+60" is no number: the field is ignored,
// as "@+T" is, and without another lifetime nothing is stored.
func TestCacheAccelExpiresSignAsNGINX(t *testing.T) {
	nginxPath(t)
	o := newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Accel-Expires", strings.TrimPrefix(r.URL.Path, "/"))
		fmt.Fprintf(w, "v%d", n)
	})
	mport, nport := startCacheBoth(t, o, `location / { proxy_pass http://{origin}; }`)
	sameSequence(t, mport, nport, [][]string{{"/+60"}, {"/+60"}, {"/60"}, {"/60"}})
}

// TestCacheDefaultKeyTextAsNGINX: NGINX's default key starts with the
// proxy_pass URL's scheme, "://" and host (ngx_http_proxy_create_key's
// key_start), and a disk zone names each file by the MD5 of the key, so
// both servers must name the entry for the same request alike.
func TestCacheDefaultKeyTextAsNGINX(t *testing.T) {
	nginxPath(t)
	o := newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprintf(w, "v%d", n)
	})
	dir := t.TempDir()
	mport, nport := startCacheBothIn(t, dir, o, `location / { proxy_pass http://{origin}; }`)
	sameSequence(t, mport, nport, [][]string{{"/k?a=1"}, {"/k?a=1"}})
	var names [2][]string
	for i, who := range []string{"mosaic", "nginx"} {
		ents, err := os.ReadDir(filepath.Join(dir, who, "cache"))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if !e.IsDir() && len(e.Name()) == 32 { // an MD5 in hex, not mosaic's own files
				names[i] = append(names[i], e.Name())
			}
		}
	}
	if !slices.Equal(names[0], names[1]) {
		t.Errorf("entry files: mosaic %v, nginx %v", names[0], names[1])
	}
}

// TestCacheAcceptRangesAsNGINX: NGINX keeps the upstream's Accept-Ranges
// off a response it caches or serves from the cache, and its range filter
// says "bytes" on a 200 sent whole when the upstream offered ranges,
// whatever value it offered them with; a 206, a 304 or another status
// has none.
func TestCacheAcceptRangesAsNGINX(t *testing.T) {
	nginxPath(t)
	o := newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("ETag", `"v1"`)
		switch {
		case strings.HasPrefix(r.URL.Path, "/none/"):
			w.Header().Set("Accept-Ranges", "none")
		case strings.HasPrefix(r.URL.Path, "/gone/"):
			w.Header().Set("Accept-Ranges", "bytes")
			w.WriteHeader(http.StatusNotFound)
		case !strings.HasPrefix(r.URL.Path, "/plain/"):
			w.Header().Set("Accept-Ranges", "bytes")
		}
		fmt.Fprint(w, "0123456789")
	})
	mport, nport := startCacheBoth(t, o, `location / { proxy_pass http://{origin}; proxy_cache_valid 404 1m; }`)
	for _, req := range [][]string{
		{"/ranged/a"}, {"/ranged/a"}, {"/ranged/a", "Range", "bytes=2-5"}, {"/ranged/a", "If-None-Match", `"v1"`},
		{"/ranged/b", "Range", "bytes=2-5"}, {"/ranged/c", "Range", "bytes=0-1,4-5"}, {"/ranged/c", "Range", "bytes=0-1,4-5"},
		{"/none/d"}, {"/none/d"}, {"/gone/e"}, {"/gone/e"}, {"/plain/f"}, {"/plain/f"},
	} {
		var got [2]string
		for i, port := range []int{mport, nport} {
			r := cacheDo(t, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d%s", port, req[0]), req[1:]...)
			got[i] = fmt.Sprintf("%d/%s Accept-Ranges %q", r.status, r.cacheStatus(), r.header.Values("Accept-Ranges"))
		}
		if got[0] != got[1] {
			t.Errorf("GET %v: mosaic %s, nginx %s", req, got[0], got[1])
		}
	}
}

// TestCachePartialStoredAsNGINX: NGINX stores an origin's 206 as any
// other status, by proxy_cache_valid or by its Cache-Control; one comes
// back only to a Range the configuration sends (proxy_set_header Range,
// the slice module's recipe), and the stored 206 is served as it is.
func TestCachePartialStoredAsNGINX(t *testing.T) {
	nginxPath(t)
	o := newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/cc/") {
			w.Header().Set("Cache-Control", "max-age=60")
		}
		http.ServeContent(w, r, "", time.Time{}, strings.NewReader(fmt.Sprintf("0123456789#%d", n)))
	})
	mport, nport := startCacheBoth(t, o, `
		location /valid/ { proxy_pass http://{origin}; proxy_set_header Range bytes=2-5; proxy_cache_valid 200 206 1m; }
		location /cc/ { proxy_pass http://{origin}; proxy_set_header Range bytes=2-5; }
		location /default/ { proxy_pass http://{origin}; proxy_set_header Range bytes=2-5; proxy_cache_valid 1m; }`)
	sameSequence(t, mport, nport, [][]string{
		{"/valid/a"}, {"/valid/a"}, {"/valid/a", "Range", "bytes=0-1"},
		{"/cc/b"}, {"/cc/b"},
		{"/default/c"}, {"/default/c"},
	})
}
