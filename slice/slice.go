// Package slice answers a request for a large representation from
// fixed-size byte ranges of it fetched one after the other, as NGINX's
// ngx_http_slice_filter_module does: the content below asks its origin
// for the slice that Range(r) names (in mosaic, "proxy_set_header Range
// $slice_range"), so that a cache in front of the origin keeps each slice
// as an entry of its own (with "$slice_range" in its key).
//
// The first slice is the one holding the first byte the client asks for;
// its 206 says how long the whole representation is. The client gets a
// 200 of that length, or the range it asked for (one range, or the whole
// representation when it asked for several), assembled from the first
// slice and from further ones that Options.Fetch asks for, each of which
// must be a 206 with the first's ETag and the expected Content-Range;
// one that is not ends the response where it got to, as NGINX's does.
// A content that never read Range(r), or a first answer other than 206,
// passes through untouched.
package slice

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/mosaic-edge/mosaic/internal/byterange"
	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/notmodified"
)

// Options configures a Handler.
type Options struct {
	// Size is the length of a slice in bytes; it must be positive.
	Size int64
	// Fetch runs the request for a further slice (r carries the slice's
	// range for Range) and returns its response, whose Body streams; in
	// mosaic a subrequest through the server's locations. nil runs the
	// handler given to New again, in a goroutine.
	Fetch func(r *http.Request) (*http.Response, error)
	// Logger receives the reasons a response is cut short; nil means
	// slog.Default().
	Logger *slog.Logger
	// Error answers a client range that the assembled representation
	// cannot satisfy (416), with its Content-Range already set; nil
	// writes a short text/plain page.
	Error func(w http.ResponseWriter, r *http.Request, code int)
	// Conditional reports whether the assembled response answers the
	// client's If-Match, If-Unmodified-Since, If-None-Match and
	// If-Modified-Since (412, 304), as NGINX's not-modified filter, which
	// follows its slice filter, answers a response its cache may store or
	// served (disable_not_modified off); nil never does.
	Conditional func(r *http.Request) bool
	// IfModifiedSince is if_modified_since for those: "exact" (or ""),
	// "before" or "off".
	IfModifiedSince string
}

// Handler is the slice filter in front of a content.
type Handler struct {
	next      http.Handler
	size      int64
	fetch     func(r *http.Request) (*http.Response, error)
	log       *slog.Logger
	errorPage func(w http.ResponseWriter, r *http.Request, code int)
	cond      func(r *http.Request) bool
	since     notmodified.Since // if_modified_since
}

// New returns next behind the slice filter.
func New(next http.Handler, o Options) (*Handler, error) {
	if o.Size <= 0 {
		return nil, fmt.Errorf("slice size %d: must be positive", o.Size)
	}
	h := &Handler{next: next, size: o.Size, fetch: o.Fetch, log: o.Logger, errorPage: o.Error, cond: o.Conditional, since: since(o.IfModifiedSince)}
	if h.fetch == nil {
		h.fetch = h.runNext
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	return h, nil
}

// ctxKey holds a request's *state in its context.
type ctxKey struct{}

// state is what Range reads: the range of the slice a request is for,
// and whether the content asked for it (NGINX slices a response only
// when $slice_range was evaluated).
type state struct {
	rng string
	// used may be set by a goroutine of the content's (a cache fill
	// that outlives the client) while the filter reads it.
	used atomic.Bool
}

// Range returns the "bytes=START-END" value of the slice r is for, and
// false for a request that the filter does not slice. Reading it is what
// makes the filter slice the response.
func Range(r *http.Request) (string, bool) {
	st, _ := r.Context().Value(ctxKey{}).(*state)
	if st == nil {
		return "", false
	}
	st.used.Store(true)
	return st.rng, true
}

// after is where the slice at start ends, exclusive: start+size, or the
// largest offset there is for a client range near it (a Range header's
// numbers go up to it).
func (h *Handler) after(start int64) int64 {
	if start > math.MaxInt64-h.size {
		return math.MaxInt64
	}
	return start + h.size
}

// withRange returns r carrying the range of the slice at start.
func (h *Handler) withRange(r *http.Request, start int64) (*http.Request, *state) {
	st := &state{rng: "bytes=" + strconv.FormatInt(start, 10) + "-" + strconv.FormatInt(h.after(start)-1, 10)}
	return r.WithContext(context.WithValue(r.Context(), ctxKey{}, st)), st
}

// errCut is what the content's writes get once the response is to be
// cut short: there is no use in producing more of it.
var errCut = errors.New("slice response refused")

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := h.size * (firstByte(r) / h.size)
	r, st := h.withRange(r, start)
	sw := &writer{ResponseWriter: w, h: h, r: r, st: st, start: start}
	h.next.ServeHTTP(sw, r)
	switch sw.mode {
	case modePending, modePass:
		return
	case modeFailed:
		// The client has nothing yet; NGINX closes the connection.
		panic(http.ErrAbortHandler)
	}
	if r.Method == http.MethodHead || sw.mode == modeAnswered {
		return
	}
	if sw.pos != sw.sliceEnd {
		h.cut(w, r, fmt.Errorf("slice response ended at %d of %d", sw.pos, sw.sliceEnd))
	}
	next := sw.sliceEnd
	if h.after(next) <= sw.want.Start {
		// A suffix range, or one that If-Range made start at 0: the
		// first slice only told the length.
		next = h.size * (sw.want.Start / h.size)
	}
	for next < sw.want.End {
		end, err := h.copySlice(sw, r, next)
		if err != nil {
			h.cut(w, r, err)
		}
		next = end
	}
}

// cut ends a response whose header is out, with what the client has
// of it so far: the connection is closed, as NGINX closes it, so that
// the client sees the body is short.
func (h *Handler) cut(w http.ResponseWriter, r *http.Request, err error) {
	h.log.Error(err.Error(), "uri", r.URL.RequestURI())
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	panic(http.ErrAbortHandler)
}

// copySlice fetches the slice at start and passes on what the client
// asked for of it; it returns where the slice ends.
func (h *Handler) copySlice(sw *writer, r *http.Request, start int64) (int64, error) {
	sr, _ := h.withRange(r, start)
	resp, err := h.fetch(sr)
	if err != nil {
		return 0, fmt.Errorf("slice subrequest: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent {
		return 0, fmt.Errorf("unexpected status code %d in slice response", resp.StatusCode)
	}
	cr, err := sw.checkSlice(resp.Header, start)
	if err != nil {
		return 0, err
	}
	sw.pos, sw.sliceEnd = cr.Start, cr.End
	if _, err := io.Copy(clipper{sw}, resp.Body); err != nil {
		return 0, fmt.Errorf("slice response: %w", err)
	}
	if sw.pos != cr.End {
		return 0, fmt.Errorf("slice response ended at %d of %d-%d", sw.pos, cr.Start, cr.End)
	}
	return cr.End, nil
}

// The states of a writer.
const (
	modePending  = iota // no status yet
	modePass            // not sliced: everything passes
	modeSliced          // the first slice's header is out
	modeAnswered        // 416, 304 or 412 sent: the client gets no slice
	modeFailed          // the first slice was refused
)

// writer stands between the content and the client for the first slice.
type writer struct {
	http.ResponseWriter
	h     *Handler
	r     *http.Request
	st    *state
	mode  int
	start int64 // the first slice's start

	etag     string          // the first slice's ETag, which the others must have
	total    int64           // the representation's length
	want     byterange.Range // what the client gets of it
	pos      int64           // the offset of the next byte the content writes
	sliceEnd int64           // where the slice being copied ends
}

func (sw *writer) Unwrap() http.ResponseWriter { return sw.ResponseWriter }

func (sw *writer) WriteHeader(code int) {
	if sw.mode != modePending {
		if sw.mode == modePass {
			sw.ResponseWriter.WriteHeader(code)
		}
		return
	}
	if code < 200 {
		sw.ResponseWriter.WriteHeader(code)
		return
	}
	if !sw.st.used.Load() || code != http.StatusPartialContent {
		sw.mode = modePass
		sw.ResponseWriter.WriteHeader(code)
		return
	}
	h := sw.Header()
	if len(sw.r.Header["Range"]) > 0 && !sw.isSlice(h) {
		// Not the slice asked for but, with the client's Range, the
		// content's answer to it: a cache cuts the client's ranges out
		// of a whole response when the origin ignored the slice's
		// range. NGINX, whose range filter comes after its slice
		// filter, sees the whole 200 there and passes it on to be cut;
		// the client gets its ranges in both.
		sw.mode = modePass
		sw.ResponseWriter.WriteHeader(code)
		return
	}
	cr, err := sw.checkSlice(h, sw.start)
	if err != nil {
		sw.h.log.Error(err.Error(), "uri", sw.r.URL.RequestURI())
		sw.mode = modeFailed
		return
	}
	sw.pos, sw.sliceEnd = cr.Start, cr.End
	delete(h, "Content-Range")
	delete(h, "Accept-Ranges")
	code = http.StatusOK
	if sw.h.cond != nil && sw.h.cond(sw.r) {
		// The first slice's validators stand for the assembled 200's.
		switch c := notmodified.CheckResponse(sw.r.Header, h, sw.h.since); c {
		case http.StatusNotModified:
			sw.mode = modeAnswered
			for _, k := range [...]string{"Content-Length", "Content-Type", "Content-Encoding"} {
				delete(h, k)
			}
			sw.ResponseWriter.WriteHeader(c)
			return
		case http.StatusPreconditionFailed:
			sw.mode = modeAnswered
			sw.h.fail(sw.ResponseWriter, sw.r, c)
			return
		}
	}
	sw.want = byterange.Range{Start: 0, End: sw.total}
	switch ranges, verdict := clientRange(sw.r, h, sw.total); verdict {
	case byterange.Partial:
		sw.want = ranges[0]
		code = http.StatusPartialContent
		// NGINX's slice filter makes the whole a 200, on which add_header
		// acts before its range filter cuts it.
		header.RangeOf200(sw.ResponseWriter, "", h.Get("Content-Type"))
		h["Content-Range"] = []string{string(byterange.AppendContentRange([]byte("bytes "), sw.want, sw.total))}
		h["Content-Length"] = []string{strconv.FormatInt(sw.want.End-sw.want.Start, 10)}
	case byterange.NotSatisfiable:
		sw.mode = modeAnswered
		if sw.h.errorPage != nil {
			h["Content-Range"] = []string{"bytes */" + strconv.FormatInt(sw.total, 10)}
			sw.h.errorPage(sw.ResponseWriter, sw.r, http.StatusRequestedRangeNotSatisfiable)
			return
		}
		byterange.SetHeader(sw.r.Context(), h, nil, sw.total, nil)
		sw.ResponseWriter.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
		if sw.r.Method != http.MethodHead {
			_, _ = io.WriteString(sw.ResponseWriter, byterange.NotSatisfiableBody)
		}
		return
	default:
		h["Content-Length"] = []string{strconv.FormatInt(sw.total, 10)}
		h["Accept-Ranges"] = []string{"bytes"}
	}
	sw.mode = modeSliced
	sw.ResponseWriter.WriteHeader(code)
}

func (sw *writer) Write(p []byte) (int, error) {
	if sw.mode == modePending {
		sw.WriteHeader(http.StatusOK)
	}
	switch sw.mode {
	case modePass:
		return sw.ResponseWriter.Write(p)
	case modeSliced:
		return clipper{sw}.Write(p)
	case modeAnswered:
		// The slice's body is not the client's; a cache filling
		// behind it still wants it read.
		return len(p), nil
	}
	return 0, errCut
}

func (sw *writer) Flush() {
	if sw.mode == modePending {
		sw.WriteHeader(http.StatusOK)
	}
	if sw.mode != modePass && sw.mode != modeSliced {
		return
	}
	if f, ok := sw.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// clipper passes on the part of a slice's body, written from sw.pos on,
// that falls within what the client asked for.
type clipper struct{ sw *writer }

func (c clipper) Write(p []byte) (int, error) {
	sw := c.sw
	n := int64(len(p))
	if sw.pos+n > sw.sliceEnd {
		return 0, fmt.Errorf("slice body longer than its range %d-%d", sw.pos, sw.sliceEnd)
	}
	from, to := max(sw.want.Start, sw.pos), min(sw.want.End, sw.pos+n)
	if from < to {
		if _, err := sw.ResponseWriter.Write(p[from-sw.pos : to-sw.pos]); err != nil {
			return 0, err
		}
	}
	sw.pos += n
	return len(p), nil
}

// isSlice reports whether h is the header of the first slice asked for.
func (sw *writer) isSlice(h http.Header) bool {
	cr, total, ok := ParseContentRange(h.Get("Content-Range"))
	return ok && total >= 0 && cr.Start == sw.start && cr.End == min(sw.h.after(sw.start), total)
}

// checkSlice applies NGINX's checks to the header of a slice that should
// start at start: the first slice's ETag (once one had any), a
// Content-Range with the complete length, and exactly the expected
// range. The first slice's Content-Range sets the length.
func (sw *writer) checkSlice(h http.Header, start int64) (byterange.Range, error) {
	if sw.etag != "" {
		if v := h["Etag"]; len(v) == 0 || v[0] != sw.etag {
			return byterange.Range{}, errors.New("etag mismatch in slice response")
		}
	} else if v := h["Etag"]; len(v) > 0 {
		sw.etag = v[0]
	}
	cr, total, ok := ParseContentRange(h.Get("Content-Range"))
	if !ok {
		return byterange.Range{}, errors.New("invalid range in slice response")
	}
	if total < 0 {
		return byterange.Range{}, errors.New("no complete length in slice response")
	}
	// An empty range (a later slice claiming the representation ends
	// where it starts) would have the next slice asked for again, and
	// again: it is refused too.
	if end := min(sw.h.after(cr.Start), total); cr.Start != start || cr.End != end || end <= start {
		return byterange.Range{}, fmt.Errorf("unexpected range in slice response: %d-%d", cr.Start, cr.End)
	}
	if sw.mode == modePending {
		sw.total = total
	}
	return cr, nil
}

// clientRange is what the client's Range asks of the assembled
// representation, as NGINX's range filter answers a sliced response:
// one range at most (several get the whole), none when an If-Range
// does not match the first slice's validators.
func clientRange(r *http.Request, h http.Header, total int64) ([]byterange.Range, byterange.Verdict) {
	v := r.Header["Range"]
	if len(v) == 0 || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		return nil, byterange.Whole
	}
	spec, ok := byterange.Spec(v[0])
	if !ok {
		return nil, byterange.Whole
	}
	if ir := r.Header["If-Range"]; len(ir) > 0 && !byterange.IfRangeMatches(ir[0], h) {
		return nil, byterange.Whole
	}
	return byterange.Parse(spec, total, 1, nil)
}

// firstByte is where the client's range starts, as NGINX's slice module
// reads it to pick the first slice: 0 with If-Range, several ranges, a
// suffix range or anything it cannot read.
func firstByte(r *http.Request) int64 {
	if len(r.Header["If-Range"]) > 0 {
		return 0
	}
	v := r.Header["Range"]
	if len(v) == 0 {
		return 0
	}
	spec, ok := byterange.Spec(v[0])
	if !ok {
		return 0
	}
	for i := 0; i < len(spec); i++ {
		if spec[i] == ',' {
			return 0
		}
	}
	i := 0
	for i < len(spec) && spec[i] == ' ' {
		i++
	}
	var start int64
	for ; i < len(spec) && '0' <= spec[i] && spec[i] <= '9'; i++ {
		d := int64(spec[i] - '0')
		if start > (1<<63-1-d)/10 {
			return 0
		}
		start = start*10 + d
	}
	return start
}
