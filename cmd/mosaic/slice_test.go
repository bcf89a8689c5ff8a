package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// sliceBody is the representation sliceOrigin serves: 1000 bytes, four
// slices of 256 with "slice 256".
var sliceBody = func() string {
	b := make([]byte, 1000)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return string(b)
}()

// sliceOrigin serves sliceBody and logs each request it gets ("METHOD
// path Range If-Range"), per server (X-Who). Under /ok/ it answers a
// "bytes=A-B" range with 206 (416 when A is past the end); under
// /norange/ it ignores Range; under /etag/ it does as /ok/ but the ETag
// changes after a server's first request; under /nolength/ its
// Content-Range has no complete length; under /shifted/ it answers the
// range one byte further on.
type sliceOrigin struct {
	*httptest.Server
	mu   sync.Mutex
	log  map[string][]string
	seen map[string]int // requests per server and path
}

var sliceRange = regexp.MustCompile(`^bytes=(\d+)-(\d+)$`)

func newSliceOrigin(t *testing.T) *sliceOrigin {
	t.Helper()
	o := &sliceOrigin{log: map[string][]string{}, seen: map[string]int{}}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who := r.Header.Get("X-Who")
		o.mu.Lock()
		o.log[who] = append(o.log[who], fmt.Sprintf("%s %s %q %q", r.Method, r.URL.Path, r.Header.Get("Range"), r.Header.Get("If-Range")))
		o.seen[who+r.URL.Path]++
		n := o.seen[who+r.URL.Path]
		o.mu.Unlock()
		etag := `"e1"`
		if strings.HasPrefix(r.URL.Path, "/etag/") && n > 1 {
			etag = fmt.Sprintf(`"e%d"`, n)
		}
		h := w.Header()
		h.Set("ETag", etag)
		h.Set("Content-Type", "text/plain")
		h.Set("Accept-Ranges", "bytes")
		m := sliceRange.FindStringSubmatch(r.Header.Get("Range"))
		if m == nil || strings.HasPrefix(r.URL.Path, "/norange/") {
			h.Set("Content-Length", strconv.Itoa(len(sliceBody)))
			fmt.Fprint(w, sliceBody)
			return
		}
		start, _ := strconv.Atoi(m[1])
		end, _ := strconv.Atoi(m[2])
		if start >= len(sliceBody) {
			h.Set("Content-Range", fmt.Sprintf("bytes */%d", len(sliceBody)))
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
			fmt.Fprint(w, "not satisfiable\n")
			return
		}
		end = min(end, len(sliceBody)-1)
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, end, len(sliceBody)))
		switch {
		case strings.HasPrefix(r.URL.Path, "/nolength/"):
			h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/*", start, end))
		case strings.HasPrefix(r.URL.Path, "/shifted/"):
			start, end = start+1, end+1
			h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, end, len(sliceBody)))
		}
		h.Set("Content-Length", strconv.Itoa(end-start+1))
		w.WriteHeader(http.StatusPartialContent)
		fmt.Fprint(w, sliceBody[start:end+1])
	}))
	t.Cleanup(o.Close)
	return o
}

// take returns and forgets what the origin logged for a server.
func (o *sliceOrigin) take(who string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.log[who]
	o.log[who] = nil
	return l
}

// sliceAnswer is the part of a raw answer both servers must agree on:
// the status line, the fields the slice module decides and the body as
// far as it came before the connection closed.
// An error page is compared with the servers' names made the same, and
// without its length, which the names make differ.
func sliceAnswer(raw string) string {
	head, body, _ := strings.Cut(raw, "\r\n\r\n")
	page := strings.Contains(body, "<hr><center>")
	if page {
		body = strings.ReplaceAll(body, "nginx/1.22.1", "mosaic")
	}
	lines := strings.Split(head, "\r\n")
	out := []string{lines[0]}
	for _, l := range lines[1:] {
		name, _, _ := strings.Cut(l, ":")
		switch name = strings.ToLower(name); name {
		case "content-length", "content-range", "content-type", "etag", "accept-ranges", "transfer-encoding":
			if page && name == "content-length" {
				continue
			}
			out = append(out, strings.ToLower(l))
		}
	}
	slices.Sort(out[1:])
	return strings.Join(out, "\n") + "\n\n" + body
}

// TestSliceAsNGINX runs NGINX's recipe for caching a large file in
// slices (the slice module's documentation) on Debian's NGINX and on
// mosaic in front of one origin, and compares, request by request, what
// the client got and what the origin was asked.
func TestSliceAsNGINX(t *testing.T) {
	nginxPath(t)
	o := newSliceOrigin(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`proxy_cache_path %s/cache-%s keys_zone=slices:10m;
		access_log off;
		server {
			listen 127.0.0.1:%d;
			location / {
				slice 256;
				proxy_cache slices;
				proxy_cache_key $uri$is_args$args$slice_range;
				proxy_set_header Range $slice_range;
				proxy_cache_valid 200 206 1h;
				proxy_set_header X-Who %s;
				proxy_pass http://%[5]s;
			}
			location /moved/ {
				rewrite ^/moved/(.*)$ /gone/$1 break;
				slice 256;
				proxy_set_header Range $slice_range;
				proxy_set_header X-Who %[4]s;
				proxy_pass http://%[5]s;
			}
			location /gone/ { return 404; }
			location /set/ {
				set $file /ok/set;
				slice 256;
				proxy_set_header Range $slice_range;
				proxy_set_header X-Who %[4]s;
				proxy_pass http://%[5]s$file;
			}
			location /unused/ {
				slice 256;
				proxy_cache slices;
				proxy_cache_valid 200 206 1h;
				proxy_set_header X-Who %[4]s;
				proxy_pass http://%[5]s/ok/;
			}
		}`, filepath.ToSlash(dir), who, port, who, o.Listener.Addr())
	})
	for _, c := range []struct {
		what, method, path, header string
		asks                       int // the origin requests it takes
	}{
		{"a range across slice boundaries", "GET", "/ok/a", "Range: bytes=200-600", 3},
		{"the whole file: only the slice not cached yet", "GET", "/ok/a", "", 1},
		{"the whole file again: every slice cached", "GET", "/ok/a", "", 0},
		{"HEAD: the first slice only", "HEAD", "/ok/b", "", 1},
		{"a suffix range: the first slice for the length, then the last", "GET", "/ok/b", "Range: bytes=-100", 1},
		{"a range within one slice", "GET", "/ok/b", "Range: bytes=800-810", 0},
		{"a range to the end", "GET", "/ok/b", "Range: bytes=600-", 1},
		{"several ranges: the whole file", "GET", "/ok/c", "Range: bytes=0-1,5-6", 4},
		{"If-Range that matches: slices from the first", "GET", "/ok/d", "Range: bytes=300-310\r\nIf-Range: \"e1\"", 2},
		{"If-Range that does not match: the whole file", "GET", "/ok/e", "Range: bytes=300-310\r\nIf-Range: \"other\"", 4},
		{"a range past the end: the origin's 416", "GET", "/ok/f", "Range: bytes=2000-", 1},
		{"a range that cannot be read: 416", "GET", "/ok/g", "Range: bytes=5-2", 1},
		{"HEAD with a range", "HEAD", "/ok/h", "Range: bytes=300-310", 1},
		{"If-None-Match that matches, through the cache: 304", "GET", "/ok/i", "If-None-Match: \"e1\"", 1},
		{"If-None-Match that matches, with a range: 304", "GET", "/ok/i", "If-None-Match: W/\"x\", \"e1\"\r\nRange: bytes=300-310", 1},
		{"If-None-Match that does not match: the whole file", "GET", "/ok/i", "If-None-Match: \"e2\"", 2},
		{"If-Match that does not match: 412", "GET", "/ok/i", "If-Match: \"e2\"", 0},
		{"If-Unmodified-Since without Last-Modified: 412", "GET", "/ok/i", "If-Unmodified-Since: Sat, 05 Dec 2026 10:00:00 GMT", 0},
		{"a rewrite ... break: the slices stay in its location", "GET", "/moved/a", "Range: bytes=200-600", 3},
		{"a variable set in the location: the slices see it", "GET", "/set/a", "Range: bytes=200-600", 3},
		{"$slice_range never read: no slices", "GET", "/unused/a", "Range: bytes=300-310", 1},
		{"an origin that ignores Range: its 200", "GET", "/norange/a", "", 1},
		{"an origin that ignores Range, with a client range", "GET", "/norange/a", "Range: bytes=300-310", 1},
		{"an origin that ignores Range, a range that is a slice", "GET", "/norange/b", "Range: bytes=256-511", 1},
		{"an ETag that changes: cut after the first slice", "GET", "/etag/a", "", 2},
		{"an ETag that changes, with a range", "GET", "/etag/b", "Range: bytes=200-300", 2},
		{"no complete length: no answer", "GET", "/nolength/a", "", 1},
		{"another range than the slice: no answer", "GET", "/shifted/a", "", 1},
	} {
		req := c.method + " " + c.path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n"
		if c.header != "" {
			req += c.header + "\r\n"
		}
		req += "\r\n"
		m := sliceAnswer(sendUntilClosed(t, mport, req))
		n := sliceAnswer(sendUntilClosed(t, nport, req))
		if m != n {
			t.Errorf("%s (%s %s %q):\nmosaic:\n%s\nnginx:\n%s", c.what, c.method, c.path, c.header, m, n)
		}
		mo, no := o.take("m"), o.take("n")
		if !slices.Equal(mo, no) {
			t.Errorf("%s (%s %s %q): origin requests\nmosaic:\n%s\nnginx:\n%s", c.what, c.method, c.path, c.header,
				strings.Join(mo, "\n"), strings.Join(no, "\n"))
		}
		if len(mo) != c.asks {
			t.Errorf("%s (%s %s %q): %d origin requests, want %d:\n%s", c.what, c.method, c.path, c.header, len(mo), c.asks, strings.Join(mo, "\n"))
		}
	}
}

// TestSliceConditionalAsNGINX: NGINX's not-modified filter judges a
// sliced response through a cache by the first slice's validators, with
// if_modified_since as the location sets it; both servers must answer
// each conditional with the same status, from the cache alike.
func TestSliceConditionalAsNGINX(t *testing.T) {
	nginxPath(t)
	o := newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `W/"w1"`)
		http.ServeContent(w, r, "", time.Unix(1700000000, 0), strings.NewReader("0123456789"))
	})
	const loc = `slice 4; proxy_cache_key $uri$slice_range; proxy_set_header Range $slice_range;
		proxy_cache_valid 200 206 1h; proxy_pass http://{origin};`
	mport, nport := startCacheBoth(t, o, `
		location /exact/ { `+loc+` }
		location /before/ { if_modified_since before; `+loc+` }
		location /off/ { if_modified_since off; `+loc+` }`)
	for _, p := range []string{"/exact/a", "/before/a", "/off/a"} {
		for _, h := range [][]string{
			{}, {"If-Modified-Since", "Tue, 14 Nov 2023 22:13:20 GMT"},
			{"If-Modified-Since", "Tue, 14 Nov 2023 22:13:21 GMT"},
			{"If-Modified-Since", "Tue, 14 Nov 2023 22:13:19 GMT"},
			{"If-Modified-Since", "garbage"},
			{"If-Unmodified-Since", "Tue, 14 Nov 2023 22:13:19 GMT"},
			{"If-Unmodified-Since", "Tue, 14 Nov 2023 22:13:20 GMT"},
			{"If-None-Match", `"w1"`}, {"If-None-Match", `"x", W/"w1"`}, {"If-None-Match", `*`},
			{"If-Match", `W/"w1"`}, {"If-Match", `*`},
		} {
			var got [2]string
			for i, port := range []int{mport, nport} {
				r := cacheDo(t, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d%s", port, p), h...)
				got[i] = fmt.Sprintf("%d/%s", r.status, r.cacheStatus())
				if r.status != http.StatusPreconditionFailed {
					// An error page names its server.
					got[i] += fmt.Sprintf(" Content-Length %q %q", r.header.Values("Content-Length"), r.body)
				}
			}
			if got[0] != got[1] {
				t.Errorf("GET %s %q: mosaic %s, nginx %s", p, h, got[0], got[1])
			}
		}
	}
}
