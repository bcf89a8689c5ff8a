package cache_test

import (
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
)

// Rules of RFC 9213 (targeted fields), RFC 9111 section 4.2.2
// (heuristics), 4.1 (Vary normalisation), 5.2.2.3 (must-understand),
// 4.3.2 (If-Modified-Since without Last-Modified) and RFC 9110 section 14
// (ranges from the cache), each against a real origin on loopback.
func TestConformanceRules(t *testing.T) {
	const digits = "0123456789"
	ranged := func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("ETag", `"e1"`)
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("X-Range-Sent", r.Header.Get("Range"))
		w.Header().Set("Accept-Ranges", "bytes")
		fmt.Fprint(w, digits)
	}
	targeted := func(cc, cdn, surrogate string) func(int64, http.ResponseWriter, *http.Request) {
		return func(n int64, w http.ResponseWriter, r *http.Request) {
			if cc != "" {
				w.Header().Set("Cache-Control", cc)
			}
			if cdn != "" {
				w.Header().Set("CDN-Cache-Control", cdn)
			}
			if surrogate != "" {
				w.Header().Set("Surrogate-Control", surrogate)
			}
			w.Header().Set("ETag", `"e1"`)
			if r.Header.Get("If-None-Match") == `"e1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			fmt.Fprint(w, body(n))
		}
	}
	// lastModified answers with a Last-Modified age before its Date and no
	// explicit lifetime.
	lastModified := func(status int, age time.Duration, cc string) func(int64, http.ResponseWriter, *http.Request) {
		return func(n int64, w http.ResponseWriter, r *http.Request) {
			date, _ := http.ParseTime(w.Header().Get("Date"))
			w.Header().Set("Last-Modified", date.Add(-age).UTC().Format(http.TimeFormat))
			if cc != "" {
				w.Header().Set("Cache-Control", cc)
			}
			w.WriteHeader(status)
			fmt.Fprint(w, body(n))
		}
	}
	heuristic := cache.Options{Heuristic: true}
	post := cache.Options{PostReuse: true}
	// postAnswer answers a POST with Content-Location of its own URI and
	// the given Cache-Control and Expires.
	postAnswer := func(cc, expires string) func(int64, http.ResponseWriter, *http.Request) {
		return func(n int64, w http.ResponseWriter, r *http.Request) {
			if cc != "" {
				w.Header().Set("Cache-Control", cc)
			}
			if expires != "" {
				w.Header().Set("Expires", expires)
			}
			w.Header().Set("ETag", `"e1"`)
			if r.Method == http.MethodPost {
				w.Header().Set("Content-Location", "/r")
			}
			fmt.Fprint(w, r.Method, body(n))
		}
	}
	notStoredPost := []step{
		{method: http.MethodPost, body: "POSTv1", originReqs: 1, want: map[string]string{"Cache-Status": "mosaic; fwd=method; fwd-status=200; detail=method"}},
		{body: "GETv2", originReqs: 2},
	}
	cdn := cache.Options{TargetedHeaders: cache.DefaultTargetedHeaders}
	rules := []rule{
		{
			name:   "9213/2.1 CDN-Cache-Control max-age overrides Cache-Control, and is passed on",
			opts:   cdn,
			origin: targeted("no-store", "max-age=60", ""),
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1},
				{advance: 30 * time.Second, cache: cache.StatusHit, body: "v1", originReqs: 1,
					want: map[string]string{"CDN-Cache-Control": "max-age=60", "Cache-Control": "no-store", "Age": "30"}},
				{advance: 31 * time.Second, cache: cache.StatusExpired, body: "v2", originReqs: 2},
			},
		},
		{
			name:   "9213/2.1 CDN-Cache-Control no-store keeps out what Cache-Control allows",
			opts:   cdn,
			origin: targeted("max-age=60", "no-store", ""),
			steps:  []step{{cache: cache.StatusMiss, originReqs: 1}, {cache: cache.StatusMiss, body: "v2", originReqs: 2}},
		},
		{
			name:   "9213/2.1 CDN-Cache-Control private keeps the response out of the shared cache",
			opts:   cdn,
			origin: targeted("max-age=60", "private", ""),
			steps:  []step{{cache: cache.StatusMiss, originReqs: 1}, {cache: cache.StatusMiss, body: "v2", originReqs: 2}},
		},
		{
			name:   "9213/2.1 CDN-Cache-Control no-cache: stored, validated before each use",
			opts:   cache.Options{Revalidate: true, TargetedHeaders: cache.DefaultTargetedHeaders},
			origin: targeted("max-age=60", "no-cache", ""),
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1},
				{cache: cache.StatusRevalidated, body: "v1", originReqs: 2},
			},
		},
		{
			name: "9213/2.1 CDN-Cache-Control replaces Expires too",
			opts: cdn,
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Expires", "Thu, 01 Jan 1970 00:00:00 GMT")
				w.Header().Set("CDN-Cache-Control", "max-age=60")
				fmt.Fprint(w, body(n))
			},
			steps: []step{{cache: cache.StatusMiss, originReqs: 1}, {advance: 10 * time.Second, cache: cache.StatusHit, originReqs: 1}},
		},
		{
			name:   "9213/2.2 an invalid CDN-Cache-Control is ignored: Cache-Control decides",
			opts:   cdn,
			origin: targeted("no-store", "MAX-AGE=60", ""),
			steps:  []step{{cache: cache.StatusMiss, originReqs: 1}, {cache: cache.StatusMiss, originReqs: 2}},
		},
		{
			name:   "9213/2.1 the first field of the target list wins; fields addressed to this cache alone stop here",
			opts:   cache.Options{TargetedHeaders: []string{"Surrogate-Control", "CDN-Cache-Control"}},
			origin: targeted("no-store", "no-store", "max-age=60"),
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1, want: map[string]string{"Surrogate-Control": "", "CDN-Cache-Control": "no-store"}},
				{cache: cache.StatusHit, body: "v1", originReqs: 1, want: map[string]string{"Surrogate-Control": ""}},
			},
		},
		{
			name:   "Surrogate-Control with content= alone is no targeted field: the next one rules",
			opts:   cache.Options{TargetedHeaders: []string{"Surrogate-Control", "CDN-Cache-Control"}},
			origin: targeted("no-store", "max-age=60", `content="ESI/1.0"`),
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1, want: map[string]string{"Surrogate-Control": ""}},
				{cache: cache.StatusHit, body: "v1", originReqs: 1},
			},
		},
		{
			name:   "Surrogate-Control passed on for ESI still rules",
			opts:   cache.Options{TargetedHeaders: []string{"Surrogate-Control"}, PassTargeted: []string{"surrogate-control"}},
			origin: targeted("no-store", "", `max-age=60, content="ESI/1.0"`),
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1, want: map[string]string{"Surrogate-Control": `max-age=60, content="ESI/1.0"`}},
				{cache: cache.StatusHit, body: "v1", originReqs: 1, want: map[string]string{"Surrogate-Control": `max-age=60, content="ESI/1.0"`}},
			},
		},
		{
			name: "9213/2.1 a field addressed to this cache still rules after a 304 that does not repeat it",
			opts: cache.Options{TargetedHeaders: []string{"Surrogate-Control"}, Revalidate: true},
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "no-store")
				w.Header().Set("ETag", `"e1"`)
				if r.Header.Get("If-None-Match") == `"e1"` {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				w.Header().Set("Surrogate-Control", "max-age=10")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1},
				{advance: 11 * time.Second, cache: cache.StatusRevalidated, body: "v1", originReqs: 2, want: map[string]string{"Surrogate-Control": ""}},
				{advance: 5 * time.Second, cache: cache.StatusHit, body: "v1", originReqs: 2, want: map[string]string{"Surrogate-Control": ""}},
			},
		},
		{
			name:   "9213/2.1 a field not on the target list changes nothing and is passed through",
			opts:   cdn,
			origin: targeted("max-age=60", "", "no-store"),
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1},
				{cache: cache.StatusHit, originReqs: 1, want: map[string]string{"Surrogate-Control": "no-store"}},
			},
		},
		{
			name:   "9213 no target list (the zero Options, NGINX) reads no targeted field",
			origin: targeted("no-store", "max-age=60", ""),
			steps:  []step{{cache: cache.StatusMiss, originReqs: 1}, {cache: cache.StatusMiss, originReqs: 2}},
		},
		{
			name:   "9111/4.2.2 heuristic freshness: a tenth of the time since Last-Modified, with Age",
			opts:   heuristic,
			origin: lastModified(http.StatusOK, 10*time.Hour, ""),
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1},
				{advance: 50 * time.Minute, cache: cache.StatusHit, body: "v1", originReqs: 1, want: map[string]string{"Age": "3000", "Warning": ""}},
				{advance: 11 * time.Minute, cache: cache.StatusExpired, body: "v2", originReqs: 2},
			},
		},
		{
			name:   "9111/4.2.2 the heuristic lifetime is at most a day",
			opts:   heuristic,
			origin: lastModified(http.StatusOK, 100*24*time.Hour, ""),
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1},
				{advance: 23 * time.Hour, cache: cache.StatusHit, originReqs: 1},
				{advance: 2 * time.Hour, cache: cache.StatusExpired, originReqs: 2},
			},
		},
		{
			name:   "9111/4.2.2 heuristics off (NGINX): not stored",
			origin: lastModified(http.StatusOK, 10*time.Hour, ""),
			steps:  []step{{cache: cache.StatusMiss, originReqs: 1}, {cache: cache.StatusMiss, originReqs: 2}},
		},
		{
			name:   "9111/4.2.2 proxy_cache_valid comes before the heuristic",
			opts:   cache.Options{Heuristic: true, Valid: []cache.Valid{{Codes: []int{200}, TTL: 10 * time.Second}}},
			origin: lastModified(http.StatusOK, 10*time.Hour, ""),
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1},
				{advance: 20 * time.Second, cache: cache.StatusExpired, originReqs: 2},
			},
		},
		{
			name:   "9110/15.1 a status not heuristically cacheable gets no heuristic lifetime",
			opts:   heuristic,
			origin: lastModified(http.StatusFound, 10*time.Hour, ""),
			steps:  []step{{status: 302, cache: cache.StatusMiss, originReqs: 1}, {status: 302, cache: cache.StatusMiss, originReqs: 2}},
		},
		{
			name:   "9111/4.2.2 public makes any status heuristically cacheable",
			opts:   heuristic,
			origin: lastModified(http.StatusFound, 10*time.Hour, "public"),
			steps:  []step{{status: 302, cache: cache.StatusMiss, originReqs: 1}, {status: 302, cache: cache.StatusHit, originReqs: 1}},
		},
		{
			name: "9111/5.2.2.3 must-understand with an understood status overrides no-store",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "must-understand, no-store, max-age=60")
				fmt.Fprint(w, body(n))
			},
			steps: []step{{cache: cache.StatusMiss, originReqs: 1}, {cache: cache.StatusHit, body: "v1", originReqs: 1}},
		},
		{
			name: "9111/5.2.2.3 must-understand with a status the cache does not know is not stored",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "must-understand, max-age=60")
				w.WriteHeader(299)
				fmt.Fprint(w, body(n))
			},
			steps: []step{{status: 299, cache: cache.StatusMiss, originReqs: 1}, {status: 299, cache: cache.StatusMiss, originReqs: 2}},
		},
		{
			name: "9111/4.3.2 If-Modified-Since without Last-Modified is evaluated against Date",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1},
				{header: []string{"If-Modified-Since", "Fri, 01 Jan 2100 00:00:00 GMT"}, status: 304, cache: cache.StatusHit, originReqs: 1},
				{header: []string{"If-Modified-Since", "Thu, 01 Jan 1970 00:00:00 GMT"}, cache: cache.StatusHit, body: "v1", originReqs: 1},
			},
		},
		{
			name: "9110/9.3.3 a POST response with a lifetime and Content-Location of its URI answers a later GET",
			opts: post,
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				if r.Method == http.MethodPost {
					w.Header().Set("Content-Location", "/r")
				}
				w.Header().Set("X-If-Match", r.Header.Get("If-Match"))
				fmt.Fprint(w, r.Method, body(n))
			},
			steps: []step{
				// The POST goes upstream with its preconditions.
				{method: http.MethodPost, header: []string{"If-Match", `"x"`}, body: "POSTv1", originReqs: 1,
					want: map[string]string{"Cache-Status": "mosaic; fwd=method; fwd-status=200; stored", "X-If-Match": `"x"`}},
				{cache: cache.StatusHit, body: "POSTv1", originReqs: 1},
				{method: http.MethodHead, cache: cache.StatusHit, originReqs: 1},
			},
		},
		{
			name:   "9110/9.3.3 without PostReuse a POST is only relayed, and invalidates its URI",
			origin: postAnswer("max-age=60", ""),
			steps: []step{
				{cache: cache.StatusMiss, body: "GETv1", originReqs: 1},
				{method: http.MethodPost, body: "POSTv2", originReqs: 2, want: map[string]string{"Cache-Status": ""}},
				{cache: cache.StatusMiss, body: "GETv3", originReqs: 3},
				{cache: cache.StatusHit, body: "GETv3", originReqs: 3},
			},
		},
		{
			name:   "9110/9.3.3 no-cache is no lifetime for a POST response",
			opts:   cache.Options{PostReuse: true, Revalidate: true},
			origin: postAnswer("max-age=60, no-cache", ""),
			steps:  notStoredPost,
		},
		{
			name:   "9110/9.3.3 max-age=0 is no lifetime for a POST response",
			opts:   post,
			origin: postAnswer("max-age=0", ""),
			steps:  notStoredPost,
		},
		{
			name:   "9110/9.3.3 an invalid max-age is no lifetime for a POST response",
			opts:   post,
			origin: postAnswer("max-age=6x", ""),
			steps:  notStoredPost,
		},
		{
			name:   "9110/9.3.3 an invalid Expires is no lifetime for a POST response",
			opts:   post,
			origin: postAnswer("", "soon"),
			steps:  notStoredPost,
		},
		{
			name:   "9110/9.3.3 a valid Expires is a lifetime for a POST response",
			opts:   post,
			origin: postAnswer("", "Fri, 01 Jan 2100 00:00:00 GMT"),
			steps: []step{
				{method: http.MethodPost, body: "POSTv1", originReqs: 1},
				{cache: cache.StatusHit, body: "POSTv1", originReqs: 1},
			},
		},
		{
			name: "9110/9.3.3 a POST goes upstream with the Accept-Encoding its variant key records",
			opts: post,
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Content-Location", "/r")
				w.Header().Set("Vary", "Accept-Encoding")
				w.Header().Set("X-Sent", r.Header.Get("Accept-Encoding"))
				fmt.Fprint(w, r.Method, body(n))
			},
			steps: []step{
				// With the client's own value, the origin could answer in
				// a coding the key does not hold ("zstd-x" is not one the
				// cache knows), and a GET accepting gzip alone would get it.
				{method: http.MethodPost, header: []string{"Accept-Encoding", "zstd-x, GZIP;q=0.5"}, body: "POSTv1", originReqs: 1,
					want: map[string]string{"X-Sent": "gzip"}},
				{header: []string{"Accept-Encoding", "gzip"}, cache: cache.StatusHit, body: "POSTv1", originReqs: 1},
				{header: []string{"Accept-Encoding", "identity"}, cache: cache.StatusMiss, body: "GETv2", originReqs: 2},
			},
		},
		{
			name: "9110/9.3.3 a POST response naming another URI is not stored and invalidates its own",
			opts: post,
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				if r.Method == http.MethodPost {
					w.Header().Set("Content-Location", "/elsewhere")
				}
				fmt.Fprint(w, r.Method, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, body: "GETv1", originReqs: 1},
				{method: http.MethodPost, body: "POSTv2", originReqs: 2, want: map[string]string{"Cache-Status": "mosaic; fwd=method; fwd-status=200; detail=method"}},
				{cache: cache.StatusMiss, body: "GETv3", originReqs: 3},
			},
		},
		{
			name: "9111/4.1 Vary: Accept-Language selects by the normalised value",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Vary", "Accept-Language")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{header: []string{"Accept-Language", "en-US, fr;q=0.5"}, cache: cache.StatusMiss, originReqs: 1},
				{header: []string{"Accept-Language", "fr;q=0.50,EN-us"}, cache: cache.StatusHit, body: "v1", originReqs: 1},
				{header: []string{"Accept-Language", "fr, en-US;q=0.5"}, cache: cache.StatusMiss, body: "v2", originReqs: 2},
			},
		},
		{
			name: "9111/4.1 Vary: Accept-Encoding spellings of one set share a variant",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Vary", "Accept-Encoding")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{header: []string{"Accept-Encoding", "gzip, br"}, cache: cache.StatusMiss, originReqs: 1},
				{header: []string{"Accept-Encoding", "br,gzip"}, cache: cache.StatusHit, body: "v1", originReqs: 1},
			},
		},
		{
			name:   "9110/14.2 a single range of a stored response, from the cache",
			origin: ranged,
			steps: []step{
				{cache: cache.StatusMiss, body: digits, originReqs: 1},
				{header: []string{"Range", "bytes=2-4"}, status: 206, cache: cache.StatusHit, body: "234", originReqs: 1,
					want: map[string]string{"Content-Range": "bytes 2-4/10", "Content-Length": "3"}},
				{header: []string{"Range", "bytes=-3"}, status: 206, cache: cache.StatusHit, body: "789", originReqs: 1},
				// Ranges out of order (RFC 9110 section 14.2 lets a server
				// ignore them) are answered whole.
				{header: []string{"Range", "bytes=5-6,0-1"}, cache: cache.StatusHit, body: digits, originReqs: 1},
			},
		},
		{
			name:   "9110/15.5.17 an unsatisfiable range from the cache is 416 with the length",
			origin: ranged,
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1},
				{header: []string{"Range", "bytes=20-30"}, status: 416, cache: cache.StatusHit, originReqs: 1,
					want: map[string]string{"Content-Range": "bytes */10", "Etag": ""}},
			},
		},
		{
			name:   "9110/13.1.5 If-Range with the strong ETag gets the range; another or a weak one the whole",
			origin: ranged,
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1},
				{header: []string{"Range", "bytes=0-1", "If-Range", `"e1"`}, status: 206, body: "01", originReqs: 1},
				{header: []string{"Range", "bytes=0-1", "If-Range", `"e2"`}, body: digits, originReqs: 1},
				{header: []string{"Range", "bytes=0-1", "If-Range", `W/"e1"`}, body: digits, originReqs: 1},
			},
		},
		{
			name:   "9110/14.2 a range request fills the entry with the whole response, without Range upstream",
			origin: ranged,
			steps: []step{
				{header: []string{"Range", "bytes=5-"}, status: 206, cache: cache.StatusMiss, body: "56789", originReqs: 1,
					want: map[string]string{"X-Range-Sent": "", "Content-Range": "bytes 5-9/10"}},
				{cache: cache.StatusHit, body: digits, originReqs: 1, want: map[string]string{"Content-Range": ""}},
			},
		},
		{
			name: "NGINX: a response without Accept-Ranges is answered whole, filling the entry and from it",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				fmt.Fprint(w, digits)
			},
			steps: []step{
				{header: []string{"Range", "bytes=5-"}, cache: cache.StatusMiss, body: digits, originReqs: 1},
				{header: []string{"Range", "bytes=5-"}, cache: cache.StatusHit, body: digits, originReqs: 1},
			},
		},
	}
	runRules(t, rules)
}

// TestMultipleRangesFromCache checks the multipart/byteranges answer to a
// hit: each part with its Content-Range and the stored type. A fill
// answers one range at most, as NGINX's does: several get the whole body.
func TestMultipleRangesFromCache(t *testing.T) {
	const digits = "0123456789"
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Accept-Ranges", "bytes")
		fmt.Fprint(w, digits)
	})
	f := newFront(t, o, cache.Options{})
	if got := f.get(t, "/r", "Range", "bytes=0-1,4-5,8-"); got.status != http.StatusOK || got.body != digits || got.cacheStatus() != cache.StatusMiss {
		t.Fatalf("fill: %d %s %q", got.status, got.cacheStatus(), got.body)
	}
	for i, want := range []string{cache.StatusHit, cache.StatusHit} {
		got := f.get(t, "/r", "Range", "bytes=0-1,4-5,8-")
		if got.status != http.StatusPartialContent || got.cacheStatus() != want {
			t.Fatalf("request %d: %d %s", i, got.status, got.cacheStatus())
		}
		mt, params, err := mime.ParseMediaType(got.header.Get("Content-Type"))
		if err != nil || mt != "multipart/byteranges" {
			t.Fatalf("request %d: Content-Type %q", i, got.header.Get("Content-Type"))
		}
		if cl := got.header.Get("Content-Length"); cl != fmt.Sprint(len(got.body)) {
			t.Errorf("request %d: Content-Length %s for %d bytes", i, cl, len(got.body))
		}
		mr := multipart.NewReader(strings.NewReader(got.body), params["boundary"])
		var parts []string
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("request %d: %v", i, err)
			}
			b, _ := io.ReadAll(p)
			parts = append(parts, p.Header.Get("Content-Range")+" "+p.Header.Get("Content-Type")+" "+string(b))
		}
		if g := strings.Join(parts, "|"); g != "bytes 0-1/10 text/plain 01|bytes 4-5/10 text/plain 45|bytes 8-9/10 text/plain 89" {
			t.Errorf("request %d: parts %s", i, g)
		}
	}
	if n := o.hits.Load(); n != 1 {
		t.Errorf("origin saw %d requests", n)
	}
}
