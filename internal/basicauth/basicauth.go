// Package basicauth reads Basic credentials as NGINX does. It is shared
// by auth (auth_basic) and vars ($remote_user), so that the user
// auth_basic lets in is the user logged and passed on; it lives apart
// from auth because a library must not import another (modules'
// TestLayers), and vars is imported by every library.
package basicauth

import (
	"encoding/base64"
	"strings"
)

// Credentials reads a Basic Authorization header value as NGINX does
// (ngx_http_auth_basic_user): "Basic" (any case), one or more spaces,
// then base64 of "user:password" with a non-empty user. ok is false
// otherwise.
func Credentials(authorization string) (user, password string, ok bool) {
	const prefix = "basic "
	if len(authorization) < len(prefix) || !strings.EqualFold(authorization[:len(prefix)], prefix) {
		return "", "", false
	}
	encoded := strings.TrimLeft(authorization[len(prefix):], " ")
	if encoded == "" {
		return "", "", false
	}
	decoded, ok := DecodeBase64(encoded)
	if !ok {
		return "", "", false
	}
	user, password, found := strings.Cut(string(decoded), ":")
	if !found || user == "" {
		return "", "", false
	}
	return user, password, true
}

// DecodeBase64 decodes s as NGINX's ngx_decode_base64 does: the standard
// alphabet, padding optional, everything from the first "=" ignored.
func DecodeBase64(s string) ([]byte, bool) {
	if i := strings.IndexByte(s, '='); i >= 0 {
		s = s[:i]
	}
	// Go's decoder skips line breaks, which NGINX's refuses.
	if len(s)%4 == 1 || strings.ContainsAny(s, "\r\n") {
		return nil, false
	}
	b, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil {
		return nil, false
	}
	return b, true
}
