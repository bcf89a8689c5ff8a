package cache

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/httpdate"
)

// fieldDate reads a date field that takes one HTTP-date (Date, Expires,
// Last-Modified). Several lines are invalid, as a list of dates cannot
// be: for Expires that means "already expired" (RFC 9111 section 5.3).
func fieldDate(vv []string) (time.Time, bool) {
	if len(vv) != 1 {
		return time.Time{}, false
	}
	return httpdate.Parse(vv[0])
}

// ensureDate gives a response header the Date it must carry when it is
// cached or forwarded (RFC 9110 section 6.6.1): a recipient adds one when
// it is missing and may replace an invalid one, with the time it received
// the response. A valid Date, the origin's clock, is kept: it is the
// date_value of RFC 9111 section 4.2.3, and a hit must not change it.
func ensureDate(h http.Header, received time.Time) {
	if _, ok := fieldDate(h["Date"]); ok {
		return
	}
	h["Date"] = []string{header.FormatDate(received)}
}

// ageValue is the Age the response arrived with (RFC 9111 section 5.1).
// Age is a single number, but a list of them (on one line or several,
// "7200, 0") is read as its first member, as intermediaries that append
// their own value produce; a first member that is not a non-negative
// integer makes the field invalid, and it is then ignored.
func ageValue(h http.Header) time.Duration {
	vv := h["Age"]
	if len(vv) == 0 {
		return 0
	}
	first, _ := nextListItem(vv[0])
	n, err := strconv.ParseInt(first, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return seconds(n)
}

// seconds converts a non-negative number of seconds (delta-seconds,
// X-Accel-Expires) to a Duration. RFC 9111 section 1.2.2: a value past
// what the cache can represent is taken as the greatest it can, which
// means "forever" in practice; multiplying would wrap it to a negative
// or short lifetime instead.
func seconds(n int64) time.Duration {
	const maxSeconds = math.MaxInt64 / int64(time.Second)
	return time.Duration(min(n, maxSeconds)) * time.Second
}

// addSat adds two durations, saturating at the bounds of a Duration
// instead of wrapping. Ages and lifetimes can be near the largest
// Duration (see seconds), and RFC 9111 section 1.2.2 asks that a
// calculation that overflows give the greatest value, not a wrapped one.
func addSat(a, b time.Duration) time.Duration {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}
