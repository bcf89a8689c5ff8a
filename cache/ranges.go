package cache

import (
	"context"
	"io"
	"net/http"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/byterange"
)

// clientRanges decides what a client's Range header asks of a complete 200
// response of size bytes with header h (RFC 9110 section 14): Whole when
// the header is absent or does not apply (not a GET or HEAD, another unit, an
// If-Range that does not match, a response that is itself a range, one
// without Accept-Ranges, one of a type a filter around the cache rebuilds,
// ranges turned off or more of them than max_ranges allows, or than one
// when single), or when its ranges are not in ascending order without
// overlaps, which section 14.2 lets a server ignore and which a body read
// once from the start cannot give.
//
// Accept-Ranges (any value) and single are NGINX's rule: its upstream
// module allows ranges of a proxied response only when the upstream's
// header has that field (ngx_http_upstream_copy_allow_ranges), several
// when served from the cache, one while it fills it. Its range filter
// answers a HEAD as a GET, as mosaic's static files do.
func (c *Cache) clientRanges(r *http.Request, h http.Header, size int64, single bool) ([]byterange.Range, byterange.Verdict) {
	v := r.Header["Range"]
	if len(v) == 0 || (r.Method != http.MethodGet && r.Method != http.MethodHead) || len(h["Content-Range"]) > 0 || len(h["Accept-Ranges"]) == 0 ||
		c.maxRanges < 0 || (c.transformed != nil && c.transformed(h.Get("Content-Type"))) {
		return nil, byterange.Whole
	}
	limit := c.maxRanges
	if single {
		limit = 1
	}
	spec, ok := byterange.Spec(v[0])
	if !ok {
		return nil, byterange.Whole
	}
	if ir := r.Header["If-Range"]; len(ir) > 0 && !ifRangeMatches(strings.TrimSpace(ir[0]), h) {
		return nil, byterange.Whole
	}
	ranges, verdict := byterange.Parse(spec, size, limit, nil)
	for i := 1; i < len(ranges); i++ {
		if ranges[i].Start < ranges[i-1].End {
			return nil, byterange.Whole
		}
	}
	return ranges, verdict
}

// acceptRanges gives h, the header of a response the cache answers with
// status (size bytes, -1 when unknown), the Accept-Ranges NGINX gives
// one: its upstream module keeps the upstream's field off a response it
// serves from the cache or may store (ngx_http_upstream_copy_allow_ranges
// only allows ranges then), and its range filter says "bytes" on a 200
// sent whole, of known length, when the upstream offered ranges (any
// value), ranges are on and no filter around rebuilds the type.
func (c *Cache) acceptRanges(h http.Header, status int, size int64, offered bool) {
	if status != http.StatusOK || size < 0 || !offered || c.maxRanges < 0 ||
		(c.transformed != nil && c.transformed(h.Get("Content-Type"))) {
		delete(h, "Accept-Ranges")
		return
	}
	h["Accept-Ranges"] = []string{"bytes"}
}

// ifRangeMatches is byterange.IfRangeMatches.
func ifRangeMatches(v string, h http.Header) bool { return byterange.IfRangeMatches(v, h) }

// setRangeHeader is byterange.SetHeader.
func setRangeHeader(ctx context.Context, h http.Header, ranges []byterange.Range, size int64, w io.Writer) *rangeWriter {
	return byterange.SetHeader(ctx, h, ranges, size, w)
}

type rangeWriter = byterange.Writer

const notSatisfiableBody = byterange.NotSatisfiableBody
