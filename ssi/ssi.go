// Package ssi processes Server Side Includes as NGINX's SSI filter does:
// the "<!--# command -->" markup of a response (include, echo, set,
// if/elif/else/endif, config, block/endblock) is carried out as the
// response streams through. Included documents are fetched through a
// Fetcher (the server's subrequests); those the page does not wait for
// are fetched in parallel and spliced in document order.
package ssi

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// DefaultErrorMessage replaces a command that failed, until "config
// errmsg" changes it.
const DefaultErrorMessage = "[an error occurred while processing the directive]"

// Fetcher fetches an included document: uri is absolute, with its
// arguments after "?". The request it issues must carry parent's context,
// so that SSI variables reach the included document's own processing.
type Fetcher func(parent *http.Request, uri string) (*http.Response, error)

// Options configure a processor; the fields are NGINX's ssi_* directives.
type Options struct {
	Types        []string // ssi_types: processed besides text/html; "*" = all
	SilentErrors bool     // ssi_silent_errors
	ValueLength  int      // ssi_value_length (0: DefaultValueLength)
	LastModified bool     // ssi_last_modified: keep Last-Modified, weaken ETag
	// Variable returns a request variable ($uri...) by lower-case name;
	// found false when the request has none (echo then prints its
	// default). nil: no request variables.
	Variable func(r *http.Request, name string) (value string, found bool)
	Fetch    Fetcher // required for include
	// SetLimit returns the most bytes of an included response that
	// include set= may put in its variable (NGINX's
	// subrequest_output_buffer_size, of the included location). A longer
	// response ends the whole request, its connection closed, as in NGINX.
	// nil: one memory page.
	SetLimit func(resp *http.Response) int64
	// IncludeBuffer bounds the bytes of an include held in memory until
	// its place in the page is written, and those of the page's own text
	// behind an include; a longer body is read as the client takes it
	// (0: DefaultIncludeBuffer).
	IncludeBuffer int
	// MaxIncludes bounds the includes of one client request, its
	// included documents' counted with the page's: the next one fails
	// as an include that could not be made (0: DefaultMaxIncludes).
	MaxIncludes int
	Logger      *slog.Logger // default slog.Default()
}

// Processed returns the test of the Content-Types a processor with these
// types rebuilds: text/html always, as in NGINX.
func Processed(types []string) func(contentType string) bool {
	return header.TypeMatcher(types)
}

type handler struct {
	next      http.Handler
	opts      Options
	processed func(string) bool
	log       *slog.Logger
}

// New returns next with its responses of the processed types run through
// SSI.
func New(next http.Handler, opts Options) http.Handler {
	h := &handler{next: next, opts: opts, processed: Processed(opts.Types), log: opts.Logger}
	if h.log == nil {
		h.log = slog.Default()
	}
	if h.opts.ValueLength <= 0 {
		h.opts.ValueLength = DefaultValueLength
	}
	if h.opts.IncludeBuffer <= 0 {
		h.opts.IncludeBuffer = DefaultIncludeBuffer
	}
	if h.opts.MaxIncludes <= 0 {
		h.opts.MaxIncludes = DefaultMaxIncludes
	}
	return h
}

// shared is what NGINX keeps in the main request's SSI context and every
// included document sees: the variables "set" (and named captures and
// include set= made), the last regular expression's captures, the blocks.
type shared struct {
	mu       sync.Mutex
	vars     map[string]string
	captures []string
	blocks   []block
	// includes counts the includes begun in the whole request, for
	// Options.MaxIncludes.
	includes int
}

type block struct {
	name string
	body []byte
}

type sharedKey struct{}

func sharedFrom(ctx context.Context) (*shared, context.Context) {
	if s, ok := ctx.Value(sharedKey{}).(*shared); ok {
		return s, ctx
	}
	s := &shared{vars: map[string]string{}}
	return s, context.WithValue(ctx, sharedKey{}, s)
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sh, ctx := sharedFrom(r.Context())
	if ctx != r.Context() {
		r = r.WithContext(ctx)
	}
	rw := &responseWriter{h: h, w: w, r: r, sh: sh}
	defer func() {
		// Includes still running when the page ends without close (the
		// handler panicked) must not wait for room that never comes.
		if rw.doc != nil {
			rw.doc.abandon()
		}
	}()
	h.next.ServeHTTP(rw, r)
	if rw.doc != nil {
		rw.doc.close()
		if rw.doc.aborted() {
			// NGINX ends the request whose subrequest answered more than
			// it may hold: nothing more is sent, the connection closes.
			panic(http.ErrAbortHandler)
		}
	}
}

// responseWriter decides, when the header is written, whether the response
// is processed, and then feeds its body to a document.
type responseWriter struct {
	h     *handler
	w     http.ResponseWriter
	r     *http.Request
	sh    *shared
	wrote bool
	doc   *document
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
	// A HEAD loses the fields as its GET would, as in NGINX, whose SSI
	// header filter does not look at the method.
	if code != http.StatusNoContent && code != http.StatusNotModified &&
		hdr.Get("Content-Length") != "0" && hdr.Get("Content-Encoding") == "" && rw.h.processed(hdr.Get("Content-Type")) {
		hdr.Del("Content-Length")
		header.UnknownLength(rw.w)
		hdr.Del("Accept-Ranges")
		if rw.h.opts.LastModified {
			if et := hdr.Get("Etag"); et != "" && !strings.HasPrefix(et, "W/") {
				hdr.Set("Etag", "W/"+et)
			}
		} else {
			hdr.Del("Last-Modified")
			hdr.Del("Etag")
		}
		if rw.r.Method != http.MethodHead {
			rw.doc = rw.h.newDocument(rw.r, rw.sh, rw.w)
		}
	}
	rw.w.WriteHeader(code)
}

func (rw *responseWriter) Write(b []byte) (int, error) {
	if !rw.wrote {
		rw.WriteHeader(http.StatusOK)
	}
	if rw.doc == nil {
		return rw.w.Write(b)
	}
	if err := rw.doc.feed(b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// ReadFrom keeps sendfile for the responses that are not processed.
func (rw *responseWriter) ReadFrom(src io.Reader) (int64, error) {
	if !rw.wrote {
		rw.WriteHeader(http.StatusOK)
	}
	if rf, ok := rw.w.(io.ReaderFrom); ok && rw.doc == nil {
		return rf.ReadFrom(src)
	}
	return io.Copy(struct{ io.Writer }{rw}, src)
}

func (rw *responseWriter) Flush() {
	if rw.doc != nil {
		rw.doc.drain(false)
	}
	if f, ok := rw.w.(http.Flusher); ok {
		f.Flush()
	}
}

// logf logs a command that failed, as NGINX logs at level error.
func (h *handler) logf(r *http.Request, err error) {
	h.log.Error(strings.TrimPrefix(err.Error(), errSSI.Error()+": "), "uri", r.URL.RequestURI())
}

var errWrite = errors.New("ssi: client write failed")
