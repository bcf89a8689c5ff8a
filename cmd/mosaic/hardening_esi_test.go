package main

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// Ranges and conditionals on pages that ESI processes, through the
// binary: no answer carries a slice of the markup or the stored
// document's validators, whichever way it is asked for.

// esiRangePage is a page from a file or an origin, and what it assembles to.
const (
	esiRangePage = `<p>head <esi:include src="/int/frag"/> tail</p>`
	esiRangeWant = `<p>head FRAG tail</p>`
)

// rangeOrigin answers Range requests itself, as a file server would, and
// records the Range header of each request for the page.
type rangeOrigin struct {
	mu     sync.Mutex
	ranges []string
}

func (o *rangeOrigin) handle(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	o.ranges = append(o.ranges, r.Header.Get("Range"))
	o.mu.Unlock()
	w.Header().Set("Content-Type", "text/html")
	w.Header().Set("ETag", `"origin"`)
	http.ServeContent(w, r, "", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), strings.NewReader(esiRangePage))
}

// seen returns the Range headers recorded since the last call.
func (o *rangeOrigin) seen() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.ranges
	o.ranges = nil
	return s
}

func TestHardeningESIRanges(t *testing.T) {
	origin := &rangeOrigin{}
	o := startESIOrigin(t, origin.handle)
	port := freePort(t)
	base, _ := esiSite(t, port, o, `http {
		esi on;
		proxy_cache_path memory keys_zone=pages:1m;
		server { listen 127.0.0.1:{port};
			location /static/ { root {dir}/www; }
			location /up/ { proxy_pass http://{origin}; }
			location /cached/ { proxy_pass http://{origin}; proxy_cache pages; proxy_cache_valid 200 10m; }
			location /err/ { root {dir}/www; error_page 404 /errors/404.html; }
			location /errors/ { internal; root {dir}/www; }
			# The page's own location does not process it: the page goes
			# out with that location's filters, as it is, and whole.
			location /err-raw/ { root {dir}/www; error_page 404 /raw-errors/404.html; }
			location /raw-errors/ { internal; esi off; alias {dir}/www/errors/; }
			location /int/ { internal; return 200 "FRAG"; }
			location /raw/ { esi off; alias {dir}/www/static/; }
		}
	}`, "www/static/page.html", esiRangePage,
		"www/static/img.png", "0123456789",
		"www/errors/404.html", `<p>missing <esi:include src="/int/frag"/></p>`)
	page := base + "/static/page.html"

	// The file's validators, as a location without ESI gives them: what a
	// client could try a range or a conditional with.
	r, body := esiDo(t, "GET", base+"/raw/page.html", nil)
	etag, lastModified := r.Header.Get("ETag"), r.Header.Get("Last-Modified")
	if body != esiRangePage || etag == "" || lastModified == "" {
		t.Fatalf("raw page: %q %v", body, r.Header)
	}

	whole := func(what string, r *http.Response, body string, status int, want string) {
		t.Helper()
		if r.StatusCode != status || body != want {
			t.Errorf("%s: %d %q, want %d %q", what, r.StatusCode, body, status, want)
		}
		if strings.Contains(body, "<esi:") {
			t.Errorf("%s: markup in the body %q", what, body)
		}
		for _, k := range []string{"Content-Range", "Accept-Ranges", "ETag", "Last-Modified"} {
			if v := r.Header.Get(k); v != "" {
				t.Errorf("%s: %s %q", what, k, v)
			}
		}
		if ct := r.Header.Get("Content-Type"); status == 200 && !strings.HasPrefix(ct, "text/html") {
			t.Errorf("%s: Content-Type %q", what, ct)
		}
	}
	for _, tc := range []struct {
		what   string
		method string
		header http.Header
	}{
		{"one range", "GET", http.Header{"Range": {"bytes=0-3"}}},
		{"several ranges", "GET", http.Header{"Range": {"bytes=0-1,5-9"}}},
		{"beyond the end", "GET", http.Header{"Range": {"bytes=1000-"}}},
		{"If-Range with the file's ETag", "GET", http.Header{"Range": {"bytes=0-3"}, "If-Range": {etag}}},
		{"If-Range with the file's date", "GET", http.Header{"Range": {"bytes=0-3"}, "If-Range": {lastModified}}},
		{"If-None-Match", "GET", http.Header{"If-None-Match": {etag}}},
		{"If-Modified-Since", "GET", http.Header{"If-Modified-Since": {lastModified}}},
		{"HEAD with a range", "HEAD", http.Header{"Range": {"bytes=0-3"}}},
		{"HEAD, If-None-Match", "HEAD", http.Header{"If-None-Match": {etag}}},
	} {
		r, body := esiDo(t, tc.method, page, tc.header)
		want := esiRangeWant
		if tc.method == "HEAD" {
			want = ""
			if r.Header.Get("Content-Length") != "" {
				t.Errorf("%s: Content-Length %q", tc.what, r.Header.Get("Content-Length"))
			}
		}
		whole("static page, "+tc.what, r, body, 200, want)
	}

	// An image beside it keeps its ranges and its 304s.
	r, body = esiDo(t, "GET", base+"/static/img.png", http.Header{"Range": {"bytes=2-5"}})
	if r.StatusCode != 206 || body != "2345" || r.Header.Get("Content-Range") != "bytes 2-5/10" {
		t.Errorf("image range: %d %q %v", r.StatusCode, body, r.Header)
	}
	r, _ = esiDo(t, "GET", base+"/static/img.png", nil)
	if r2, _ := esiDo(t, "GET", base+"/static/img.png", http.Header{"If-None-Match": {r.Header.Get("ETag")}}); r2.StatusCode != 304 {
		t.Errorf("image If-None-Match: %d", r2.StatusCode)
	}

	// An origin that answers ranges itself: its 206 is dropped and the
	// page fetched again whole; a HEAD or POST never asks it for one.
	r, body = esiDo(t, "GET", base+"/up/page", http.Header{"Range": {"bytes=0-3"}})
	whole("proxied 206", r, body, 200, esiRangeWant)
	if got := origin.seen(); strings.Join(got, ",") != "bytes=0-3," {
		t.Errorf("proxied 206: the origin saw ranges %q, want the range then none", got)
	}
	r, body = esiDo(t, "GET", base+"/up/page", http.Header{"Range": {"bytes=0-1,4-6"}})
	whole("proxied multipart 206", r, body, 200, esiRangeWant)
	origin.seen()
	for _, m := range []string{"HEAD", "POST"} {
		r, body = esiDo(t, m, base+"/up/page", http.Header{"Range": {"bytes=0-3"}})
		want := esiRangeWant
		if m == "HEAD" {
			want = ""
		}
		whole("proxied "+m, r, body, 200, want)
		if got := origin.seen(); len(got) != 1 || got[0] != "" {
			t.Errorf("proxied %s: the origin saw ranges %q", m, got)
		}
	}

	// The cache answers a conditional with a 304 of the stored page: its
	// validators are not the processed page's, so the page goes out whole.
	esiDo(t, "GET", base+"/cached/page", nil)
	r, body = esiDo(t, "GET", base+"/cached/page", http.Header{"If-None-Match": {`"origin"`}})
	whole("cached page, If-None-Match", r, body, 200, esiRangeWant)

	// An error page served for a request with a range is the page whole.
	r, body = esiDo(t, "GET", base+"/err/nothing", http.Header{"Range": {"bytes=0-3"}})
	whole("error page /err/nothing", r, body, 404, `<p>missing FRAG</p>`)
	// The output filters of an error page are those of its own location,
	// as in NGINX: with ESI off there, the page is not processed, and it
	// is not sliced either.
	r, body = esiDo(t, "GET", base+"/err-raw/nothing", http.Header{"Range": {"bytes=0-3"}})
	if raw := `<p>missing <esi:include src="/int/frag"/></p>`; r.StatusCode != 404 || body != raw || r.Header.Get("Content-Range") != "" {
		t.Errorf("error page /err-raw/nothing: %d %q (Content-Range %q), want 404 %q whole",
			r.StatusCode, body, r.Header.Get("Content-Range"), raw)
	}
}
