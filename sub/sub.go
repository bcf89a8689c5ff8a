// Package sub replaces strings in responses as NGINX's sub filter
// (ngx_http_sub_module) does: the patterns are searched for
// case-insensitively as the body streams through, and each match is
// replaced with its text. It is net/http middleware; Replacer is the same
// rewriting of any stream.
package sub

import (
	"io"
	"net/http"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/vars"
)

// Pair is a sub_filter line.
type Pair struct {
	Match   *vars.Template // the text searched for; with variables, evaluated per response
	Replace *vars.Template // evaluated at the first match of a response
}

// Options configure the filter; the fields are NGINX's sub_filter*
// directives.
type Options struct {
	Pairs []Pair
	// Once replaces each pattern at its first match only (sub_filter_once,
	// which is on by default in NGINX; the zero Options replace every
	// match).
	Once bool
	// Types are processed besides text/html; "*" all (sub_filter_types).
	Types []string
	// LastModified keeps Last-Modified and weakens ETag; otherwise both
	// are removed (sub_filter_last_modified).
	LastModified bool
	// Subrequest reports whether r is a subrequest (an include), whose
	// header NGINX leaves as it is: only its body is rewritten. nil: none
	// is.
	Subrequest func(r *http.Request) bool
}

// Processed returns the test of the Content-Types a filter with these
// types rewrites: text/html always, as in NGINX.
func Processed(types []string) func(contentType string) bool {
	return header.TypeMatcher(types)
}

type handler struct {
	next      http.Handler
	opts      Options
	processed func(string) bool
	static    *Set // the patterns when none has variables
	dynamic   bool
}

// New returns next with the responses of the processed types rewritten.
// With no pairs it returns next.
func New(next http.Handler, opts Options) http.Handler {
	if len(opts.Pairs) == 0 {
		return next
	}
	h := &handler{next: next, opts: opts, processed: Processed(opts.Types)}
	var lits []string
	for _, p := range opts.Pairs {
		if !p.Match.Static() {
			h.dynamic = true
		}
		lits = append(lits, p.Match.Literal())
	}
	if !h.dynamic {
		h.static = Compile(lits)
	}
	return h
}

// set returns the patterns for r: those with variables evaluated, the
// empty ones left out; nil when none is left.
func (h *handler) set(r *http.Request) *Set {
	if !h.dynamic {
		return h.static
	}
	pats := make([]string, len(h.opts.Pairs))
	for i, p := range h.opts.Pairs {
		pats[i] = p.Match.Eval(r)
	}
	return Compile(pats)
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rw := &responseWriter{h: h, w: w, r: r}
	h.next.ServeHTTP(rw, r)
	if rw.z != nil {
		rw.z.Close()
	}
}

// responseWriter decides, when the header is written, whether the response
// is rewritten, and then feeds its body to a Replacer.
type responseWriter struct {
	h     *handler
	w     http.ResponseWriter
	r     *http.Request
	wrote bool
	z     *Replacer
}

func (rw *responseWriter) Header() http.Header { return rw.w.Header() }

func (rw *responseWriter) Unwrap() http.ResponseWriter { return rw.w }

func (rw *responseWriter) WriteHeader(code int) {
	if rw.wrote {
		return
	}
	if code >= 100 && code < 200 {
		rw.w.WriteHeader(code)
		return
	}
	rw.wrote = true
	rw.start(code)
	rw.w.WriteHeader(code)
}

// start is NGINX's sub header filter. It looks neither at the status (an
// error page is rewritten too) nor at Content-Encoding: a compressed body
// is searched as it is. A 304 has lost its Content-Type in NGINX before
// the filter sees it, so it is left alone; so is a body announced empty.
func (rw *responseWriter) start(code int) {
	h := rw.h
	hdr := rw.w.Header()
	if code == http.StatusNotModified || hdr.Get("Content-Length") == "0" || !h.processed(hdr.Get("Content-Type")) {
		return
	}
	set := h.set(rw.r)
	if set == nil {
		return
	}
	// The length changes. NGINX's range filter, behind this one, then
	// neither offers ranges nor adds Accept-Ranges (the file server's
	// Unranged); an upstream's Accept-Ranges stays, as in NGINX.
	hdr.Del("Content-Length")
	header.UnknownLength(rw.w)
	if h.opts.Subrequest == nil || !h.opts.Subrequest(rw.r) {
		if h.opts.LastModified {
			header.WeakenETag(hdr)
		} else {
			hdr.Del("Last-Modified")
			hdr.Del("Etag")
		}
	}
	if rw.r.Method == http.MethodHead {
		return
	}
	values := make([][]byte, len(h.opts.Pairs))
	done := make([]bool, len(h.opts.Pairs))
	rw.z = NewReplacer(rw.w, set, h.opts.Once, func(i int) []byte {
		if !done[i] {
			values[i], done[i] = []byte(h.opts.Pairs[i].Replace.Eval(rw.r)), true
		}
		return values[i]
	})
}

func (rw *responseWriter) Write(b []byte) (int, error) {
	if !rw.wrote {
		rw.WriteHeader(http.StatusOK)
	}
	if rw.z == nil {
		return rw.w.Write(b)
	}
	return rw.z.Write(b)
}

// ReadFrom keeps sendfile for the responses that are not rewritten.
func (rw *responseWriter) ReadFrom(src io.Reader) (int64, error) {
	if !rw.wrote {
		rw.WriteHeader(http.StatusOK)
	}
	if rf, ok := rw.w.(io.ReaderFrom); ok && rw.z == nil {
		return rf.ReadFrom(src)
	}
	return io.Copy(struct{ io.Writer }{rw}, src)
}

// Flush sends what is rewritten; the few bytes that may begin a match stay
// held, as in NGINX, which holds them through a flush too.
func (rw *responseWriter) Flush() {
	if f, ok := rw.w.(http.Flusher); ok {
		f.Flush()
	}
}
