package main

import (
	"fmt"
	"testing"
)

// TestCacheRangeRefusedFieldsAsNGINX: NGINX's 416 for a range past the
// end of a cached 200 is its special response, which clears only the
// length, Accept-Ranges, Last-Modified and ETag and sets its own type
// (ngx_http_send_special_response): the stored Content-Language and
// Content-Disposition stay. mosaic's dropped them.
func TestCacheRangeRefusedFieldsAsNGINX(t *testing.T) {
	mport, nport := startBothSite(t, t.TempDir(), func(sub string, port, bport int) string {
		return fmt.Sprintf(`proxy_cache_path %[1]s/cache keys_zone=z:1m;
			server { listen 127.0.0.1:%[3]d; root %[1]s/site;
				add_header Content-Language de; add_header Content-Disposition attachment;
				add_header Content-Location /a.txt; expires 1h; }
			server { listen 127.0.0.1:%[2]d; root %[1]s/site;
				proxy_cache z; proxy_cache_valid 1h;
				location /c/ { proxy_pass http://127.0.0.1:%[3]d/; } }`,
			sub, port, bport)
	})
	keys := []string{"Content-Language", "Content-Disposition", "Content-Location", "Content-Range",
		"Content-Type", "Cache-Control", "Etag", "Last-Modified", "Accept-Ranges"}
	// A miss, then a hit, then a hit's 206 (unchanged).
	for _, rng := range []string{"bytes=100-", "bytes=100-", "bytes=1-2"} {
		req := fmt.Sprintf("GET /c/a.txt HTTP/1.1\r\nHost: a.test\r\nRange: %s\r\nConnection: close\r\n\r\n", rng)
		m := answerFields(t, sendUntilClosed(t, mport, req), keys...)
		n := answerFields(t, sendUntilClosed(t, nport, req), keys...)
		if m != n {
			t.Errorf("Range: %s\nmosaic %s\nNGINX  %s", rng, m, n)
		}
	}
}
