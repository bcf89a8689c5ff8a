package main

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// varyOfLen is a Vary value of exactly n bytes (n > 19): Accept-Language
// and one made-up field name that pads it.
func varyOfLen(n int) string {
	const head = "Accept-Language, X-"
	return head + strings.Repeat("p", n-len(head))
}

// TestCacheVaryLengthBoundAsNGINX: NGINX keeps every variant of a key as
// an entry of its own (TestCacheLockPerVariantAsNGINX), bounded by the
// zone like any other entry, and bounds what one response may make vary
// instead: NGINX 1.22 does not store a response with a Vary line longer
// than 128 bytes (ngx_http_upstream_process_vary, NGX_HTTP_CACHE_VARY_LEN),
// whichever line it is; lines of 128 bytes or less are stored, whatever
// their sum.
func TestCacheVaryLengthBoundAsNGINX(t *testing.T) {
	nginxPath(t)
	o := newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		l, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/v"))
		v := varyOfLen(l)
		switch r.URL.RawQuery {
		case "split": // two lines, 129 bytes together, neither over 128
			w.Header()["Vary"] = []string{"Accept-Language", v[len("Accept-Language, "):]}
		case "second": // the long line second
			w.Header()["Vary"] = []string{"Accept-Language", v}
		default:
			w.Header().Set("Vary", v)
		}
		fmt.Fprintf(w, "%s v%d", r.URL.RequestURI(), n)
	})
	mport, nport := startCacheBoth(t, o, `location / { proxy_pass http://{origin}; }`)
	var reqs [][]string
	for _, p := range []string{"/v128", "/v129", "/v129?split", "/v129?second", "/v128?second"} {
		for range 2 {
			reqs = append(reqs, []string{p, "Accept-Language", "en"})
		}
	}
	sameSequence(t, mport, nport, reqs)
}
