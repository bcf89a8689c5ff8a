package byterange

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/internal/httpdate"
)

// IfRangeMatches applies If-Range (RFC 9110 section 13.1.5): an entity tag
// must equal the response's by the strong comparison, and a date must
// equal its Last-Modified, both read as NGINX reads them
// (httpdate.Conditional), which must be strong: at least a second older
// than its Date.
func IfRangeMatches(v string, h http.Header) bool {
	if strings.HasSuffix(v, `"`) {
		etag := h.Get("Etag")
		return strings.HasPrefix(v, `"`) && etag == v
	}
	t, ok := httpdate.Conditional(v)
	if !ok {
		return false
	}
	// The response's Last-Modified is read as NGINX's upstream module
	// reads it, with the same parser as the request's date.
	lmv := h["Last-Modified"]
	if len(lmv) != 1 {
		return false
	}
	lm, ok := httpdate.Conditional(lmv[0])
	if !ok || lm != t {
		return false
	}
	if d, ok := fieldDate(h["Date"]); ok && d.Unix()-lm < 1 {
		return false
	}
	return true
}

// PartTyper gives the Content-Type that the parts of a request's
// multipart answer name for the type its handler set: NGINX's charset
// filter runs before its range filter, so the parts carry the charset
// it adds to the type (ngx_http_range_multipart_header). A server's
// request context answers PartTypeKey with one.
type PartTyper interface {
	PartType(ctx context.Context, ct string) string
}

// PartTypeKey is the context key of the request's PartTyper.
type PartTypeKey struct{}

// PartType returns the type the parts of ctx's multipart answer name for
// ct: ct itself outside a server that changes it.
func PartType(ctx context.Context, ct string) string {
	if p, ok := ctx.Value(PartTypeKey{}).(PartTyper); ok {
		return p.PartType(ctx, ct)
	}
	return ct
}

// SetHeader turns the header of a complete response of size bytes
// into that of its 206 (ranges) or 416 (no ranges), and returns the writer
// that cuts the ranges out of the complete body written to w. ctx is the
// request's (see PartType).
func SetHeader(ctx context.Context, h http.Header, ranges []Range, size int64, w io.Writer) *Writer {
	if len(ranges) == 0 {
		// NGINX's 416 is its special response, which drops only the
		// length, Accept-Ranges, Last-Modified and ETag and sets its own
		// type (ngx_http_send_special_response): Content-Language,
		// Content-Disposition, Content-Location and Expires stay. The
		// coding goes too, unlike NGINX's: the page is not encoded.
		for _, k := range [...]string{"Content-Type", "Content-Encoding", "Etag", "Last-Modified", "Accept-Ranges"} {
			delete(h, k)
		}
		h["Content-Range"] = []string{"bytes */" + strconv.FormatInt(size, 10)}
		h["Content-Type"] = []string{"text/plain; charset=utf-8"}
		h["Content-Length"] = []string{strconv.Itoa(len(NotSatisfiableBody))}
		return nil
	}
	rw := &Writer{w: w, ranges: ranges}
	if len(ranges) == 1 {
		rg := ranges[0]
		h["Content-Range"] = []string{string(AppendContentRange([]byte("bytes "), rg, size))}
		h["Content-Length"] = []string{strconv.FormatInt(rg.End-rg.Start, 10)}
		return rw
	}
	boundary := NextBoundary()
	ctype := PartType(ctx, h.Get("Content-Type"))
	length := int64(0)
	rw.ends = make([]int, len(ranges))
	for i, rg := range ranges {
		rw.heads = AppendPartHeader(rw.heads, boundary, ctype, rg, size)
		rw.ends[i] = len(rw.heads)
		length += rg.End - rg.Start
	}
	rw.closing = AppendClosingBoundary(nil, boundary)
	length += int64(len(rw.heads) + len(rw.closing))
	h["Content-Type"] = []string{"multipart/byteranges; boundary=" + boundary}
	h["Content-Length"] = []string{strconv.FormatInt(length, 10)}
	return rw
}

// NotSatisfiableBody is the body of a 416 that SetHeader describes.
const NotSatisfiableBody = "416 Range Not Satisfiable\n"

// Writer passes on the bytes of a complete body that fall in its
// ranges (ascending, without overlaps), with the multipart/byteranges part
// headers between them when there are several; the rest is dropped.
type Writer struct {
	w       io.Writer
	ranges  []Range
	heads   []byte // part headers, multipart only: part i's is heads[ends[i-1]:ends[i]]
	ends    []int
	closing []byte
	off     int64 // offset in the complete body of the next byte written
	i       int   // the range being written
	opened  bool  // range i's part header is out
}

func (rw *Writer) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && rw.i < len(rw.ranges) {
		rg := rw.ranges[rw.i]
		if rw.off < rg.Start {
			skip := min(rg.Start-rw.off, int64(len(p)))
			p, rw.off = p[int(skip):], rw.off+skip
			continue
		}
		if !rw.opened && rw.heads != nil {
			start := 0
			if rw.i > 0 {
				start = rw.ends[rw.i-1]
			}
			if _, err := rw.w.Write(rw.heads[start:rw.ends[rw.i]]); err != nil {
				return 0, err
			}
		}
		rw.opened = true
		k := min(rg.End-rw.off, int64(len(p)))
		if _, err := rw.w.Write(p[:int(k)]); err != nil {
			return 0, err
		}
		p, rw.off = p[int(k):], rw.off+k
		if rw.off == rg.End {
			rw.i, rw.opened = rw.i+1, false
			if rw.i == len(rw.ranges) && rw.closing != nil {
				if _, err := rw.w.Write(rw.closing); err != nil {
					return 0, err
				}
			}
		}
	}
	return n, nil
}

// fieldDate reads a header field that must hold one HTTP date.
func fieldDate(vv []string) (time.Time, bool) {
	if len(vv) != 1 {
		return time.Time{}, false
	}
	return httpdate.Parse(vv[0])
}
