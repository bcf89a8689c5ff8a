package compress

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
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
		if got := proxiedAllowed(ProxiedExpired, nil, r, h, false); got != want {
			t.Errorf("Expires %q: compressed %v, want %v", expires, got, want)
		}
	}
}

// clockWriter is a server's writer that keeps the time of its response.
type clockWriter struct {
	http.ResponseWriter
	at time.Time
}

func (w clockWriter) ResponseTime() time.Time { return w.at }

type wrapper struct{ http.ResponseWriter }

func (w wrapper) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestProxiedExpiredResponseTime: a response without Date is expired by
// the time its Date goes out with, which the server's writer keeps, found
// through the writers that wrap it; an Expires of that second ("expires
// 0") is not expired, as in NGINX, though the clock has moved on since.
func TestProxiedExpiredResponseTime(t *testing.T) {
	r, _ := http.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Via", "1.1 proxy")
	at := time.Date(2026, 1, 2, 10, 0, 0, 999_999_999, time.UTC)
	w := wrapper{clockWriter{httptest.NewRecorder(), at}}
	for expires, want := range map[string]bool{
		"Fri, 02 Jan 2026 10:00:00 GMT": false,
		"Fri, 02 Jan 2026 09:59:59 GMT": true,
	} {
		h := http.Header{"Expires": {expires}}
		if got := proxiedAllowed(ProxiedExpired, w, r, h, false); got != want {
			t.Errorf("Expires %q at %v: compressed %v, want %v", expires, at, got, want)
		}
	}
}
