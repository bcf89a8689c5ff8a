package compress

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// compressibleStatus reports the statuses NGINX and ngx_brotli compress. Other
// responses are left alone: 1xx, 204 and 304 have no body, 206 is a range of
// the identity representation, and the rest are mostly short error pages or
// redirects.
func compressibleStatus(code int) bool {
	return code == http.StatusOK || code == http.StatusForbidden || code == http.StatusNotFound
}

// declaredLength returns the Content-Length the handler set, or -1.
func declaredLength(h http.Header) int64 {
	v := h["Content-Length"]
	if len(v) != 1 {
		return -1
	}
	return parseLength(v[0])
}

// parseLength reads a Content-Length value, -1 when it is not a length.
// A handler's own value (strconv's) is plain digits, read by
// header.Digits: TrimSpace and ParseInt took about 250 instructions a
// compressed response (compress README, "Around the encoder, a fourth
// look"). Anything else, spaces around it or a sign, goes to them as
// before.
func parseLength(s string) int64 {
	if n, ok := header.Digits(s); ok {
		return n
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// hasTrailers reports whether the handler announced trailers, which only a
// chunked body can carry. One walk looks for both forms: a lookup of the
// absent "Trailer" before it hashed the name (about 146 instructions a
// compressed response; compress README, "Around the encoder, a fifth
// look"), where the walk compares lengths first.
func hasTrailers(h http.Header) bool {
	for k, vv := range h {
		if k == "Trailer" && len(vv) > 0 || strings.HasPrefix(k, http.TrailerPrefix) {
			return true
		}
	}
	return false
}
