// Package header holds the helpers for HTTP header field values that
// several modules need.
package header

import (
	"net/http"
	"strings"
)

// Join returns the lines of a header (by canonical name) as one value,
// comma-joined, as NGINX reads most headers and RFC 9110 §5.3 allows.
func Join(h http.Header, key string) string {
	v := h[key]
	switch len(v) {
	case 0:
		return ""
	case 1:
		return v[0]
	}
	return strings.Join(v, ", ")
}

// HasToken reports whether a comma-separated list header (all its lines)
// names token, compared case-insensitively. A member's parameters
// ("no-cache=x", "a;q=1") do not hide its name.
func HasToken(values []string, token string) bool {
	for _, v := range values {
		for v != "" {
			var item string
			item, v, _ = strings.Cut(v, ",")
			if i := strings.IndexAny(item, "=;"); i >= 0 {
				item = item[:i]
			}
			if strings.EqualFold(strings.Trim(item, " \t"), token) {
				return true
			}
		}
	}
	return false
}
