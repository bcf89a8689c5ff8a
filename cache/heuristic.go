package cache

import (
	"net/http"
	"time"
)

// Heuristic freshness (RFC 9111 section 4.2.2): a tenth of the time since
// Last-Modified, at most a day.
const (
	HeuristicFraction = 10 // the lifetime is 1/HeuristicFraction of Date - Last-Modified
	HeuristicMax      = 24 * time.Hour
)

// heuristicLifetime is the heuristic lifetime of a response dated date,
// and false when it has no usable Last-Modified.
func heuristicLifetime(h http.Header, date time.Time) (time.Duration, bool) {
	t, ok := fieldDate(h["Last-Modified"])
	if !ok {
		return 0, false
	}
	return min(max(date.Sub(t), 0)/HeuristicFraction, HeuristicMax), true
}
