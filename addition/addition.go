// Package addition puts the bodies of two other requests around a
// response's body, as NGINX's addition filter (ngx_http_addition_module)
// does for add_before_body and add_after_body: the page's own body is
// left as it is, and what the two URIs answer is sent before and after
// it. It is net/http middleware; the requests for the two URIs are made
// by the caller's Fetch (in the server, subrequests).
package addition

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// Fetcher answers uri for the response of parent. The caller reads the
// Body to its end and closes it; the status and header are not used.
type Fetcher func(parent *http.Request, uri string) (*http.Response, error)

// Options configure the filter; Before, After and Types are NGINX's
// add_before_body, add_after_body and addition_types.
type Options struct {
	// Before and After are the URIs whose bodies go before and after the
	// response's body; "" for none.
	Before, After string
	// Types are processed besides text/html; "*" all.
	Types []string
	// Fetch makes the requests for Before and After. Required when
	// either is set.
	Fetch Fetcher
	// Main reports whether r is a client's request rather than a
	// subrequest, which NGINX never adds to. nil: every request is.
	Main func(r *http.Request) bool
	// Logger receives the failures of Fetch (nil: slog.Default()).
	Logger *slog.Logger
}

// Processed returns the test of the Content-Types a filter with these
// types adds to: text/html always, as in NGINX.
func Processed(types []string) func(contentType string) bool {
	return header.TypeMatcher(types)
}

type handler struct {
	next      http.Handler
	opts      Options
	processed func(string) bool
}

// New returns next with the bodies of opts.Before and opts.After around
// the body of each 200 response of the processed types. With neither
// URI set it returns next.
func New(next http.Handler, opts Options) (http.Handler, error) {
	if opts.Before == "" && opts.After == "" {
		return next, nil
	}
	if opts.Fetch == nil {
		return nil, errors.New("addition: Options.Fetch is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &handler{next: next, opts: opts, processed: Processed(opts.Types)}, nil
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.opts.Main != nil && !h.opts.Main(r) {
		h.next.ServeHTTP(w, r)
		return
	}
	rw := &responseWriter{h: h, w: w, r: r}
	h.next.ServeHTTP(rw, r)
	if !rw.wrote {
		// Nothing written is an empty 200, which NGINX's filter
		// surrounds as any other.
		rw.WriteHeader(http.StatusOK)
	}
	if rw.adding {
		rw.before()
		rw.include(h.opts.After)
	}
}

// responseWriter decides, when the header is written, whether the
// response is added to, and sends the Before body ahead of the first
// byte of its own.
type responseWriter struct {
	h          *handler
	w          http.ResponseWriter
	r          *http.Request
	wrote      bool
	adding     bool // the bodies are added: a 200 of a processed type, not HEAD
	beforeSent bool
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
	hdr := rw.w.Header()
	if code == http.StatusOK && rw.h.processed(hdr.Get("Content-Type")) {
		// The body's length changes and its bytes are no longer the
		// ones the validators name: NGINX drops the length and the
		// offer of ranges (an upstream's too), and weakens the ETag;
		// Last-Modified stays. A HEAD gets the same header and no
		// subrequests.
		hdr.Del("Content-Length")
		header.UnknownLength(rw.w)
		hdr.Del("Accept-Ranges")
		header.WeakenETag(hdr)
		rw.adding = rw.r.Method != http.MethodHead
	}
	rw.w.WriteHeader(code)
}

func (rw *responseWriter) Write(b []byte) (int, error) {
	if !rw.wrote {
		rw.WriteHeader(http.StatusOK)
	}
	rw.before()
	return rw.w.Write(b)
}

// ReadFrom keeps sendfile for the response's own body.
func (rw *responseWriter) ReadFrom(src io.Reader) (int64, error) {
	if !rw.wrote {
		rw.WriteHeader(http.StatusOK)
	}
	rw.before()
	if rf, ok := rw.w.(io.ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	return io.Copy(struct{ io.Writer }{rw.w}, src)
}

func (rw *responseWriter) Flush() {
	if f, ok := rw.w.(http.Flusher); ok {
		f.Flush()
	}
}

// before sends the Before body once, ahead of the response's own.
func (rw *responseWriter) before() {
	if !rw.adding || rw.beforeSent {
		return
	}
	rw.beforeSent = true
	rw.include(rw.h.opts.Before)
}

// include copies what uri answers into the response, whatever its status
// (an error page's body too, as NGINX's subrequest output). A failure
// ends the response: its header is gone, and NGINX closes the
// connection of a request whose subrequest failed.
func (rw *responseWriter) include(uri string) {
	if uri == "" {
		return
	}
	resp, err := rw.h.opts.Fetch(rw.r, uri)
	if err == nil {
		_, err = io.Copy(rw.w, resp.Body)
		resp.Body.Close()
	}
	if err != nil {
		if rw.r.Context().Err() == nil { // not merely a client that left
			rw.h.opts.Logger.Error(fmt.Sprintf("addition of %q: %v", uri, err))
		}
		panic(http.ErrAbortHandler)
	}
}
