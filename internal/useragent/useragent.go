// Package useragent tells the browsers apart that NGINX treats specially
// from their User-Agent field, by the substrings NGINX looks for: old
// MSIE, which gzip_disable msie6 and keepalive_disable msie6 name, and
// Safari on macOS, which keepalive_disable safari names.
package useragent

import "strings"

// MSIE6 reports MSIE 4, 5 or 6 (6 without the SV1 of its Windows XP SP2
// build), not Opera in disguise.
func MSIE6(ua string) bool {
	i := strings.Index(ua, "MSIE ")
	if i < 0 || i+7 >= len(ua) || ua[i+6] != '.' || strings.Contains(ua, "Opera") {
		return false
	}
	switch ua[i+5] {
	case '4', '5':
		return true
	case '6':
		return !strings.Contains(ua[i+8:], "SV1")
	}
	return false
}

// Safari reports Safari on macOS: "Safari/" and "Mac OS X", from a browser
// that does not also say MSIE, Opera, "Gecko/" or "Chrome/" (which come
// first in NGINX's tests: Chrome's field says Safari too).
func Safari(ua string) bool {
	if i := strings.Index(ua, "MSIE "); i >= 0 && i+7 < len(ua) {
		return false
	}
	for _, other := range []string{"Opera", "Gecko/", "Chrome/"} {
		if strings.Contains(ua, other) {
			return false
		}
	}
	return strings.Contains(ua, "Safari/") && strings.Contains(ua, "Mac OS X")
}
