// Package useragent tells the browsers apart that NGINX treats specially
// from their User-Agent field, by the substrings NGINX looks for, in its
// order: MSIE (msie_padding, msie_refresh) and old MSIE (gzip_disable
// msie6, keepalive_disable msie6), then for other browsers Gecko, Chrome
// (msie_padding) and Safari on macOS (keepalive_disable safari).
package useragent

import "strings"

// msieAt is where "MSIE " starts when at least two bytes follow it, as
// NGINX wants them, else -1.
func msieAt(ua string) int {
	if i := strings.Index(ua, "MSIE "); i >= 0 && i+7 < len(ua) {
		return i
	}
	return -1
}

// MSIE reports MSIE of any version, not Opera in disguise.
func MSIE(ua string) bool {
	return msieAt(ua) >= 0 && !strings.Contains(ua, "Opera")
}

// MSIE6 reports MSIE 4, 5 or 6 (6 without the SV1 of its Windows XP SP2
// build), not Opera in disguise.
func MSIE6(ua string) bool {
	i := msieAt(ua)
	if i < 0 || ua[i+6] != '.' || strings.Contains(ua, "Opera") {
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

// Chrome reports "Chrome/" from a browser that does not also say MSIE,
// Opera or "Gecko/" (Chrome's own field says "like Gecko)" only).
func Chrome(ua string) bool { return engine(ua) == "Chrome/" }

// Safari reports Safari on macOS: "Safari/" and "Mac OS X", from a browser
// that does not also say MSIE, Opera, "Gecko/" or "Chrome/" (which come
// first in NGINX's tests: Chrome's field says Safari too).
func Safari(ua string) bool { return engine(ua) == "Safari/" }

// engine is the first of NGINX's marks that a browser other than MSIE
// and Opera carries: "Gecko/", "Chrome/", "Safari/" (with "Mac OS X"), or
// "" for none of them.
func engine(ua string) string {
	if msieAt(ua) >= 0 || strings.Contains(ua, "Opera") {
		return ""
	}
	for _, mark := range []string{"Gecko/", "Chrome/"} {
		if strings.Contains(ua, mark) {
			return mark
		}
	}
	if strings.Contains(ua, "Safari/") && strings.Contains(ua, "Mac OS X") {
		return "Safari/"
	}
	return ""
}
