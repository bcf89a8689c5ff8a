package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// Conditional requests against Debian's NGINX on the same configuration.
// NGINX's not-modified filter does not follow RFC 9110's order: it tests
// If-Unmodified-Since and If-Match both, and answers 304 only when every
// one of If-Modified-Since and If-None-Match present says "not
// modified". Each case compares the status and the validator and length
// headers.

const condMtime = "Sun, 13 Sep 2020 12:26:40 GMT"

// condCases are the conditional fields the matrix sends; etag is the
// file's entity tag, lm its Last-Modified.
func condCases(etag string) [][]string {
	const before = "Sun, 13 Sep 2020 12:26:39 GMT"
	const after = "Sun, 13 Sep 2020 12:26:41 GMT"
	return [][]string{
		{"If-None-Match", etag},
		{"If-None-Match", "W/" + etag},
		{"If-None-Match", `"x", ` + etag},
		{"If-None-Match", "*"},
		{"If-None-Match", `*, "x"`},
		{"If-None-Match", `"x"`},
		{"If-None-Match", ""},
		{"If-None-Match", "", "If-Modified-Since", condMtime},
		{"If-Modified-Since", condMtime},
		{"If-Modified-Since", after},
		{"If-Modified-Since", before},
		{"If-Modified-Since", "yesterday"},
		{"If-None-Match", `"x"`, "If-Modified-Since", condMtime},
		{"If-None-Match", etag, "If-Modified-Since", before},
		{"If-None-Match", etag, "If-Modified-Since", after},
		{"If-None-Match", etag, "If-Modified-Since", condMtime},
		{"If-Match", etag},
		{"If-Match", `"x", ` + etag},
		{"If-Match", "*"},
		{"If-Match", `*, "x"`},
		{"If-Match", `"x"`},
		{"If-Match", "W/" + etag},
		{"If-Match", "nonsense"},
		{"If-Match", ""},
		{"If-Unmodified-Since", after},
		{"If-Unmodified-Since", condMtime},
		{"If-Unmodified-Since", before},
		{"If-Unmodified-Since", "yesterday"},
		{"If-Unmodified-Since", "Sun, 13  Sep  2020 12:26:39 GMT"},
		{"If-Modified-Since", "Sun, 13  Sep  2020 12:26:40 GMT"},
		{"If-Match", etag, "If-Unmodified-Since", before},
		{"If-Match", `"x"`, "If-None-Match", etag},
		{"If-Match", etag, "If-None-Match", etag},
		{"If-Unmodified-Since", before, "If-Modified-Since", after},
		{"If-None-Match", etag, "Range", "bytes=0-3"},
		{"If-Modified-Since", before, "Range", "bytes=0-3"},
		{"If-Match", etag, "Range", "bytes=0-3"},
		{"If-Match", `"x"`, "Range", "bytes=0-3"},
	}
}

// sameConditional sends GET and HEAD for path with each case's fields and
// compares the status and the validator and length headers.
func sameConditional(t *testing.T, mport, nport int, path, etag string) {
	t.Helper()
	sameConditionalAt(t, mport, nport, func() string { return path }, etag)
}

// sameConditionalAt is sameConditional with the path of each request
// drawn from path: a new one each time sends each to a cache as a miss.
func sameConditionalAt(t *testing.T, mport, nport int, path func() string, etag string) {
	t.Helper()
	for _, c := range condCases(etag) {
		for _, method := range []string{"GET", "HEAD"} {
			var b strings.Builder
			fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: a.test\r\nConnection: close", method, path())
			for i := 0; i < len(c); i += 2 {
				fmt.Fprintf(&b, "\r\n%s: %s", c[i], c[i+1])
			}
			req := b.String() + "\r\n\r\n"
			m, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
			n, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
			if got, want := condSummary(m), condSummary(n); got != want {
				t.Errorf("%s %q:\nmosaic %s\nnginx  %s", strings.SplitN(req, "\r", 2)[0], c, got, want)
			}
		}
	}
}

func condSummary(r *http.Response) string {
	s := fmt.Sprint(r.StatusCode)
	names := []string{"ETag", "Last-Modified", "Cache-Control", "X-Added", "X-Cache", "Content-Length", "Content-Range", "Accept-Ranges", "Content-Type", "Content-Encoding"}
	if r.StatusCode >= 400 {
		// An error page's length depends on the server's name.
		names = names[:5]
	}
	for _, h := range names {
		s += fmt.Sprintf(" %s=%q", h, r.Header.Get(h))
	}
	return s
}

// TestConditionalStaticAsNGINX: a file with ETags on and off and each
// if_modified_since value, with expires and add_header (which a 304
// carries too), and served by error_page for a 404 (no conditions: the
// status is not a 200) and with "=200" (conditions as for a 200), and
// rebuilt by SSI or sub_filter (the file's validators still answer: the
// not-modified filter runs before those filters).
func TestConditionalStaticAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "www", "a.txt")
	writeFile(t, p, "abcdefghijklmnopqrstuvwxyz")
	when, _ := time.Parse(http.TimeFormat, condMtime)
	if err := os.Chtimes(p, when, when); err != nil {
		t.Fatal(err)
	}
	www := filepath.Join(dir, "www")
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			location /exact/ { alias %[2]s/; }
			location /before/ { alias %[2]s/; if_modified_since before; }
			location /off/ { alias %[2]s/; if_modified_since off; }
			location /noetag/ { alias %[2]s/; etag off; }
			location /expires/ { alias %[2]s/; expires 1h; add_header X-Added yes; }
			location /ssi/ { alias %[2]s/; ssi on; ssi_types text/plain; }
			location /sub/ { alias %[2]s/; sub_filter abc ABC; sub_filter_types text/plain; }
			location /page/ { root %[2]s; error_page 404 /exact/a.txt; }
			location /page200/ { root %[2]s; error_page 404 =200 /exact/a.txt; }
		}`, port, www)
	})
	etag := `"5f5e1000-1a"`
	for _, loc := range []string{"/exact/", "/before/", "/off/", "/noetag/", "/expires/", "/page/", "/page200/", "/ssi/", "/sub/"} {
		sameConditional(t, mport, nport, loc+"a.txt", etag)
	}
	// The error pages are what they are meant to be: a 404 and a 200.
	for path, want := range map[string]int{"/page/a.txt": 404, "/page200/a.txt": 200} {
		req := "GET " + path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		if n, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req); n.StatusCode != want {
			t.Errorf("nginx %s: %d, want %d", path, n.StatusCode, want)
		}
	}
}

// TestConditionalProxiedAsNGINX: a proxied 200 that carries an ETag and a
// Last-Modified from an origin that ignores the conditions. Not cached,
// NGINX leaves the conditions to the origin (the upstream module sets
// disable_not_modified for a response it will not cache), and so does
// mosaic: both pass the 200 through.
func TestConditionalProxiedAsNGINX(t *testing.T) {
	nginxPath(t)
	etag := `"v1"`
	origin := condOrigin(t, etag)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; location /p/ { proxy_pass %s; } }`, port, origin)
	})
	sameConditional(t, mport, nport, "/p/x", etag)
}

// condOrigin serves a 200 with validators whatever the request's
// conditions, so that every 304 or 412 is the edge's own.
func condOrigin(t *testing.T, etag string) string {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", condMtime)
		w.Header().Set("Cache-Control", "max-age=600")
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "abcdefghijklmnopqrstuvwxyz")
	}))
	t.Cleanup(origin.Close)
	return origin.URL
}

// TestConditionalCachedAsNGINX: what NGINX's cache serves (the answer
// that fills it, a miss, and a hit) is a response its not-modified filter
// answers, as the static module's files are: mosaic's cache answers as it
// does, for origins with and without each validator, a weak ETag, a coded
// body, each if_modified_since, and "etag off" (which concerns files
// only). The origin ignores conditions, as the cache sends it none.
func TestConditionalCachedAsNGINX(t *testing.T) {
	// Some 10,000 requests to servers, an origin and caches of its own,
	// on ports of its own: nothing another test touches.
	t.Parallel()
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		name := r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
		if strings.Contains(name, "etag") {
			h.Set("ETag", `"v1"`)
		}
		if strings.Contains(name, "weak") {
			h.Set("ETag", `W/"v1"`)
		}
		if strings.Contains(name, "lm") {
			h.Set("Last-Modified", condMtime)
		}
		if strings.Contains(name, "gz") {
			h.Set("Content-Encoding", "gzip")
		}
		if strings.Contains(name, "cookie") {
			h.Set("Set-Cookie", "a=b")
		}
		switch {
		case strings.Contains(name, "nostore"):
			h.Set("Cache-Control", "no-store")
		case !strings.Contains(name, "nolife"):
			h.Set("Cache-Control", "max-age=600")
		}
		h.Set("Content-Type", "text/plain")
		fmt.Fprint(w, "abcdefghijklmnopqrstuvwxyz")
	}))
	t.Cleanup(origin.Close)
	mport, nport := startCachedBoth(t, origin.URL, `
			location /exact/ { proxy_pass {origin}; }
			location /before/ { proxy_pass {origin}; if_modified_since before; }
			location /off/ { proxy_pass {origin}; if_modified_since off; }
			location /noetag/ { proxy_pass {origin}; etag off; }
			location /expires/ { proxy_pass {origin}; expires 1h; add_header X-Added yes; }
			location /bypass/ { proxy_pass {origin}; proxy_cache_bypass 1; }
			location /nocache/ { proxy_pass {origin}; proxy_no_cache 1; }
			location /minuses/ { proxy_pass {origin}; proxy_cache_min_uses 1000; }`)
	// Bypassed, or refused by proxy_no_cache (which NGINX tests after its
	// filter answered), the response may still be stored as far as the
	// filter knows; one whose key is not yet used enough
	// (proxy_cache_min_uses) may not, and passes through.
	for _, loc := range []string{"/bypass/", "/nocache/", "/minuses/"} {
		sameConditional(t, mport, nport, loc+"etag-lm", `"v1"`)
	}
	n := 0
	for _, loc := range []string{"/exact/", "/before/", "/off/", "/noetag/", "/expires/"} {
		// Not stored for its Cache-Control or Set-Cookie, the response
		// passes through as if there were no cache; with no lifetime at
		// all, NGINX learns that it will not store it after its filter
		// answered. (Without Last-Modified: mosaic's
		// proxy_cache_heuristic, on by default, would store one that has
		// it.)
		for _, name := range []string{"etag-lm", "etag", "lm", "none", "weak-lm", "etag-lm-gz", "etag-lm-nostore", "etag-lm-cookie", "etag-nolife"} {
			etag := `"v1"`
			if strings.HasPrefix(name, "weak") {
				etag = `W/"v1"`
			}
			// A new query each time: every request fills the cache.
			sameConditionalAt(t, mport, nport, func() string {
				n++
				return fmt.Sprintf("%s%s?miss=%d", loc, name, n)
			}, etag)
			// The same path each time: the first fills, the rest hit.
			path := loc + name
			sameConditional(t, mport, nport, path, etag)
		}
	}
}

// TestConditionalCachedStaleAsNGINX: an expired entry served stale
// (proxy_cache_use_stale updating) and one revalidated with the origin
// (proxy_cache_revalidate) answer the conditions as a hit does. Each
// request has an entry of its own, filled and left to expire first.
func TestConditionalCachedStaleAsNGINX(t *testing.T) {
	t.Parallel() // it waits out max-age=1 on NGINX's whole-second clock
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		withoutDate(w)
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", condMtime)
		w.Header().Set("Cache-Control", "max-age=1")
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "abcdefghijklmnopqrstuvwxyz")
	}))
	t.Cleanup(origin.Close)
	mport, nport := startCachedBoth(t, origin.URL, `
			location /stale/ { proxy_pass {origin}; proxy_cache_use_stale updating; proxy_cache_background_update on; }
			location /reval/ { proxy_pass {origin}; proxy_cache_revalidate on; }`)
	locs := []string{"/stale/", "/reval/"}
	requests := 2 * len(condCases(`"v1"`))
	for _, loc := range locs {
		for i := range requests {
			for _, port := range []int{mport, nport} {
				req := fmt.Sprintf("GET %sx?%d HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n", loc, i)
				if r, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), req); r.Header.Get("X-Cache") != "MISS" {
					t.Fatalf("%d %s: X-Cache %q, want MISS", port, req, r.Header.Get("X-Cache"))
				}
			}
		}
	}
	time.Sleep(2100 * time.Millisecond) // max-age=1, in whole seconds
	for _, loc := range locs {
		i := 0
		sameConditionalAt(t, mport, nport, func() string {
			i++
			return fmt.Sprintf("%sx?%d", loc, i-1)
		}, `"v1"`)
	}
}

// startCachedBoth starts mosaic and NGINX with one server that caches in
// zone z, reports $upstream_cache_status in X-Cache, and has locations
// (where {origin} stands for origin's URL).
func startCachedBoth(t *testing.T, origin, locations string) (mport, nport int) {
	t.Helper()
	dir := t.TempDir()
	names := map[string]string{"m": "mosaic", "n": "nginx"}
	return startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`proxy_cache_path %s/%s/cache keys_zone=z:10m;
		server { listen 127.0.0.1:%d;
			proxy_cache z;
			add_header X-Cache $upstream_cache_status always;
			%s
		}`, dir, names[who], port, strings.ReplaceAll(locations, "{origin}", origin))
	})
}

// TestConditionalCachedSubrequestAsNGINX: NGINX's not-modified filter
// acts on the main request only, so an SSI include of a cached location
// whose ETag the client's If-None-Match names includes the body; the
// page itself, a file with another tag, is a 200.
func TestConditionalCachedSubrequestAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := condOrigin(t, `"v1"`)
	www := t.TempDir()
	writeFile(t, filepath.Join(www, "page.html"), `[<!--# include virtual="/c/x" -->]`)
	mport, nport := startCachedBoth(t, origin, `
			location /c/ { proxy_pass {origin}; }
			location /ssi/ { alias `+www+`/; ssi on; }`)
	for _, pass := range []string{"miss", "hit"} {
		for _, inm := range []string{`"v1"`, "*"} {
			req := "GET /ssi/page.html HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\nIf-None-Match: " + inm + "\r\n\r\n"
			m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
			n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
			if m.StatusCode != n.StatusCode || mb != nb {
				t.Errorf("%s, If-None-Match %s: mosaic %d %q, nginx %d %q", pass, inm, m.StatusCode, mb, n.StatusCode, nb)
			}
		}
	}
}

// TestConditionalCached412AsNGINX: NGINX's filter fails a precondition
// with ngx_http_filter_finalize_request, which clears the response's
// header (Set-Cookie and the validators included) before its page or the
// location's error_page goes out; "add_header ... always" still applies,
// add_header without it does not. A miss and a hit of an entry that keeps
// its Set-Cookie (proxy_ignore_headers) are compared with /usr/sbin/nginx.
func TestConditionalCached412AsNGINX(t *testing.T) {
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("ETag", `"v1"`)
		h.Set("Last-Modified", condMtime)
		h.Set("Cache-Control", "max-age=600")
		h.Set("Set-Cookie", "a=b")
		h.Set("Content-Type", "text/plain")
		fmt.Fprint(w, "abcdefghijklmnopqrstuvwxyz")
	}))
	t.Cleanup(origin.Close)
	mport, nport := startCachedBoth(t, origin.URL, `
			proxy_ignore_headers Set-Cookie;
			add_header X-Always yes always;
			add_header X-Added yes;
			location /plain/ { proxy_pass {origin}; }
			location /page/ { proxy_pass {origin}; error_page 412 /failed; }
			location = /failed { return 200 "failed\n"; }`)
	names := []string{"ETag", "Last-Modified", "Cache-Control", "Set-Cookie", "X-Always", "X-Added", "X-Cache", "Content-Type"}
	for _, loc := range []string{"/plain/x", "/page/x"} {
		for _, pass := range []string{"miss", "hit"} {
			for _, c := range [][]string{{"If-Match", `"x"`}, {"If-Unmodified-Since", "Sun, 13 Sep 2020 12:26:39 GMT"}} {
				req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n%s: %s\r\n\r\n", loc, c[0], c[1])
				m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
				n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
				got, want := fmt.Sprint(m.StatusCode), fmt.Sprint(n.StatusCode)
				for _, h := range names {
					got += fmt.Sprintf(" %s=%q", h, m.Header.Values(h))
					want += fmt.Sprintf(" %s=%q", h, n.Header.Values(h))
				}
				if !strings.Contains(nb, "<center>nginx") {
					// The server's own page names the server; error_page's is compared.
					got += fmt.Sprintf(" body=%q", mb)
					want += fmt.Sprintf(" body=%q", nb)
				}
				if got != want {
					t.Errorf("%s %s %q:\nmosaic %s\nnginx  %s", pass, loc, c, got, want)
				}
			}
			if pass == "miss" {
				// The first request filled the entry; make the next pass hit it.
				req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n", loc)
				testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
				testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
			}
		}
	}
}

// TestConditionalFastCGICachedAsNGINX: fastcgi_cache answers conditions as
// proxy_cache does (cachemod sets the same options for every gateway);
// a php-fpm script gives the validators, each request a miss then a hit.
func TestConditionalFastCGICachedAsNGINX(t *testing.T) {
	nginxPath(t)
	fpmPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "v.php"), `<?php
header('ETag: "v1"');
header('Last-Modified: `+condMtime+`');
header('Cache-Control: max-age=600');
header('Content-Type: text/plain');
echo "abcdefghijklmnopqrstuvwxyz";`)
	fpm := startFPM(t, filepath.Join(dir, "fpm"), "127.0.0.1:"+strconv.Itoa(freePort(t)), 2)
	shipFastCGIFile(t, dir, "fastcgi.conf")
	names := map[string]string{"m": "mosaic", "n": "nginx"}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`fastcgi_cache_path %[1]s/%[2]s/cache keys_zone=f:10m;
		server { listen 127.0.0.1:%[3]d; root %[1]s/www;
			add_header X-Cache $upstream_cache_status always;
			location ~ \.php$ { include %[1]s/fastcgi.conf; fastcgi_pass %[4]s;
				fastcgi_cache f; fastcgi_cache_key $request_uri; }
		}`, dir, names[who], port, fpm.addr)
	})
	n := 0
	sameConditionalAt(t, mport, nport, func() string {
		n++
		return fmt.Sprintf("/v.php?miss=%d", n)
	}, `"v1"`)
	// The entry of "/v.php" is stored first, by both: NGINX stores it
	// once FastCGI's end record is in, which can come after the client
	// has its answer and sent the next request (a MISS in NGINX only).
	// The misses above compare the storing requests.
	for _, port := range []int{mport, nport} {
		for i := 0; ; i++ {
			r, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), "GET /v.php HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
			if r.Header.Get("X-Cache") == "HIT" {
				break
			}
			if i == 100 {
				t.Fatalf("port %d: /v.php not cached after 100 requests", port)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	sameConditional(t, mport, nport, "/v.php", `"v1"`)
}
