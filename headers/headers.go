// Package headers implements NGINX's add_header and expires directives: a
// filter that adds response headers when the response goes out.
package headers

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"strconv"
	"time"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/vars"
)

// Header is one add_header line.
type Header struct {
	Name   string
	Value  *vars.Template
	Always bool // also for error statuses
}

// ExpiresMode says how an expires time is counted.
type ExpiresMode int

// The forms of the expires directive.
const (
	ExpiresOff      ExpiresMode = iota
	ExpiresAccess               // relative to the time of the request
	ExpiresModified             // "modified": relative to Last-Modified
	ExpiresDaily                // "@15h30m": a time of day
	ExpiresEpoch                // "epoch"
	ExpiresMax                  // "max"
)

// Expires is the expires directive's setting.
type Expires struct {
	Mode ExpiresMode
	D    time.Duration // offset, or the time of day for ExpiresDaily
}

// Options configure the filter.
type Options struct {
	Headers []Header
	Expires Expires
}

// Handler returns next with the headers added. It returns next itself
// when there is nothing to add.
func Handler(next http.Handler, opts Options) http.Handler {
	if len(opts.Headers) == 0 && opts.Expires.Mode == ExpiresOff {
		return next
	}
	for i := range opts.Headers {
		opts.Headers[i].Name = textproto.CanonicalMIMEHeaderKey(opts.Headers[i].Name)
	}
	return &filter{next: next, opts: opts}
}

type filter struct {
	next http.Handler
	opts Options
}

func (f *filter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hw := &writer{ResponseWriter: w, f: f, r: r}
	f.next.ServeHTTP(hw, r)
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

func (f *filter) apply(h http.Header, code int, r *http.Request) {
	ok := successful(code)
	if ok && f.opts.Expires.Mode != ExpiresOff {
		setExpires(h, f.opts.Expires, time.Now())
	}
	for _, hd := range f.opts.Headers {
		if !ok && !hd.Always {
			continue
		}
		v := hd.Value.Eval(r)
		if v == "" {
			continue
		}
		h[hd.Name] = append(h[hd.Name], v)
	}
}

func setExpires(h http.Header, e Expires, now time.Time) {
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
		lm, err := http.ParseTime(h.Get("Last-Modified"))
		if err != nil {
			// Without Last-Modified NGINX counts from the request time.
			lm = now
		}
		at = lm.Add(e.D)
	case ExpiresDaily:
		day := now.UTC().Truncate(24 * time.Hour)
		at = day.Add(e.D)
		if !at.After(now) {
			at = at.Add(24 * time.Hour)
		}
	}
	h["Expires"] = []string{string(header.AppendDate(make([]byte, 0, len(http.TimeFormat)), at))}
	if secs := int64(at.Sub(now) / time.Second); e.D < 0 || secs < 0 {
		h["Cache-Control"] = []string{"no-cache"}
	} else {
		h["Cache-Control"] = []string{"max-age=" + strconv.FormatInt(secs, 10)}
	}
}

// writer adds the headers just before the status line goes out.
type writer struct {
	http.ResponseWriter
	f    *filter
	r    *http.Request
	done bool
}

func (w *writer) WriteHeader(code int) {
	if !w.done && code >= 200 {
		w.done = true
		w.f.apply(w.ResponseWriter.Header(), code, w.r)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *writer) Write(b []byte) (int, error) {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// ReadFrom keeps sendfile available to the content below.
func (w *writer) ReadFrom(src io.Reader) (int64, error) {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	return io.Copy(w.ResponseWriter, src)
}

func (w *writer) Flush() {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *writer) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

func (w *writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }
