package cache_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
)

// step is one client request of a rule and what it must produce.
type step struct {
	advance    time.Duration // move the clock first
	method     string        // default GET
	header     []string      // request header name/value pairs
	status     int           // default 200
	cache      string        // $upstream_cache_status; "" = not checked
	body       string        // "" = not checked
	want       map[string]string
	waitBG     bool  // let background updates finish before counting
	originReqs int64 // origin requests so far
}

// rule is one RFC 9111 / RFC 5861 (or NGINX) behaviour, checked against a
// real origin on loopback whose request count proves hits.
type rule struct {
	name   string
	opts   cache.Options
	origin func(n int64, w http.ResponseWriter, r *http.Request)
	steps  []step
}

// hangUp makes the origin unreachable for this request: the connection
// closes without a response, which the proxy reports as FailError.
func hangUp(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		conn.Close()
	}
}

func body(n int64) string { return "v" + strconv.FormatInt(n, 10) }

func TestRFCRules(t *testing.T) {
	valid60 := []cache.Valid{{TTL: time.Minute}}
	rules := []rule{
		{
			name: "9111/4.2 a fresh response (max-age) is reused, then expires",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, body: "v1", originReqs: 1},
				{advance: 30 * time.Second, cache: cache.StatusHit, body: "v1", originReqs: 1},
				{advance: 31 * time.Second, cache: cache.StatusExpired, body: "v2", originReqs: 2},
			},
		},
		{
			name: "9111/5.2.2.10 s-maxage overrides max-age in a shared cache",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=0, s-maxage=60")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1},
				{advance: 10 * time.Second, cache: cache.StatusHit, body: "v1", originReqs: 1},
			},
		},
		{
			name: "9111/5.3 Expires gives the lifetime relative to Date",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				date, _ := http.ParseTime(w.Header().Get("Date"))
				w.Header().Set("Expires", date.Add(time.Minute).UTC().Format(http.TimeFormat))
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1},
				{advance: 30 * time.Second, cache: cache.StatusHit, originReqs: 1},
				{advance: 31 * time.Second, cache: cache.StatusExpired, body: "v2", originReqs: 2},
			},
		},
		{
			name: "9111/5.3 max-age overrides Expires",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				date, _ := http.ParseTime(w.Header().Get("Date"))
				w.Header().Set("Expires", date.Add(time.Hour).UTC().Format(http.TimeFormat))
				w.Header().Set("Cache-Control", "max-age=10")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1},
				{advance: 20 * time.Second, cache: cache.StatusExpired, originReqs: 2},
			},
		},
		{
			name: "9111/5.3 an invalid Expires means already expired: not stored",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Expires", "0")
				fmt.Fprint(w, body(n))
			},
			opts: cache.Options{Valid: valid60},
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1},
				{cache: cache.StatusMiss, body: "v2", originReqs: 2},
			},
		},
		{
			name: "9111/5.2.2.5 no-store is never stored",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "no-store, max-age=60")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1, want: map[string]string{"Cache-Status": "mosaic; fwd=miss; fwd-status=200; detail=no-store"}},
				{cache: cache.StatusMiss, originReqs: 2},
			},
		},
		{
			name: "9111/5.2.2.7 private is not stored by a shared cache",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "private, max-age=60")
				fmt.Fprint(w, body(n))
			},
			steps: []step{{cache: cache.StatusMiss, originReqs: 1}, {cache: cache.StatusMiss, originReqs: 2}},
		},
		{
			name: "9111/5.2.2.7 private=field stores the response without the field",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", `private="X-User", max-age=60`)
				w.Header().Set("X-User", "alice")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1, want: map[string]string{"X-User": "alice"}},
				{cache: cache.StatusHit, originReqs: 1, want: map[string]string{"X-User": ""}},
			},
		},
		{
			name: "9111/5.2.2.4 no-cache is stored but validated before every reuse",
			opts: cache.Options{Revalidate: true},
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "no-cache")
				w.Header().Set("ETag", `"e1"`)
				if r.Header.Get("If-None-Match") == `"e1"` {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, body: "v1", originReqs: 1},
				{cache: cache.StatusRevalidated, body: "v1", originReqs: 2},
				{cache: cache.StatusRevalidated, body: "v1", originReqs: 3},
			},
		},
		{
			name: "nginx: Set-Cookie prevents storing",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Set-Cookie", "id=1")
				fmt.Fprint(w, body(n))
			},
			steps: []step{{cache: cache.StatusMiss, originReqs: 1}, {cache: cache.StatusMiss, originReqs: 2}},
		},
		{
			name: "nginx: proxy_ignore_headers Set-Cookie stores, without sharing the cookie",
			opts: cache.Options{IgnoreHeaders: []string{"Set-Cookie"}},
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Set-Cookie", "id=1")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1, want: map[string]string{"Set-Cookie": "id=1"}},
				{cache: cache.StatusHit, originReqs: 1, want: map[string]string{"Set-Cookie": ""}},
			},
		},
		{
			name: "9111/4.1 Vary: * is never stored",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Vary", "*")
				fmt.Fprint(w, body(n))
			},
			steps: []step{{cache: cache.StatusMiss, originReqs: 1}, {cache: cache.StatusMiss, originReqs: 2}},
		},
		{
			name: "9111/4.1 Vary selects a variant per request header value",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Vary", "Accept-Language")
				fmt.Fprint(w, r.Header.Get("Accept-Language"))
			},
			steps: []step{
				{header: []string{"Accept-Language", "en"}, cache: cache.StatusMiss, body: "en", originReqs: 1},
				{header: []string{"Accept-Language", "fr"}, cache: cache.StatusMiss, body: "fr", originReqs: 2},
				{header: []string{"Accept-Language", "en"}, cache: cache.StatusHit, body: "en", originReqs: 2},
				{header: []string{"Accept-Language", "fr"}, cache: cache.StatusHit, body: "fr", originReqs: 2},
			},
		},
		{
			name: "Vary: Accept-Encoding is keyed on the normalised coding set",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Vary", "Accept-Encoding")
				fmt.Fprint(w, "[", r.Header.Get("Accept-Encoding"), "]")
			},
			steps: []step{
				{header: []string{"Accept-Encoding", "gzip, deflate, br"}, cache: cache.StatusMiss, body: "[br,deflate,gzip]", originReqs: 1},
				{header: []string{"Accept-Encoding", "br;q=1.0, gzip;q=0.8, deflate, sdch"}, cache: cache.StatusHit, body: "[br,deflate,gzip]", originReqs: 1},
				{header: []string{"Accept-Encoding", "gzip;q=0, identity"}, cache: cache.StatusMiss, body: "[]", originReqs: 2},
				{header: []string{"Accept-Encoding", "identity"}, cache: cache.StatusHit, body: "[]", originReqs: 2},
			},
		},
		{
			name: "9111/3.5 a response to an authorized request is not shared",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{header: []string{"Authorization", "Basic YTpi"}, cache: cache.StatusMiss, originReqs: 1},
				{cache: cache.StatusMiss, originReqs: 2},
			},
		},
		{
			name: "9111/3.5 public lets an authorized response be shared",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "public, max-age=60")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{header: []string{"Authorization", "Basic YTpi"}, cache: cache.StatusMiss, originReqs: 1},
				{cache: cache.StatusHit, body: "v1", originReqs: 1},
			},
		},
		{
			name: "9111/3.5 s-maxage lets an authorized response be shared",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "s-maxage=60")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{header: []string{"Authorization", "Basic YTpi"}, cache: cache.StatusMiss, originReqs: 1},
				{cache: cache.StatusHit, body: "v1", originReqs: 1},
			},
		},
		{
			name: "9111/5.1 Age is sent on every hit",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=100")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1, want: map[string]string{"Age": ""}},
				{advance: 30 * time.Second, cache: cache.StatusHit, originReqs: 1, want: map[string]string{"Age": "30"}},
			},
		},
		{
			name: "9111/4.2.3 the upstream's Age counts against freshness",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Age", "50")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1},
				{advance: 5 * time.Second, cache: cache.StatusHit, originReqs: 1, want: map[string]string{"Age": "55"}},
				{advance: 6 * time.Second, cache: cache.StatusExpired, originReqs: 2},
			},
		},
		{
			name: "nginx: X-Accel-Expires overrides Cache-Control and is not passed on",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "private, max-age=1")
				w.Header().Set("X-Accel-Expires", "100")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1, want: map[string]string{"X-Accel-Expires": "", "Cache-Control": "private, max-age=1"}},
				{advance: 50 * time.Second, cache: cache.StatusHit, originReqs: 1, want: map[string]string{"X-Accel-Expires": ""}},
				{advance: 51 * time.Second, cache: cache.StatusExpired, originReqs: 2},
			},
		},
		{
			name: "nginx: X-Accel-Expires: 0 disables caching",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("X-Accel-Expires", "0")
				fmt.Fprint(w, body(n))
			},
			steps: []step{{cache: cache.StatusMiss, originReqs: 1}, {cache: cache.StatusMiss, originReqs: 2}},
		},
		{
			name: "nginx: proxy_cache_valid gives a lifetime per status",
			opts: cache.Options{Valid: []cache.Valid{{Codes: []int{404}, TTL: time.Minute}}},
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusNotFound)
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{status: 404, cache: cache.StatusMiss, originReqs: 1},
				{status: 404, cache: cache.StatusHit, body: "v1", originReqs: 1},
				{advance: 61 * time.Second, status: 404, cache: cache.StatusExpired, body: "v2", originReqs: 2},
			},
		},
		{
			name: "9111/4.2.2 no explicit lifetime and no valid rule: not stored (no heuristics)",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")
				fmt.Fprint(w, body(n))
			},
			steps: []step{{cache: cache.StatusMiss, originReqs: 1}, {cache: cache.StatusMiss, originReqs: 2}},
		},
		{
			name: "9111/4.3.4 a 304 on revalidation refreshes the entry and merges its header",
			opts: cache.Options{Revalidate: true},
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=10")
				w.Header().Set("ETag", `"e1"`)
				w.Header().Set("X-Version", body(n))
				if r.Header.Get("If-None-Match") == `"e1"` {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, body: "v1", originReqs: 1},
				{advance: 20 * time.Second, cache: cache.StatusRevalidated, body: "v1", originReqs: 2, want: map[string]string{"X-Version": "v2"}},
				{advance: 5 * time.Second, cache: cache.StatusHit, body: "v1", originReqs: 2, want: map[string]string{"X-Version": "v2"}},
			},
		},
		{
			name: "9111/4.3.1 Last-Modified is revalidated with If-Modified-Since",
			opts: cache.Options{Revalidate: true},
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=10")
				w.Header().Set("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")
				if r.Header.Get("If-Modified-Since") == "Mon, 01 Jan 2024 00:00:00 GMT" {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, body: "v1", originReqs: 1},
				{advance: 20 * time.Second, cache: cache.StatusRevalidated, body: "v1", originReqs: 2},
			},
		},
		{
			// NGINX reads the entry's Last-Modified with
			// ngx_parse_http_time, which needs no "GMT", and sends it
			// back as an IMF-fixdate.
			name: "9111/4.3.1 a Last-Modified without GMT is revalidated as NGINX reads it",
			opts: cache.Options{Revalidate: true},
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=10")
				w.Header().Set("Last-Modified", "Mon, 01 Jan 2024 00:00:00")
				if r.Header.Get("If-Modified-Since") == "Mon, 01 Jan 2024 00:00:00 GMT" {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, body: "v1", originReqs: 1},
				{advance: 20 * time.Second, cache: cache.StatusRevalidated, body: "v1", originReqs: 2},
			},
		},
		{
			name: "9111/4.3.3 a full response to a revalidation replaces the entry",
			opts: cache.Options{Revalidate: true},
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=10")
				w.Header().Set("ETag", `"`+body(n)+`"`)
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, body: "v1", originReqs: 1},
				{advance: 20 * time.Second, cache: cache.StatusExpired, body: "v2", originReqs: 2},
				{cache: cache.StatusHit, body: "v2", originReqs: 2},
			},
		},
		{
			name: "5861/3 stale-while-revalidate serves stale and refreshes in the background",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=10, stale-while-revalidate=60")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, body: "v1", originReqs: 1},
				{advance: 20 * time.Second, cache: cache.StatusStale, body: "v1", waitBG: true, originReqs: 2},
				{cache: cache.StatusHit, body: "v2", originReqs: 2},
				{advance: 100 * time.Second, cache: cache.StatusExpired, body: "v3", originReqs: 3},
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
				w.Header().Set("Cache-Control", "max-age=10, stale-if-error=60")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, body: "v1", originReqs: 1},
				{advance: 20 * time.Second, cache: cache.StatusStale, body: "v1", originReqs: 2},
				{advance: 60 * time.Second, status: 500, cache: cache.StatusExpired, body: "broken", originReqs: 3},
			},
		},
		{
			name: "9111/5.2.2.2 must-revalidate: 504 instead of stale when the origin is unreachable",
			opts: cache.Options{UseStale: cache.StaleError | cache.StaleTimeout},
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				if n > 1 {
					hangUp(w)
					return
				}
				w.Header().Set("Cache-Control", "max-age=10, must-revalidate")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, body: "v1", originReqs: 1},
				{advance: 20 * time.Second, status: 504, originReqs: 2},
			},
		},
		{
			name: "nginx: proxy_cache_use_stale error serves stale when the origin is unreachable",
			opts: cache.Options{UseStale: cache.StaleError},
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				if n > 1 {
					hangUp(w)
					return
				}
				w.Header().Set("Cache-Control", "max-age=10")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, body: "v1", originReqs: 1},
				{advance: 20 * time.Second, cache: cache.StatusStale, body: "v1", originReqs: 2},
			},
		},
		{
			name: "nginx: proxy_cache_use_stale http_500 serves stale on a 500",
			opts: cache.Options{UseStale: cache.StaleHTTP500},
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				if n > 1 {
					w.WriteHeader(http.StatusInternalServerError)
					return
				}
				w.Header().Set("Cache-Control", "max-age=10")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, body: "v1", originReqs: 1},
				{advance: 20 * time.Second, cache: cache.StatusStale, body: "v1", originReqs: 2},
			},
		},
		{
			name: "9111/5.2.1.7 only-if-cached answers 504 without asking the origin",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{header: []string{"Cache-Control", "only-if-cached"}, status: 504, originReqs: 0},
				{cache: cache.StatusMiss, originReqs: 1},
				{header: []string{"Cache-Control", "only-if-cached"}, cache: cache.StatusHit, body: "v1", originReqs: 1},
			},
		},
		{
			name: "9111/5.2.1.5 a request with no-store is not stored",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{header: []string{"Cache-Control", "no-store"}, cache: cache.StatusMiss, originReqs: 1},
				{cache: cache.StatusMiss, originReqs: 2},
				{cache: cache.StatusHit, originReqs: 2},
			},
		},
		{
			name: "nginx: a HEAD miss is filled with a GET, which later GETs hit",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				fmt.Fprint(w, r.Method)
			},
			steps: []step{
				{method: http.MethodHead, cache: cache.StatusMiss, body: "", originReqs: 1, want: map[string]string{"Content-Length": "3"}},
				{cache: cache.StatusHit, body: "GET", originReqs: 1},
				{method: http.MethodHead, cache: cache.StatusHit, body: "", originReqs: 1},
			},
		},
		{
			name: "9111/4.4 a successful unsafe request invalidates the URI",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1},
				{cache: cache.StatusHit, originReqs: 1},
				{method: http.MethodPost, originReqs: 2},
				{cache: cache.StatusMiss, body: "v3", originReqs: 3},
			},
		},
		{
			name: "9111/4.3.2 a conditional request is answered 304 from the cache",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("ETag", `W/"e1"`)
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{header: []string{"If-None-Match", `"e1"`}, status: 304, cache: cache.StatusMiss, originReqs: 1},
				{header: []string{"If-None-Match", `"e1"`}, status: 304, cache: cache.StatusHit, originReqs: 1},
				{header: []string{"If-None-Match", `"e2"`}, cache: cache.StatusHit, body: "v1", originReqs: 1},
			},
		},
		{
			name: "9110/14.2 Range is not sent upstream; the whole response is stored, the range answered from it",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Accept-Ranges", "bytes")
				fmt.Fprint(w, "range=", r.Header.Get("Range"))
			},
			steps: []step{
				{header: []string{"Range", "bytes=0-1"}, status: http.StatusPartialContent, cache: cache.StatusMiss, body: "ra", originReqs: 1},
				{cache: cache.StatusHit, body: "range=", originReqs: 1},
			},
		},
	}

	runRules(t, rules)
	if len(rules) < 25 {
		t.Fatalf("only %d rules", len(rules))
	}
}

// runRules runs each rule in parallel, against its own origin and cache.
func runRules(t *testing.T, rules []rule) {
	t.Helper()
	for _, rl := range rules {
		t.Run(rl.name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			var o *origin
			o = newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Date", clk.Now().UTC().Format(http.TimeFormat))
				rl.origin(o.hits.Load(), w, r)
			})
			f := newFrontClock(t, o, rl.opts, clk)
			for i, s := range rl.steps {
				clk.Advance(s.advance)
				method := s.method
				if method == "" {
					method = http.MethodGet
				}
				got := f.do(t, method, "/r", s.header...)
				if s.waitBG {
					cache.WaitBackground(f.cache)
				}
				want := s.status
				if want == 0 {
					want = http.StatusOK
				}
				if got.status != want {
					t.Errorf("step %d: status %d, want %d", i, got.status, want)
				}
				if s.cache != "" && got.cacheStatus() != s.cache {
					t.Errorf("step %d: cache status %q, want %q (Cache-Status %q)", i, got.cacheStatus(), s.cache, got.header.Get("Cache-Status"))
				}
				if s.body != "" && got.body != s.body {
					t.Errorf("step %d: body %q, want %q", i, got.body, s.body)
				}
				for k, v := range s.want {
					if g := got.header.Get(k); g != v {
						t.Errorf("step %d: header %s = %q, want %q", i, k, g, v)
					}
				}
				if n := o.hits.Load(); n != s.originReqs {
					t.Errorf("step %d: origin saw %d requests, want %d", i, n, s.originReqs)
				}
			}
		})
	}
}
