package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A 304 carries the Vary its 200 would carry (RFC 9110 section 15.4.5),
// through the binary: static files compressed on the fly, precompressed
// variants, and 304s from an origin and from the cache. NGINX 1.22 sends
// it for gzip_static only: its gzip filter skips the 304s it would vary.

func TestHardening304Vary(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"o1"`)
		w.Header().Set("Cache-Control", "max-age=600")
		if r.Header.Get("If-None-Match") == `"o1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprint(w, strings.Repeat("body { color: red }\n", 100))
	}))
	t.Cleanup(origin.Close)
	s := startSite(t, `
http {
    proxy_cache_path memory keys_zone=vary:1m;
    server {
        listen 127.0.0.1:{port};
        root {root};
        location /gzip/      { alias {root}/; gzip on; gzip_vary on; gzip_types application/javascript text/css; }
        location /novary/    { alias {root}/; gzip on; }
        location /br/        { alias {root}/; brotli on; gzip_vary on; }
        location /zstd/      { alias {root}/; zstd on; gzip_vary on; }
        location /static/    { alias {root}/; gzip_static on; gzip_vary on; }
        location /always/    { alias {root}/; gzip_static always; gzip_vary on; }
        location /gunzip/    { alias {root}/; gzip_static always; gunzip on; gzip_vary on; }
        location /proxied/   { proxy_pass http://`+origin.Listener.Addr().String()+`/; gzip on; gzip_vary on; }
        location /cached/    { proxy_pass http://`+origin.Listener.Addr().String()+`/; gzip on; gzip_vary on;
                               gzip_types text/css; proxy_cache vary; proxy_cache_valid 200 10m; }
    }
}`)
	vary := func(r *http.Response) string { return strings.Join(r.Header.Values("Vary"), ", ") }
	for _, tc := range []struct {
		path string
		ae   string // the client's Accept-Encoding
		vary string // on the 200 and on the 304
	}{
		{"/gzip/big.js", "gzip", "Accept-Encoding"},
		{"/gzip/big.js", "identity", "Accept-Encoding"},
		{"/gzip/page.html", "gzip", "Accept-Encoding"},
		// A type no coding takes does not vary, as in NGINX.
		{"/gzip/pic.png", "gzip", ""},
		{"/novary/big.js", "gzip", ""},
		{"/br/page.html", "br", "Accept-Encoding"},
		{"/zstd/page.html", "zstd", "Accept-Encoding"},
		{"/static/app.css", "gzip", "Accept-Encoding"},     // the .gz
		{"/static/app.css", "identity", "Accept-Encoding"}, // the file: the .gz is there (gzip_static on marks it, as NGINX)
		{"/always/app.css", "gzip", ""},                    // one coding always: no choice
		{"/gunzip/packed.txt", "gzip", "Accept-Encoding"},
		{"/gunzip/packed.txt", "identity", "Accept-Encoding"},
	} {
		what := tc.path + ", Accept-Encoding " + tc.ae
		full, _ := get(t, s.base+tc.path, ae, tc.ae)
		if full.StatusCode != http.StatusOK || vary(full) != tc.vary {
			t.Errorf("%s: 200: %d, Vary %q, want %q", what, full.StatusCode, vary(full), tc.vary)
		}
		for _, cond := range [][2]string{
			{"If-Modified-Since", full.Header.Get("Last-Modified")},
			{"If-None-Match", full.Header.Get("ETag")},
		} {
			if cond[1] == "" {
				continue
			}
			r, body := get(t, s.base+tc.path, ae, tc.ae, cond[0], cond[1])
			if r.StatusCode != http.StatusNotModified || len(body) != 0 || vary(r) != tc.vary {
				t.Errorf("%s, %s: %d, Vary %q, want 304 with %q", what, cond[0], r.StatusCode, vary(r), tc.vary)
			}
			for _, k := range []string{"Content-Type", "Content-Length", "Content-Encoding", "Accept-Ranges"} {
				if v := r.Header.Get(k); v != "" {
					t.Errorf("%s, %s: 304 with %s %q", what, cond[0], k, v)
				}
			}
		}
	}

	// A 206 carries it too (RFC 9110 section 15.3.7), and no more.
	r, body := get(t, s.base+"/gzip/big.js", ae, "gzip", "Range", "bytes=0-9")
	if r.StatusCode != http.StatusPartialContent || len(body) != 10 || vary(r) != "Accept-Encoding" || r.Header.Get("Content-Encoding") != "" {
		t.Errorf("206: %d, %d bytes, Vary %q, Content-Encoding %q", r.StatusCode, len(body), vary(r), r.Header.Get("Content-Encoding"))
	}
	if r, _ := get(t, s.base+"/novary/big.js", ae, "gzip", "Range", "bytes=0-9"); vary(r) != "" {
		t.Errorf("206, gzip_vary off: Vary %q", vary(r))
	}

	// An origin's 304 has no Content-Type (net/http, as NGINX, sends none)
	// and so says nothing of its 200: it goes out as it came.
	r, _ = get(t, s.base+"/proxied/page.css", ae, "gzip", "If-None-Match", `"o1"`)
	if r.StatusCode != http.StatusNotModified || vary(r) != "" {
		t.Errorf("proxied 304: %d, Vary %q, want 304 as the origin sent it", r.StatusCode, vary(r))
	}

	// The cache's 304 keeps the stored Content-Type, so the filter judges
	// it as it judged the 200; the server drops it as the 304 goes out.
	full, _ := get(t, s.base+"/cached/page.css", ae, "gzip")
	r, _ = get(t, s.base+"/cached/page.css", ae, "gzip", "If-None-Match", `"o1"`)
	if vary(full) != "Accept-Encoding" || r.StatusCode != http.StatusNotModified || vary(r) != "Accept-Encoding" {
		t.Errorf("cached: 200 Vary %q; %d, Vary %q, want 304 with Accept-Encoding", vary(full), r.StatusCode, vary(r))
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		t.Errorf("cached 304 with Content-Type %q", ct)
	}
}
