// Package imagefilter transforms JPEG, GIF, PNG and WebP responses as
// NGINX's image filter (ngx_http_image_filter_module) does, in pure Go:
// it checks that a response is an image, reports its size in JSON,
// shrinks, crops and rotates it. It is net/http middleware; Process is the
// same work on a body in memory.
package imagefilter

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/vars"
)

// DefaultBuffer is NGINX's image_filter_buffer: the largest body read.
const DefaultBuffer = 1 << 20

// Value is a numeric argument: a number fixed in the configuration, or a
// template with variables evaluated for each response.
type Value struct {
	N uint64
	T *vars.Template // when set, N is ignored
}

// Num returns a fixed Value.
func Num(n uint64) Value { return Value{N: n} }

func (v Value) eval(r *http.Request) uint64 {
	if v.T == nil {
		return v.N
	}
	return ParseValue(v.T.Eval(r))
}

// ParseValue reads an argument as NGINX's image filter does: "-" is
// Unbounded, digits a number, anything else (a sign, a space, an
// overflow) 0.
func ParseValue(s string) uint64 {
	if s == "-" {
		return Unbounded
	}
	// NGINX's ngx_atoi: digits only, no sign, within an int64.
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return uint64(n)
}

// Options configure the filter; the fields are NGINX's directives.
type Options struct {
	Mode                 Mode  // image_filter
	Width, Height, Angle Value // image_filter's arguments
	JPEGQuality          Value // image_filter_jpeg_quality; NGINX's default is 75
	WebPQuality          Value // image_filter_webp_quality; NGINX's default is 80
	Sharpen              Value // image_filter_sharpen
	DropTransparency     bool  // image_filter_transparency off
	// Interlace is image_filter_interlace. Go's encoders write neither
	// progressive JPEG nor interlaced PNG or GIF, so it has no effect.
	Interlace bool
	// Buffer is image_filter_buffer, the largest body read (0:
	// DefaultBuffer); a larger one is answered with 415.
	Buffer int64
	// MaxPixels bounds the images decoded (0: DefaultMaxPixels).
	MaxPixels int64
	// Error sends an error response; nil sends a plain one.
	Error func(w http.ResponseWriter, r *http.Request, code int)
}

type handler struct {
	next http.Handler
	opts Options
}

// New returns next with its responses filtered; with Mode Off, next.
func New(next http.Handler, opts Options) http.Handler {
	if opts.Mode == Off {
		return next
	}
	if opts.Buffer <= 0 {
		opts.Buffer = DefaultBuffer
	}
	if opts.Error == nil {
		opts.Error = func(w http.ResponseWriter, r *http.Request, code int) {
			// The content's fields describe what was refused.
			clear(w.Header())
			http.Error(w, http.StatusText(code), code)
		}
	}
	return &handler{next: next, opts: opts}
}

func (h *handler) params(r *http.Request) Params {
	o := &h.opts
	return Params{
		Mode: o.Mode, Width: o.Width.eval(r), Height: o.Height.eval(r), Angle: o.Angle.eval(r),
		JPEGQuality: o.JPEGQuality.eval(r), WebPQuality: o.WebPQuality.eval(r), Sharpen: o.Sharpen.eval(r),
		DropTransparency: o.DropTransparency, MaxPixels: o.MaxPixels,
	}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	inner := r
	if r.Method == http.MethodHead {
		// NGINX reads the body of a HEAD too (its filter holds the
		// header back, so the file is sent to it) and answers with the
		// header of what it would send: the content is asked for a GET.
		inner = r.Clone(r.Context())
		inner.Method = http.MethodGet
	}
	rw := &responseWriter{h: h, w: w, r: r}
	h.next.ServeHTTP(rw, inner)
	rw.finish()
}

// The states of a response.
const (
	reading = iota // the body is held, up to the limit
	probing        // "test": the first 16 bytes are held to tell the type
	passing        // the response goes through as it is
	refused        // 415 once the content is done
)

// A refused response is answered when the content is done, never while
// it runs: error_page's internal redirect (server.FilterError) takes
// over the writer the content writes to, which must have stopped.

type responseWriter struct {
	h     *handler
	w     http.ResponseWriter
	r     *http.Request
	wrote bool
	state int
	code  int
	limit int64
	body  []byte
	over  bool // the body went over the limit; its first 16 bytes are kept
}

func (rw *responseWriter) Header() http.Header { return rw.w.Header() }

func (rw *responseWriter) Unwrap() http.ResponseWriter { return rw.w }

// WriteHeader is NGINX's image header filter: it holds the header back,
// except for a 304, whatever the status (an error page is filtered too,
// and is no image).
func (rw *responseWriter) WriteHeader(code int) {
	if rw.wrote {
		return
	}
	if code >= 100 && code < 200 {
		rw.w.WriteHeader(code)
		return
	}
	rw.wrote, rw.code = true, code
	hdr := rw.w.Header()
	if code == http.StatusNotModified {
		rw.state = passing
		rw.w.WriteHeader(code)
		return
	}
	if ct := hdr.Get("Content-Type"); len(ct) >= 25 && strings.EqualFold(ct[:25], "multipart/x-mixed-replace") {
		// NGINX fails the request: the connection is closed.
		panic(http.ErrAbortHandler)
	}
	rw.limit = rw.h.opts.Buffer
	if cl := hdr.Get("Content-Length"); cl != "" {
		n, err := strconv.ParseInt(cl, 10, 64)
		if err == nil && n > rw.limit {
			rw.state = refused
			return
		}
		if err == nil {
			rw.limit = n
		}
	}
	hdr.Del("Refresh")
	if rw.h.opts.Mode == Test {
		rw.state = probing
	}
}

func (rw *responseWriter) Write(b []byte) (int, error) {
	if !rw.wrote {
		rw.WriteHeader(http.StatusOK)
	}
	switch rw.state {
	case passing:
		if rw.r.Method == http.MethodHead && rw.code != http.StatusNotModified {
			// The content was asked for a GET; a HEAD gets no body.
			return len(b), nil
		}
		return rw.w.Write(b)
	case refused:
		return len(b), nil
	case probing:
		n := min(len(b), 16-len(rw.body))
		rw.body = append(rw.body, b[:n]...)
		if len(rw.body) < 16 {
			return len(b), nil
		}
		if !rw.pass() {
			return len(b), nil
		}
		if _, err := rw.Write(b[n:]); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	if rw.over {
		return len(b), nil
	}
	if int64(len(rw.body))+int64(len(b)) > rw.limit {
		// NGINX has told the type from the first bytes by then: the
		// size of a body that is no image is still "{}".
		if len(rw.body) < 16 {
			rw.body = append(rw.body, b[:min(len(b), 16-len(rw.body))]...)
		}
		rw.body, rw.over = rw.body[:min(len(rw.body), 16)], true
		return len(b), nil
	}
	rw.body = append(rw.body, b...)
	return len(b), nil
}

// pass ends the test of "test" with the first bytes held: an image goes
// on, labelled with its type, anything else is refused.
func (rw *responseWriter) pass() bool {
	t := Detect(rw.body)
	if t == None {
		rw.state = refused
		return false
	}
	rw.state = passing
	rw.w.Header().Set("Content-Type", t.ContentType())
	rw.w.WriteHeader(rw.code)
	if rw.r.Method != http.MethodHead {
		_, _ = rw.w.Write(rw.body)
	}
	return true
}

// Flush sends what passes; a held body stays held.
func (rw *responseWriter) Flush() {
	if rw.state != passing {
		return
	}
	if f, ok := rw.w.(http.Flusher); ok {
		f.Flush()
	}
}

// finish answers once the content is done, as NGINX's body filter does
// at the last buffer.
func (rw *responseWriter) finish() {
	if !rw.wrote {
		rw.WriteHeader(http.StatusOK)
	}
	switch rw.state {
	case passing:
		return
	case probing:
		if !rw.pass() {
			rw.fail()
		}
		return
	case refused:
		rw.fail()
		return
	}
	if rw.over {
		if Detect(rw.body) == None && rw.h.opts.Mode == Size {
			rw.send(http.StatusOK, emptyJSON, "application/json", true)
			return
		}
		rw.fail()
		return
	}
	res, err := ProcessContext(rw.r.Context(), rw.body, rw.h.params(rw.r))
	switch {
	case err != nil:
		rw.fail()
	case res.Type == None:
		rw.send(http.StatusOK, res.Body, "application/json", true)
	default:
		if !res.AsIs {
			header.WeakenETag(rw.w.Header())
		}
		rw.send(rw.code, res.Body, res.Type.ContentType(), false)
	}
}

func (rw *responseWriter) fail() {
	rw.h.opts.Error(rw.w, rw.r, http.StatusUnsupportedMediaType)
}

// send writes the answer; clean drops the content's header fields first,
// as NGINX does for the JSON.
func (rw *responseWriter) send(code int, body []byte, contentType string, clean bool) {
	h := rw.w.Header()
	if clean {
		clear(h)
	}
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	rw.w.WriteHeader(code)
	if rw.r.Method != http.MethodHead {
		_, _ = rw.w.Write(body)
	}
}
