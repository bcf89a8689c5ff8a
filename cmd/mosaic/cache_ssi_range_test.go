package main

import (
	"fmt"
	"net/http"
	"testing"
)

// TestCacheRangeUnderSSI: with ssi on, a Range request to a caching
// location gets the whole processed page, on the miss that fills the
// entry and on the hit, never a range of the unprocessed stored body.
func TestCacheRangeUnderSSI(t *testing.T) {
	t.Parallel()
	o := newCacheOrigin(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `head <!--# echo var="request_method" --> tail`)
	})
	port := freePort(t)
	startMosaic(t, t.TempDir(), `http {
    access_log off;
    proxy_cache_path memory keys_zone=ssirange:1m;
    server {
        listen 127.0.0.1:{port};
        add_header X-Cache $upstream_cache_status always;
        location / { ssi on; proxy_pass http://`+o.addr()+`; proxy_cache ssirange; }
    }
}`, port)
	url := fmt.Sprintf("http://127.0.0.1:%d/page", port)
	for _, want := range []string{"MISS", "HIT"} {
		got := cacheDo(t, http.MethodGet, url, "Range", "bytes=0-7")
		if got.status != http.StatusOK || got.body != "head GET tail" || got.cacheStatus() != want || got.header.Get("Content-Range") != "" {
			t.Errorf("%s: %d %q Content-Range %q, want 200 %q with the whole processed page",
				want, got.status, got.body, got.header.Get("Content-Range"), "head GET tail")
		}
	}
	o.waitHits(t, 1, "range under ssi")
}
