package headers

import (
	"net/http"
	"testing"
	"time"
)

// TestExpiresModifiedStrictDate: "expires modified" reads Last-Modified as
// a strict HTTP-date; one with doubled spaces, which net/http would read,
// is no date, and the time counts from the request as without one.
func TestExpiresModifiedStrictDate(t *testing.T) {
	now := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	h := http.Header{"Last-Modified": {"Wed, 31  Dec  2025 00:00:00 GMT"}}
	setExpires(h, Expires{Mode: ExpiresModified, D: time.Hour}, now)
	if h.Get("Cache-Control") != "max-age=3600" {
		t.Errorf("an invalid Last-Modified counted: %v", h)
	}
}
