package percent

import "strings"

// ParseUnsafeURI splits a URI that a response or a header names (an
// X-Accel-Redirect, a WebDAV Destination) as NGINX does
// (ngx_http_parse_unsafe_uri): the arguments after the first "?", the
// path percent-decoded, and a value that is empty, starts with "?",
// climbs with ".." or holds a NUL refused (ok false). The checks
// look at the value as NGINX's do: before decoding, a ".." segment is
// one that a "/" or the end of the whole value follows (so "/a/..?x"
// passes); after, one that ends the path or a "/" follows.
func ParseUnsafeURI(v string) (path, args string, ok bool) {
	if v == "" || v[0] == '?' || dotdotAt(v, 0) {
		return "", "", false
	}
	path, quoted := v, false
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '%':
			quoted = true
		case 0:
			return "", "", false
		case '?':
			path, args = v[:i], v[i+1:]
			i = len(v)
		case '/':
			if dotdotAt(v, i+1) {
				return "", "", false
			}
		}
	}
	if !quoted {
		return path, args, true
	}
	path = Unescape(path)
	// An escape cut short leaves nothing of "%": no path to serve.
	if path == "" || dotdotAt(path, 0) || strings.IndexByte(path, 0) >= 0 {
		return "", "", false
	}
	for i := 0; i < len(path); i++ {
		if path[i] == '/' && dotdotAt(path, i+1) {
			return "", "", false
		}
	}
	return path, args, true
}

// dotdotAt reports a ".." segment at s[i:]: ".." that ends s or that a
// "/" follows.
func dotdotAt(s string, i int) bool {
	return strings.HasPrefix(s[i:], "..") && (len(s) == i+2 || s[i+2] == '/')
}
