package headers

import (
	"net/http"
	"testing"
	"time"
)

// TestExpiresModifiedStrictDate: "expires modified" reads Last-Modified as
// NGINX's ngx_parse_http_time does; one with doubled spaces, which
// net/http would read, is no date, nor is NGINX's error time -1, and the
// time counts from the request as without one; one without "GMT" (an
// origin's, proxied) is a date.
func TestExpiresModifiedStrictDate(t *testing.T) {
	now := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct{ lastMod, cacheControl string }{
		{"Wed, 31  Dec  2025 00:00:00 GMT", "max-age=3600"},
		{"Wed, 31 Dec 1969 23:59:59 GMT", "max-age=3600"},
		{"Fri, 02 Jan 2026 09:30:00", "max-age=1800"},
	} {
		h := http.Header{"Last-Modified": {c.lastMod}}
		setExpires(h, Expires{Mode: ExpiresModified, D: time.Hour}, now)
		if got := h.Get("Cache-Control"); got != c.cacheControl {
			t.Errorf("Last-Modified %q: Cache-Control %q, want %q", c.lastMod, got, c.cacheControl)
		}
	}
}
