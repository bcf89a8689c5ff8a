package compress

import (
	"net/http"
	"testing"
)

// TestProxiedExpiredStrictDates: gzip_proxied expired reads Expires and
// Date as strict HTTP-dates; an Expires net/http would read leniently
// (doubled spaces) is no date, so the response does not count as expired.
func TestProxiedExpiredStrictDates(t *testing.T) {
	r, _ := http.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Via", "1.1 proxy")
	for expires, want := range map[string]bool{
		"Thu, 01 Jan 1970 00:00:01 GMT":   true,
		"thu, 01 jan 1970 00:00:01 gmt":   true,
		"Thu, 01  Jan  1970 00:00:01 GMT": false,
		"Thu, 01 Jan 1970 0:00:01 GMT":    false,
	} {
		h := http.Header{"Expires": {expires}}
		if got := proxiedAllowed(ProxiedExpired, r, h); got != want {
			t.Errorf("Expires %q: compressed %v, want %v", expires, got, want)
		}
	}
}
