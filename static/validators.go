package static

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/httpdate"
	"github.com/mosaic-edge/mosaic/internal/notmodified"
)

// appendETag appends NGINX's entity tag for a file: the modification time
// in Unix seconds and the size, both in lower-case hex, quoted and joined by
// a dash ("5f5e1000-1000").
func appendETag(b []byte, mtime, size int64) []byte {
	b = append(b, '"')
	b = strconv.AppendInt(b, mtime, 16)
	b = append(b, '-')
	b = strconv.AppendInt(b, size, 16)
	return append(b, '"')
}

// validators is a file's ETag, Last-Modified and size in decimal, formatted
// into one string: the header values of its whole, unranged answer.
type validators struct {
	s                string
	etagEnd, dateEnd int
}

// validators returns the formatted validators of info, the file that s was
// opened on, formatting them at the first call only. A kept descriptor's
// file state does not change: an entry whose file has changed is replaced,
// descriptor and all, so the responses served from s share one
// formatting. Two first calls at once both format; either result is the
// same.
func (s *sharedFD) validators(info fileInfo) *validators {
	if v := s.formatted.Load(); v != nil {
		return v
	}
	var buf [96]byte
	b := appendETag(buf[:0], info.mtime, info.size)
	etagEnd := len(b)
	b = header.AppendDate(b, time.Unix(info.mtime, 0))
	dateEnd := len(b)
	b = strconv.AppendInt(b, info.size, 10)
	v := &validators{s: string(b), etagEnd: etagEnd, dateEnd: dateEnd}
	s.formatted.Store(v)
	return v
}

// Preconditions evaluates the conditional request headers as NGINX's
// not-modified filter does (not in RFC 9110's order: see preconditions)
// for a file with entity tag etag (empty when ETags are off) and
// modification time mtime. With noValidators the response
// has neither (a filter rebuilds its body): no entity tag matches, "*"
// aside, and the date conditions do not apply (sections 13.1.3 and
// 13.1.4). ims is if_modified_since. It returns 412, 304, or 0 to serve
// the file. Content of another kind with a modification time (empty_gif)
// uses it as NGINX's not-modified filter serves every response.
func Preconditions(r *http.Request, etag []byte, mtime int64, ims ModifiedSince, noValidators bool) int {
	if !askedFor(r.Header).conditions {
		return 0
	}
	return preconditions(r.Header, etag, mtime, ims, noValidators)
}

// preconditions is Preconditions once the header is known to hold a field
// named "If-...".
func preconditions(hdr http.Header, etag []byte, mtime int64, ims ModifiedSince, noValidators bool) int {
	if noValidators {
		etag = nil
	}
	// NGINX tests If-Unmodified-Since whether or not If-Match is there, and
	// fails the request when either fails. An invalid date is NGINX's time
	// -1, before the time of every file modified since 1970
	// (notmodified.RequestTime).
	if v := hdr["If-Unmodified-Since"]; len(v) > 0 && !noValidators && !notmodified.Unmodified(v[0], mtime) {
		return http.StatusPreconditionFailed
	}
	if v := hdr["If-Match"]; len(v) > 0 && !notmodified.Match(v, etag, false) {
		return http.StatusPreconditionFailed
	}
	// A 304 needs every one of If-Modified-Since and If-None-Match that is
	// there to say "not modified"; RFC 9110 would let If-None-Match decide
	// alone. A field that is there but empty counts, as a miss.
	inm, imsv := hdr["If-None-Match"], hdr["If-Modified-Since"]
	if len(inm) == 0 && len(imsv) == 0 {
		return 0
	}
	// Without validators (a rebuilt body) the response always counts as
	// modified.
	if len(imsv) > 0 && (noValidators || notmodified.Modified(imsv[0], mtime, ims)) {
		return 0
	}
	if len(inm) > 0 && !notmodified.Match(inm, etag, true) {
		return 0
	}
	return http.StatusNotModified
}

// asked says which of the request header's fields about conditions and
// ranges it may hold. Most requests carry none, and for a header of a few
// fields one pass over its names costs less than the six lookups (If-Match,
// If-None-Match, If-Unmodified-Since, If-Modified-Since, Range, If-Range)
// that would find nothing: a lookup in a small map compares the name with
// every key anyway. Names are compared as the lookups would, canonical.
type asked struct{ conditions, ranges bool }

// scanFields is the most fields that askedFor scans; in a larger header a
// lookup, which hashes, costs less than a pass, and both are reported
// possible.
const scanFields = 8

func askedFor(hdr http.Header) asked {
	if len(hdr) > scanFields {
		return asked{true, true}
	}
	var a asked
	for name := range hdr {
		switch {
		case strings.HasPrefix(name, "If-"):
			a.conditions = true
		case name == "Range":
			a.ranges = true
		}
	}
	return a
}

// ifRangeAllows reports whether an If-Range header (v) lets the Range
// header apply: its entity tag must equal the file's strong one, or its
// date (read as NGINX reads it, httpdate.Conditional) the file's
// modification time, exactly as NGINX compares them.
func ifRangeAllows(v string, etag []byte, mtime int64) bool {
	if len(v) >= 2 && v[len(v)-1] == '"' {
		return len(etag) > 0 && v == string(etag)
	}
	t, ok := httpdate.Conditional(v)
	return ok && t == mtime
}
