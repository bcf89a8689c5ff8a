// Package headers adds headers to responses as they go out, the way
// NGINX's add_header and expires directives do. It is net/http middleware
// with no knowledge of the server; modules/headersmod wires the directives
// to it.
package headers

import (
	"errors"
	"fmt"
	"net/http"
	"net/textproto"
	"strconv"
	"time"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/httpdate"
	"github.com/mosaic-edge/mosaic/internal/onheader"
	"github.com/mosaic-edge/mosaic/vars"
)

// Header is one header to add (one add_header line).
type Header struct {
	// Name is the header's name, an HTTP token; it is sent in canonical
	// form.
	Name string
	// Value is evaluated for each response; an empty result adds nothing.
	// An ETag or Last-Modified header replaces the response's own, and an
	// empty one removes it, as in NGINX.
	Value *vars.Template
	// Always adds the header whatever the status; without it only
	// responses with a successful status get it (see New).
	Always bool
}

// ExpiresMode says how an expires time is counted.
type ExpiresMode int

// The forms of the expires directive.
const (
	ExpiresOff      ExpiresMode = iota
	ExpiresAccess               // relative to the time of the request
	ExpiresModified             // "modified": relative to Last-Modified
	ExpiresDaily                // "@15h30m": a time of day, local time
	ExpiresEpoch                // "epoch"
	ExpiresMax                  // "max"
)

// Expires is the expires directive's setting.
type Expires struct {
	// Mode says how D counts; ExpiresOff, the zero value, sets nothing.
	Mode ExpiresMode
	// D is the offset from the request or Last-Modified time (negative
	// for a time in the past), or the time of day, within [0, 24h], for
	// ExpiresDaily. ExpiresOff, ExpiresEpoch and ExpiresMax ignore it.
	D time.Duration
}

func (e Expires) validate() error {
	switch e.Mode {
	case ExpiresOff, ExpiresAccess, ExpiresModified, ExpiresEpoch, ExpiresMax:
		return nil
	case ExpiresDaily:
		// 24h, the coming midnight, is one NGINX takes too.
		if e.D < 0 || e.D > 24*time.Hour {
			return fmt.Errorf("headers: expires time of day %v is not within [0, 24h]", e.D)
		}
		return nil
	}
	return fmt.Errorf("headers: unknown expires mode %d", e.Mode)
}

// Options configure the filter. New copies what it keeps, so the caller
// may change or reuse them afterwards.
type Options struct {
	// Headers are added in this order, after those the handler below set.
	Headers []Header
	// Expires sets the Expires and Cache-Control headers, replacing those
	// of the handler below; the zero value sets neither.
	Expires Expires
	// ExpiresFunc, when set, replaces Expires with a setting chosen per
	// response ("expires $var"): it is called with the response's header
	// as the status line is about to go out, for the statuses Expires
	// applies to, and returns false to set nothing (a value that is
	// "off", or invalid, as NGINX ignores those).
	ExpiresFunc func(r *http.Request, h http.Header) (Expires, bool)
	// Trailers are NGINX's add_trailer: fields evaluated once the body is
	// written (so $request_time counts the whole response) and sent
	// after it, with the statuses Headers are (Always for any), in this
	// order; an empty value sends nothing. The names are kept as
	// written. Nothing is sent for HEAD, 204 or 304.
	//
	// A writer below the filter with ExpectTrailers and AddTrailer
	// (mosaic's HTTP/1 server) is told before the status goes out and
	// given the fields in order, as NGINX sends them: no Trailer field
	// announces them. Otherwise they are set as http.TrailerPrefix
	// fields of the header, which net/http's servers send, over HTTP/1
	// once a Trailer field, which the filter adds, has announced them.
	Trailers []Header
}

// New returns next wrapped so that the headers of opts are added just
// before the status line goes out: to responses with status 200, 201,
// 204, 206, 301, 302, 303, 304, 307 or 308, and, for headers marked
// Always, to every response. It returns next itself when opts add nothing,
// and an error when next is nil, a header has an invalid name or no
// value, or Expires is out of range.
func New(next http.Handler, opts Options) (http.Handler, error) {
	if next == nil {
		return nil, errors.New("headers: nil next handler")
	}
	if err := opts.Expires.validate(); err != nil {
		return nil, err
	}
	if len(opts.Headers) == 0 && opts.Expires.Mode == ExpiresOff && opts.ExpiresFunc == nil && len(opts.Trailers) == 0 {
		return next, nil
	}
	hs, err := copyHeaders(opts.Headers, true)
	if err != nil {
		return nil, err
	}
	ts, err := copyHeaders(opts.Trailers, false)
	if err != nil {
		return nil, err
	}
	return &filter{next: next, headers: hs, trailers: ts, expires: opts.Expires, expiresFunc: opts.ExpiresFunc}, nil
}

// copyHeaders checks and copies a list of fields, their names made
// canonical when canonical is set.
func copyHeaders(in []Header, canonical bool) ([]Header, error) {
	out := make([]Header, len(in))
	for i, h := range in {
		if !header.IsToken(h.Name) {
			return nil, fmt.Errorf("headers: invalid header name %q", h.Name)
		}
		if h.Value == nil {
			return nil, fmt.Errorf("headers: header %q has no value", h.Name)
		}
		if canonical {
			h.Name = textproto.CanonicalMIMEHeaderKey(h.Name)
		}
		out[i] = h
	}
	return out, nil
}

type filter struct {
	next        http.Handler
	headers     []Header // a copy, names canonical
	trailers    []Header // a copy, names as written
	expires     Expires
	expiresFunc func(*http.Request, http.Header) (Expires, bool)
}

func (f *filter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hw := &writer{Writer: onheader.Writer{ResponseWriter: w}, f: f, r: r}
	hw.Hook = hw
	f.next.ServeHTTP(hw, r)
	if hw.trailing {
		f.addTrailers(w, hw.code, r)
	}
}

// trailerSink is the writer of a server that sends trailers as NGINX
// does (mosaic's HTTP/1 server).
type trailerSink interface {
	ExpectTrailers()
	AddTrailer(name, value string)
}

// sink finds the trailerSink under w, through the writers that wrap it.
func sink(w http.ResponseWriter) trailerSink {
	s, _ := header.Under[trailerSink](w)
	return s
}

// expectsTrailers reports whether a response with this status gets any
// of the trailers, as NGINX's header filter sets expect_trailers.
func (f *filter) expectsTrailers(r *http.Request, code int) bool {
	if r.Method == http.MethodHead || code < 200 || code == http.StatusNoContent || code == http.StatusNotModified {
		return false
	}
	ok := successful(code)
	for _, t := range f.trailers {
		if ok || t.Always {
			return true
		}
	}
	return false
}

// addTrailers evaluates the trailers once the body is written.
func (f *filter) addTrailers(w http.ResponseWriter, code int, r *http.Request) {
	ok := successful(code)
	s := sink(w)
	for _, t := range f.trailers {
		if !ok && !t.Always {
			continue
		}
		v := t.Value.Eval(r)
		if v == "" {
			continue
		}
		if s != nil {
			s.AddTrailer(t.Name, v)
			continue
		}
		k := http.TrailerPrefix + t.Name
		w.Header()[k] = append(w.Header()[k], v)
	}
}

// successful lists the statuses for which NGINX adds headers and expires
// without "always".
func successful(code int) bool {
	switch code {
	case 200, 201, 204, 206, 301, 302, 303, 304, 307, 308:
		return true
	}
	return false
}

// maxExpires is NGINX's "expires max" date.
var maxExpires = time.Date(2037, 12, 31, 23, 55, 55, 0, time.UTC)

// apply adds the headers of f to h, the header of w's response. Expires
// is counted from the time of the response, the reading its Date goes out
// with (header.ResponseTime).
func (f *filter) apply(w http.ResponseWriter, h http.Header, code int, r *http.Request) {
	ok := successful(code)
	if ok && f.expiresFunc != nil {
		if e, set := f.expiresFunc(r, h); set && e.validate() == nil && e.Mode != ExpiresOff {
			setExpires(h, e, header.ResponseTime(w))
		}
	} else if ok && f.expires.Mode != ExpiresOff {
		setExpires(h, f.expires, header.ResponseTime(w))
	}
	for _, hd := range f.headers {
		if !ok && !hd.Always {
			continue
		}
		v := hd.Value.Eval(r)
		if single(hd.Name) {
			// NGINX keeps one ETag and one Last-Modified: add_header
			// replaces the response's own, and an empty value removes it
			// (its ngx_http_set_response_header), so that a cache is not
			// left with two validators to choose from.
			if v == "" {
				delete(h, hd.Name)
			} else {
				h[hd.Name] = []string{v}
			}
			continue
		}
		if v == "" {
			continue
		}
		h[hd.Name] = append(h[hd.Name], v)
	}
}

// single reports the headers, in canonical form, that add_header
// replaces rather than adds to.
func single(name string) bool { return name == "Etag" || name == "Last-Modified" }

func setExpires(h http.Header, e Expires, now time.Time) {
	// NGINX's clock (ngx_time) counts whole seconds: with the fraction
	// of the current one, max-age until a whole-second time (a
	// Last-Modified, a time of day) came out one second short.
	now = now.Truncate(time.Second)
	var at time.Time
	switch e.Mode {
	case ExpiresEpoch:
		h["Expires"] = []string{"Thu, 01 Jan 1970 00:00:01 GMT"}
		h["Cache-Control"] = []string{"no-cache"}
		return
	case ExpiresMax:
		h["Expires"] = []string{maxExpires.Format(http.TimeFormat)}
		h["Cache-Control"] = []string{"max-age=315360000"}
		return
	case ExpiresAccess:
		at = now.Add(e.D)
	case ExpiresModified:
		if e.D == 0 {
			// NGINX takes a zero time for "now" whatever the mode:
			// "modified 0" expires now with max-age=0, not at
			// Last-Modified with no-cache.
			at = now
			break
		}
		// NGINX counts from last_modified_time, which it read with
		// ngx_parse_http_time (httpdate.Conditional: "GMT" or no zone
		// alike); without one, from the request time.
		at = now.Add(e.D)
		if lm, ok := httpdate.Conditional(h.Get("Last-Modified")); ok {
			at = time.Unix(lm, 0).Add(e.D)
		}
	case ExpiresDaily:
		// The time of day is on the server's clock, in now's time zone
		// (the local one, from TZ), as NGINX's ngx_next_time makes it
		// with mktime: today at that time, or tomorrow once it passed.
		// mktime is given now's tm_isdst, so the time counts in now's
		// UTC offset even on the other side of a daylight saving change.
		y, m, d := now.Date()
		_, offset := now.Zone()
		zone := time.FixedZone("", offset)
		hour, min, sec := int(e.D/time.Hour), int(e.D/time.Minute%60), int(e.D/time.Second%60)
		at = time.Date(y, m, d, hour, min, sec, 0, zone)
		if !at.After(now) {
			at = time.Date(y, m, d+1, hour, min, sec, 0, zone)
		}
	}
	h["Expires"] = []string{header.FormatDate(at)}
	if secs := int64(at.Sub(now) / time.Second); e.D < 0 || secs < 0 {
		h["Cache-Control"] = []string{"no-cache"}
	} else {
		h["Cache-Control"] = []string{"max-age=" + strconv.FormatInt(secs, 10)}
	}
}

// writer adds the headers just before the status line goes out.
type writer struct {
	onheader.Writer
	f        *filter
	r        *http.Request
	code     int  // the status that went out
	trailing bool // the response gets trailers
	ranged   bool // the 206 or 416 to come answers a range of a 200
	// lastModified is the 200's Last-Modified, which its 416 goes
	// without, and contentType its Content-Type, which the 416's page
	// and a multipart 206 replace (RangeOf200).
	lastModified, contentType string
}

// RangeOf200 marks the 206 or 416 to come as NGINX's range filter's
// answer to a 200 (header.RangeOf200).
func (w *writer) RangeOf200(lastModified, contentType string) {
	w.ranged, w.lastModified, w.contentType = true, lastModified, contentType
}

// RangeRefusedToPage applies the headers as to the 200 whose 416 an
// error_page replaces (header.RangeRefusedToPage).
func (w *writer) RangeRefusedToPage() {
	if w.ranged {
		w.ranged = false
		w.as200(w.Header(), true)
	}
}

// as200 applies the headers to h as NGINX's header filters did to the
// 200 before its range filter cut or refused it: the values see $status
// 200, and "expires modified" counts from the 200's Last-Modified, which
// a 416 has lost by now. $sent_http_content_type reads the 200's type,
// not the 416 page's or the multipart 206's: a map of it (H5BP's
// X-Frame-Options, expires) keeps that value for the request, so the
// 416's second pass of the "always" fields reads it too, as in NGINX. A
// refused range's 416 (refused) goes without Last-Modified, add_header's
// too, as NGINX's special response clears it; a 206 keeps the one
// add_header gave it.
func (w *writer) as200(h http.Header, refused bool) {
	st := vars.FromContext(w.r.Context())
	var was int
	if st != nil {
		was, st.Status = st.Status, http.StatusOK
	}
	_, had := h["Last-Modified"]
	if !had && w.lastModified != "" {
		h["Last-Modified"] = []string{w.lastModified}
	}
	ctype, typed := h["Content-Type"]
	if w.contentType != "" {
		h["Content-Type"] = []string{w.contentType}
	}
	w.f.apply(w.ResponseWriter, h, http.StatusOK, w.r)
	if w.contentType != "" {
		// The answer's own type goes back; lines that add_header
		// appended after the 200's ("add_header Content-Type ...") stay
		// after it, as NGINX keeps them beside its 206's and 416's own.
		var added []string
		if v := h["Content-Type"]; len(v) > 1 {
			added = v[1:]
		}
		switch {
		case typed:
			h["Content-Type"] = append(ctype[:len(ctype):len(ctype)], added...)
		case added != nil:
			h["Content-Type"] = added
		default:
			delete(h, "Content-Type")
		}
	}
	if refused && !had {
		delete(h, "Last-Modified")
	}
	if st != nil {
		st.Status = was
	}
}

// BeforeHeader applies the headers: the values see this response's
// $status, as in NGINX, which sets the status before its header filters
// run.
func (w *writer) BeforeHeader(h http.Header, code int) {
	st := vars.FromContext(w.r.Context())
	again := true
	if w.ranged && (code == http.StatusPartialContent || code == http.StatusRequestedRangeNotSatisfiable) {
		// NGINX's header filters ran for the 200 before its range filter
		// cut it (206) or refused it (416), so their values see $status
		// 200. Its special response runs them again for the 416: the 416
		// keeps the 200's headers and expires, and the "always" ones come
		// twice (ngx_http_range_not_satisfiable, then
		// ngx_http_send_special_response).
		again = code == http.StatusRequestedRangeNotSatisfiable
		w.as200(h, code == http.StatusRequestedRangeNotSatisfiable)
	}
	if st != nil {
		st.WroteHeader(code)
	}
	if again {
		w.f.apply(w.ResponseWriter, h, code, w.r)
	}
	w.code = code
	if len(w.f.trailers) > 0 && w.f.expectsTrailers(w.r, code) {
		w.trailing = true
		if s := sink(w.ResponseWriter); s != nil {
			s.ExpectTrailers()
		} else if w.r.ProtoMajor == 1 {
			// net/http's HTTP/1 server chunks a body, and sends the
			// trailers, only for fields declared before the header.
			for _, t := range w.f.trailers {
				if successful(code) || t.Always {
					h["Trailer"] = append(h["Trailer"], t.Name)
				}
			}
		}
	}
}
