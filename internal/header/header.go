// Package header holds the helpers for HTTP header field values that
// several modules need.
package header

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/mosaic-edge/mosaic/internal/reqkey"
)

// Join returns the lines of a header (by canonical name) as one value,
// comma-joined, as NGINX reads most headers and RFC 9110 §5.3 allows.
func Join(h http.Header, key string) string {
	v := h[key]
	switch len(v) {
	case 0:
		return ""
	case 1:
		return v[0]
	}
	return strings.Join(v, ", ")
}

// First returns the first line of a header by its canonical name, what
// h.Get returns, without canonicalizing key: callers on a response's path
// pass a literal already canonical, where Get would check its every
// letter again (about 300 instructions a call, CanonicalMIMEHeaderKey).
func First(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Digits reads s as one to 18 decimal digits, which cannot overflow an
// int64: the usual Content-Length, summed in a loop for a fifth of
// strconv's instructions. Anything else (empty, longer, a sign, spaces)
// reports false, for the caller's own slower path.
func Digits(s string) (int64, bool) {
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + int64(d)
	}
	return n, true
}

// HasToken reports whether a comma-separated list header (all its lines)
// names token, compared case-insensitively. A member's parameters
// ("no-cache=x", "a;q=1") do not hide its name.
func HasToken(values []string, token string) bool {
	for _, v := range values {
		for v != "" {
			var item string
			item, v, _ = strings.Cut(v, ",")
			if i := strings.IndexAny(item, "=;"); i >= 0 {
				item = item[:i]
			}
			if strings.EqualFold(TrimOWS(item), token) {
				return true
			}
		}
	}
	return false
}

// TrimOWS drops the optional whitespace (spaces and tabs) around a field
// value or list element.
func TrimOWS(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// EqualFoldASCII compares s with lower, which must be lower-case ASCII,
// ignoring ASCII case only. strings.EqualFold would also fold characters
// such as U+017F (long s) onto 's', which no HTTP token may contain.
func EqualFoldASCII(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// LowerASCII is strings.ToLower for ASCII letters only, as NGINX's
// ngx_tolower and its hash keys: other bytes stay as they are. It
// allocates only when s has an upper-case letter.
func LowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// AppendDate appends t as an HTTP-date (RFC 9110 §5.6.7, the form of
// http.TimeFormat). It formats the fixed layout directly, several times
// faster than time.Time.AppendFormat, which matters on paths that format
// a date per response (Last-Modified).
func AppendDate(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	hour, min, sec := t.Clock()
	b = append(b, t.Weekday().String()[:3]...)
	b = append(b, ',', ' ')
	b = append2(b, day)
	b = append(b, ' ')
	b = append(b, month.String()[:3]...)
	b = append(b, ' ')
	b = append2(b, year/100)
	b = append2(b, year%100)
	b = append(b, ' ')
	b = append2(b, hour)
	b = append(b, ':')
	b = append2(b, min)
	b = append(b, ':')
	b = append2(b, sec)
	return append(b, " GMT"...)
}

// FormatDate is AppendDate's HTTP-date as a string, for a header value:
// formatted into a buffer of the date's size on the stack, so that the
// string is the one allocation.
func FormatDate(t time.Time) string {
	var b [len(http.TimeFormat)]byte
	return string(AppendDate(b[:0], t))
}

// append2 appends n, 0..99, as two digits.
func append2(b []byte, n int) []byte {
	return append(b, byte('0'+n/10), byte('0'+n%10))
}

// TypeMatcher returns the test of a filter's list of media types
// (esi_types, ssi_types): text/html always matches, "*" in types matches
// everything, and a Content-Type matches by its media type, parameters
// and case aside.
func TypeMatcher(types []string) func(contentType string) bool {
	list := []string{"text/html"}
	for _, t := range types {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "*" {
			return func(string) bool { return true }
		}
		list = append(list, t)
	}
	return func(contentType string) bool {
		mt, _, _ := strings.Cut(contentType, ";")
		mt = strings.TrimSpace(mt)
		for _, t := range list {
			if strings.EqualFold(mt, t) {
				return true
			}
		}
		return false
	}
}

// WriteInterim sends an interim (1xx) response with exactly fields as
// its header, and leaves w's header as it was for the final response:
// net/http and http1 send the writer's current header with a 1xx and
// keep it for what follows.
func WriteInterim(w http.ResponseWriter, code int, fields http.Header) {
	h := w.Header()
	saved := maps.Clone(h)
	clear(h)
	maps.Copy(h, fields)
	w.WriteHeader(code)
	clear(h)
	maps.Copy(h, saved)
}

// Unique reports whether a request may carry the field name (canonical)
// once only: NGINX refuses a second line of these with 400 ("client sent
// duplicate header line"), which keeps a backend that reads the last
// line from acting on credentials or conditions that the server did not
// check, as it checks the first. Content-Length and Transfer-Encoding
// are among them even when the lines agree: a second framing line is
// what a smuggled request looks like. Host is checked where it is read.
func Unique(name string) bool {
	switch name {
	case "Authorization", "If-Modified-Since", "If-Unmodified-Since", "If-Match", "If-None-Match", "If-Range",
		"Content-Range", "Expect", "Content-Length", "Transfer-Encoding":
		return true
	}
	return false
}

// WeakenETag makes a strong validator weak, as NGINX does for a body it
// transforms (gzip, sub_filter_last_modified): the new bytes differ from
// those the strong ETag names, but they are semantically equivalent. A value that is neither a weak nor
// a quoted strong validator is removed.
func WeakenETag(h http.Header) { WeakenETagInto(h, nil, nil) }

// WeakenETagInto is WeakenETag with the weak validator's field the
// one-string slice slot, which a caller allocates with the other values
// it sets on the response (one allocation for several); nil makes one.
// Where the weak form fits in buf, it is written there and the value
// is a string over buf's bytes, without an allocation of its own (a
// concatenation cost some 380 instructions and 14 I1 misses a
// compressed response; compress README, "A compressed answer's
// fields"): buf must be the caller's own memory, which nothing writes
// again while the header may be read.
func WeakenETagInto(h http.Header, slot []string, buf []byte) {
	v := First(h, "Etag")
	switch {
	case v == "" || strings.HasPrefix(v, "W/"):
	case strings.HasPrefix(v, `"`):
		if slot == nil {
			slot = make([]string, 1)
		}
		if n := 2 + len(v); n <= len(buf) {
			copy(buf[copy(buf, "W/"):], v)
			slot[0] = unsafe.String(&buf[0], n)
		} else {
			slot[0] = "W/" + v
		}
		h["Etag"] = slot[:1:1]
	default:
		delete(h, "Etag")
	}
}

// UnknownLength tells the server's writer under w, through the writers
// that wrap it (Unwrap), that a filter took the body's length away
// (mosaic's HTTP/1 writer then frames the body as NGINX does one whose
// content_length_n is -1: chunked, even when it is short; the server's
// recorder keeps net/http's HTTP/2 writer from counting it). A writer
// that has no such notion and nothing over it that has (a subrequest's)
// is left alone.
func UnknownLength(w http.ResponseWriter) {
	for w != nil {
		if u, ok := w.(interface{ UnknownLength() }); ok {
			u.UnknownLength()
			return
		}
		uw, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return
		}
		w = uw.Unwrap()
	}
}

// GzipBody reports a body whose Content-Encoding is gzip and nothing
// else, the one body NGINX's gunzip filter decodes: package gunzip
// decodes it, compress.GunzipTest tests its client.
func GzipBody(h http.Header) bool {
	ce := h["Content-Encoding"]
	return len(ce) == 1 && EqualFoldASCII(TrimOWS(ce[0]), "gzip")
}

// VaryAcceptEncoding adds "Vary: Accept-Encoding" unless h already says
// so, or says "*", which covers it (see AddVary). It goes first, where
// NGINX writes gzip_vary's line: before the response's own Vary lines, an
// upstream's or add_header's.
func VaryAcceptEncoding(h http.Header) {
	v := h["Vary"]
	if !needsVary(v, "Accept-Encoding") {
		return
	}
	h["Vary"] = append([]string{"Accept-Encoding"}, v...)
}

// AddVary adds name to the end of h's Vary unless it is there or Vary
// says "*". NGINX writes gzip_vary's line whatever the response's Vary
// says, twice where an upstream sent Accept-Encoding and beside "*";
// mosaic adds a name once, and leaves "*" alone: it already says the
// answer varies on anything, and "*" with names beside it is outside
// RFC 7231's grammar (`"*" / 1#field-name`), which caches still read.
func AddVary(h http.Header, name string) {
	v := h["Vary"]
	if needsVary(v, name) {
		h["Vary"] = append(v, name)
	}
}

// needsVary reports whether a Vary of values lacks name: neither names it
// nor says "*".
func needsVary(values []string, name string) bool {
	return !HasToken(values, name) && !HasToken(values, "*")
}

// Field is one name of a header with its values, as a walk over a
// header's map gathers them to write them in the order of the names.
type Field struct {
	Name   string
	Values []string
}

// SortFields sorts fields by name (names differ: stability does not
// matter). A header's usual dozen or fewer are sorted by insertion,
// comparing first bytes before whole names, without the call through a
// comparison function that slices.SortFunc makes for each pair; more,
// by slices.SortFunc, whose time grows as n log n, not as n².
func SortFields(fields []Field) {
	if len(fields) > 16 {
		slices.SortFunc(fields, func(a, b Field) int { return strings.Compare(a.Name, b.Name) })
		return
	}
	for i := 1; i < len(fields); i++ {
		for j := i; j > 0 && nameLess(fields[j].Name, fields[j-1].Name); j-- {
			fields[j], fields[j-1] = fields[j-1], fields[j]
		}
	}
}

// nameLess reports whether a sorts before b: most names of a header
// differ in their first byte, compared without a call.
func nameLess(a, b string) bool {
	if a != "" && b != "" && a[0] != b[0] {
		return a[0] < b[0]
	}
	return a < b
}

// Seen reports whether name, canonical, is a field of h already, for a
// parser filling h line by line: it looks among names, the names entered
// so far, while there was room in names for every one (a linear scan of
// a few names beats a map lookup that misses on nearly every line), and
// in h once names is full.
func Seen(h http.Header, names []string, name string) bool {
	if len(names) < cap(names) {
		return slices.Contains(names, name)
	}
	_, ok := h[name]
	return ok
}

// WithRevalidation returns ctx marked as that of a cache's request to
// revalidate a stored entry: its If-Modified-Since and If-None-Match are
// the entry's validators, not the client's (the cache took those out).
// The proxy sends them where NGINX's proxy_cache_headers put them, after
// the configured fields, rather than among the client's lines.
func WithRevalidation(ctx context.Context) context.Context {
	return context.WithValue(ctx, reqkey.Revalidation, true)
}

// Revalidation reports whether ctx is marked by WithRevalidation.
func Revalidation(ctx context.Context) bool {
	v, _ := ctx.Value(reqkey.Revalidation).(bool)
	return v
}

// Revalidating reports a cache's revalidation request (Revalidation) that
// carries validators to send: an If-Modified-Since or an If-None-Match.
// The context's mark is asked first: a lookup of a name the map does not
// hold hashes it (about 146 instructions once the map holds a line),
// where the mark's lookup ends at the request's root (reqkey.Key: about
// 27 for a request read over HTTP/1). An empty map (no line but Host) is
// told for a few.
func Revalidating(r *http.Request) bool {
	return len(r.Header) > 0 && Revalidation(r.Context()) &&
		len(r.Header["If-Modified-Since"])+len(r.Header["If-None-Match"]) > 0
}
