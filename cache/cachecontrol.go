package cache

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// cacheControl holds the Cache-Control directives a shared cache acts on.
// A delta-seconds of -1 means the directive is absent.
type cacheControl struct {
	noStore, noCache, private, public  bool
	mustRevalidate, proxyRevalidate    bool
	onlyIfCached, mustUnderstand       bool
	maxAge, sMaxAge                    time.Duration
	staleWhileRevalidate, staleIfError time.Duration
	invalidMaxAge                      bool
	noCacheFields, privateFields       []string
}

// parseCacheControl reads every Cache-Control line of h. Unknown
// directives are ignored; a duplicate or malformed max-age/s-maxage makes
// the lifetime invalid, which RFC 9111 section 4.2.1 says to treat as
// stale.
func parseCacheControl(h http.Header) cacheControl {
	cc := cacheControl{maxAge: -1, sMaxAge: -1, staleWhileRevalidate: -1, staleIfError: -1}
	for _, line := range h["Cache-Control"] {
		for line != "" {
			var item string
			item, line = nextListItem(line)
			if item == "" {
				continue
			}
			name, value, hasValue := strings.Cut(item, "=")
			name = strings.ToLower(strings.TrimSpace(name))
			value = strings.Trim(strings.TrimSpace(value), `"`)
			switch name {
			case "no-store":
				cc.noStore = true
			case "no-cache":
				if hasValue && value != "" {
					cc.noCacheFields = append(cc.noCacheFields, splitFieldNames(value)...)
				} else {
					cc.noCache = true
				}
			case "private":
				if hasValue && value != "" {
					cc.privateFields = append(cc.privateFields, splitFieldNames(value)...)
				} else {
					cc.private = true
				}
			case "public":
				cc.public = true
			case "must-revalidate":
				cc.mustRevalidate = true
			case "proxy-revalidate":
				cc.proxyRevalidate = true
			case "only-if-cached":
				cc.onlyIfCached = true
			case "must-understand":
				cc.mustUnderstand = true
			case "max-age":
				setDelta(&cc.maxAge, value, &cc.invalidMaxAge)
			case "s-maxage":
				setDelta(&cc.sMaxAge, value, &cc.invalidMaxAge)
			case "stale-while-revalidate":
				var bad bool
				setDelta(&cc.staleWhileRevalidate, value, &bad)
			case "stale-if-error":
				var bad bool
				setDelta(&cc.staleIfError, value, &bad)
			}
		}
	}
	return cc
}

// nextListItem splits a comma-separated list at the first comma outside a
// quoted string.
func nextListItem(s string) (item, rest string) {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case '\\':
			if quoted {
				i++
			}
		case ',':
			if !quoted {
				return strings.TrimSpace(s[:i]), s[i+1:]
			}
		}
	}
	return strings.TrimSpace(s), ""
}

func splitFieldNames(v string) []string {
	var names []string
	for f := range strings.SplitSeq(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			names = append(names, http.CanonicalHeaderKey(f))
		}
	}
	return names
}

// setDelta parses delta-seconds into *d. A second occurrence or a value
// that is not a number marks the directive invalid.
func setDelta(d *time.Duration, v string, invalid *bool) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || *d >= 0 {
		*invalid = true
		*d = 0
		return
	}
	*d = seconds(n)
}
