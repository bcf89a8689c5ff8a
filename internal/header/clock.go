package header

import (
	"net/http"
	"time"
)

// Under finds the writer of type T (an interface the server's writer
// implements) under w, through the writers that wrap it (Unwrap, as
// http.ResponseController follows them).
func Under[T any](w http.ResponseWriter) (T, bool) {
	for w != nil {
		if t, ok := w.(T); ok {
			return t, true
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	var zero T
	return zero, false
}

// Clock is a response writer that keeps one reading of the clock for its
// response, which its Date line is written from (mosaic's HTTP/1 server).
type Clock interface {
	ResponseTime() time.Time
}

// ResponseTime returns the time of w's response: the reading the Date
// line goes out with, where the writer under w keeps one, so that a field
// computed from the time (Expires, gzip_proxied's "expired") agrees with
// Date even across a second's end, as NGINX takes both from its cached
// time; time.Now() otherwise (HTTP/2, net/http's server).
func ResponseTime(w http.ResponseWriter) time.Time {
	if c, ok := Under[Clock](w); ok {
		return c.ResponseTime()
	}
	return time.Now()
}

// RangeFilterer is the writer of a filter that NGINX runs on a response
// before its range filter (add_header, expires): NGINX's range filter
// turns a 200 into a 206 or a 416 only after those filters acted on the
// 200, so its 206 and 416 keep what they added for the 200.
type RangeFilterer interface {
	RangeOf200(lastModified, contentType string)
	RangeRefusedToPage()
}

// RangeOf200 tells the filter writer under w, if any, that the 206 or
// 416 about to go out answers a range of what would have been a 200,
// whose Last-Modified was lastModified ("expires modified" counts from
// it, and a 416 does not carry it) and whose Content-Type was
// contentType (what $sent_http_content_type reads for that 200, where
// the 416 is an HTML page and a multipart 206 is retyped).
func RangeOf200(w http.ResponseWriter, lastModified, contentType string) {
	if r, ok := Under[RangeFilterer](w); ok {
		r.RangeOf200(lastModified, contentType)
	}
}

// RangeRefusedToPage tells the filter writer under w, if any, that an
// error_page replaces the 416 it was told of (RangeOf200), which will not
// reach it: it adds now what it added to the 200, as NGINX's internal
// redirect to the page keeps what its header filters put in the 200's
// header list before the range filter refused it.
func RangeRefusedToPage(w http.ResponseWriter) {
	if r, ok := Under[RangeFilterer](w); ok {
		r.RangeRefusedToPage()
	}
}

// FileDater is the writer of a filter that tells a file's modification
// time from a Last-Modified line a handler wrote: NGINX's static module
// keeps the date apart (last_modified_time) until the header is written,
// after its filters, so gzip_proxied's no_last_modified, which looks for
// the line, does not see it.
type FileDater interface {
	FileDated()
}

// FileDated tells the filter writer under w, if any, that the
// Last-Modified about to go out is the date of the file served.
func FileDated(w http.ResponseWriter) {
	if f, ok := Under[FileDater](w); ok {
		f.FileDated()
	}
}
