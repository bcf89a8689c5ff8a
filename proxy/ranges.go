package proxy

import (
	"io"
	"net/http"
	"strconv"

	"github.com/mosaic-edge/mosaic/internal/byterange"
	"github.com/mosaic-edge/mosaic/internal/header"
)

// forceRanges writes the status and header of resp for ForceRanges and
// returns where its body goes. A 200 of known length answers a single
// byte range with 206, as NGINX's range filter does for an uncached
// response when proxy_force_ranges is on, whatever the method: a HEAD
// gets the 206's header, a POST its range. A range past the end is the
// server's 416 error page, as NGINX answers it, and the body is read
// and dropped. The upstream's Accept-Ranges never passes, and a 200 of
// known length sent whole says "Accept-Ranges: bytes". A response that
// Unranged says a filter rebuilds, and anything else, passes as it is.
func (x *exchange) forceRanges(resp *http.Response) io.Writer {
	h := x.w.Header()
	delete(h, "Accept-Ranges")
	size := declaredLength(resp)
	if resp.StatusCode != http.StatusOK || size < 0 || x.h.unranged != nil && x.h.unranged(x.w, x.r, h) {
		x.w.WriteHeader(resp.StatusCode)
		return x.w
	}
	if v := x.r.Header["Range"]; len(v) > 0 {
		spec, ok := byterange.Spec(v[0])
		if ir := x.r.Header["If-Range"]; ok && len(ir) > 0 {
			ok = byterange.IfRangeMatches(ir[0], h)
		}
		if ok {
			// One range: NGINX's single_range for a response not served
			// from its cache. More get the whole response.
			if ranges, verdict := byterange.Parse(spec, size, 1, nil); verdict != byterange.Whole {
				// add_header and expires act on the 200 that NGINX's
				// range filter then cuts or refuses.
				header.RangeOf200(x.w, h.Get("Last-Modified"), h.Get("Content-Type"))
				rw := byterange.SetHeader(x.r.Context(), h, ranges, size, x.w)
				if rw == nil {
					// SetHeader left Content-Range: bytes */size, which
					// the error page keeps.
					x.h.errorResponse(x.w, x.r, http.StatusRequestedRangeNotSatisfiable)
					return io.Discard
				}
				x.w.WriteHeader(http.StatusPartialContent)
				return rw
			}
		}
	}
	h["Accept-Ranges"] = []string{"bytes"}
	x.w.WriteHeader(resp.StatusCode)
	return x.w
}

// declaredLength is the body length resp declares, -1 when unknown (a
// gateway's response may carry Content-Length that only its header says).
func declaredLength(resp *http.Response) int64 {
	if resp.ContentLength >= 0 {
		return resp.ContentLength
	}
	if v := resp.Header["Content-Length"]; len(v) == 1 {
		if n, err := strconv.ParseInt(v[0], 10, 64); err == nil && n >= 0 {
			return n
		}
	}
	return -1
}
