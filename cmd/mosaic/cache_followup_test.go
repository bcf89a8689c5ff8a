package main

import (
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Follow-ups to the cache's conformance work, through the binary:
// max_ranges for stored responses, proxy_cache_post_reuse, and
// Surrogate-Control read by both the cache and ESI.

// TestCacheMaxRanges: the ranges of a stored response obey the location's
// max_ranges as static files do: more ranges than it allows get the whole
// response, and "max_ranges 0" turns ranges off.
func TestCacheMaxRanges(t *testing.T) {
	t.Parallel()
	o := newCacheOrigin(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Accept-Ranges", "bytes")
		fmt.Fprint(w, "0123456789")
	})
	port := freePort(t)
	startMosaic(t, t.TempDir(), `http {
    access_log off;
    proxy_cache_path memory keys_zone=r:1m;
    max_ranges 1;
    server {
        listen 127.0.0.1:{port};
        add_header X-Cache $upstream_cache_status always;
        location / { proxy_pass http://`+o.addr()+`; proxy_cache r; }
        location /off/ { proxy_pass http://`+o.addr()+`; proxy_cache r; max_ranges 0; }
    }
}`, port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for i, c := range []struct {
		path, rng, cache string
		status           int
		body             string
	}{
		{"/a", "bytes=0-1,4-5", "MISS", 200, "0123456789"}, // a range miss fills the entry
		{"/a", "bytes=0-1,4-5", "HIT", 200, "0123456789"},
		{"/a", "bytes=2-3", "HIT", 206, "23"},
		{"/off/a", "bytes=2-3", "MISS", 200, "0123456789"},
		{"/off/a", "bytes=2-3", "HIT", 200, "0123456789"},
	} {
		got := cacheDo(t, http.MethodGet, base+c.path, "Range", c.rng)
		if got.status != c.status || got.body != c.body || got.cacheStatus() != c.cache {
			t.Errorf("step %d: %s %s: %d %s %q, want %d %s %q", i, c.path, c.rng, got.status, got.cacheStatus(), got.body, c.status, c.cache, c.body)
		}
	}
}

// TestCachePostReuseDirective: proxy_cache_post_reuse is off by default,
// where a POST is relayed without a Cache-Status and never stored; its
// fastcgi and uwsgi twins exist and "mosaic -t" checks its value.
func TestCachePostReuseDirective(t *testing.T) {
	t.Parallel()
	o := newCacheOrigin(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("Content-Location", r.URL.Path)
		fmt.Fprint(w, r.Method, vbody(n))
	})
	base := cachingFront(t, o)
	post := cacheDo(t, http.MethodPost, base+"/p")
	if post.status != 200 || post.header.Get("Cache-Status") != "" || post.cacheStatus() != "" {
		t.Errorf("POST: %d, Cache-Status %q, X-Cache %q; want 200 without either", post.status, post.header.Get("Cache-Status"), post.cacheStatus())
	}
	if got := cacheDo(t, http.MethodGet, base+"/p"); got.cacheStatus() != "MISS" || got.body != "GETv2" {
		t.Errorf("GET after the POST: %s %q, want MISS GETv2", got.cacheStatus(), got.body)
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.conf")
	writeFile(t, bad, "http { proxy_cache_post_reuse yes; server { listen 127.0.0.1:1; } }\n")
	out, err := exec.Command(checkPath, "-t", "-c", bad).CombinedOutput()
	if want := `it must be "on" or "off"`; err == nil || !strings.Contains(string(out), want) {
		t.Errorf("%v\n%s\nwant %q", err, out, want)
	}
	good := filepath.Join(dir, "good.conf")
	writeFile(t, good, `http {
    proxy_cache_path memory keys_zone=z:1m;
    proxy_cache_post_reuse on;
    server {
        listen 127.0.0.1:1;
        location / { proxy_pass http://127.0.0.1:2; proxy_cache z; proxy_cache_post_reuse off; }
        location /f { fastcgi_pass 127.0.0.1:3; fastcgi_cache z; fastcgi_cache_key $uri; fastcgi_cache_post_reuse on; }
        location /u { uwsgi_pass 127.0.0.1:4; uwsgi_cache z; uwsgi_cache_key $uri; uwsgi_cache_post_reuse off; }
    }
}
`)
	configTest(t, good)
}

// TestCacheSurrogateControlWithESI: with Surrogate-Control on the target
// list and esi_surrogate on, a Surrogate-Control that only asks for ESI
// (content="ESI/1.0") gives the cache no lifetime: Cache-Control's
// max-age stores the page. The field still reaches ESI, which processes
// the page, hits included, and removes it; one with a cache directive is
// the cache's lifetime, and ESI reads it too.
func TestCacheSurrogateControlWithESI(t *testing.T) {
	t.Parallel()
	o := newCacheOrigin(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/content-only":
			w.Header().Set("Cache-Control", "max-age=60")
			w.Header().Set("Surrogate-Control", `content="ESI/1.0"`)
		case "/lifetime":
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("Surrogate-Control", `max-age=60, content="ESI/1.0"`)
		}
		io.WriteString(w, "[<esi:remove>markup</esi:remove>]")
	})
	port := freePort(t)
	startMosaic(t, t.TempDir(), `http {
    access_log off;
    proxy_cache_path memory keys_zone=r:1m;
    server {
        listen 127.0.0.1:{port};
        add_header X-Cache $upstream_cache_status always;
        location / {
            esi on;
            esi_surrogate on;
            proxy_cache r;
            proxy_cache_targeted_headers Surrogate-Control CDN-Cache-Control;
            proxy_pass http://`+o.addr()+`;
        }
    }
}`, port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for _, path := range []string{"/content-only", "/lifetime"} {
		for i, want := range []string{"MISS", "HIT"} {
			got := cacheDo(t, http.MethodGet, base+path)
			if got.status != 200 || got.body != "[]" || got.cacheStatus() != want {
				t.Errorf("%s request %d: %d %s %q, want 200 %s and the page processed", path, i+1, got.status, got.cacheStatus(), got.body, want)
			}
			if v := got.header.Get("Surrogate-Control"); v != "" {
				t.Errorf("%s: Surrogate-Control %q reached the client", path, v)
			}
		}
	}
	o.waitHits(t, 2, "one fill per page")
}
