// Package gunzip decodes gzip response bodies for clients that cannot
// take gzip, as NGINX's gunzip filter does. It is plain net/http
// middleware: see New and Options. In the mosaic server it is the output
// filter named "gunzip" (modules/gunzipmod), placed where NGINX places
// its filter: inside sub_filter, SSI, charset and addition, which then
// read the decoded text, and inside compression, which may encode it
// again.
package gunzip

import (
	"errors"
	"io"
	"log/slog"
	"net/http"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// Options are the settings of New.
type Options struct {
	// Decode reports whether the gzip body of w's response, with header
	// h, goes to the client of r decoded; it is required. w is the writer
	// under the filter, whose time the response's Date has
	// (header.ResponseTime).
	// compress.GunzipTest returns NGINX's test, by Accept-Encoding and
	// the gzip directives (gzip_http_version, gzip_proxied,
	// gzip_disable).
	Decode func(w http.ResponseWriter, r *http.Request, h http.Header) bool
	// Vary adds "Vary: Accept-Encoding" to every response whose body is
	// gzip, decoded or not (gzip_vary): which it gets depends on the
	// request's Accept-Encoding.
	Vary bool
	// Logger receives the error of a body that is not valid gzip; nil:
	// slog.Default().
	Logger *slog.Logger
}

// New returns next wrapped so that a response with "Content-Encoding:
// gzip" (that coding alone) reaches a client that Options.Decode says
// cannot take it decoded: without Content-Encoding, Content-Length and
// Accept-Ranges, with its ETag weakened, and its body streamed as it is
// decoded, through a fixed buffer whatever the body's size. A 206 is left
// as it is: a slice of gzip cannot be decoded. A HEAD response and one
// without a body get the same fields and no body. A body that turns out
// not to be gzip ends the response where the error is found, and the
// handler panics with http.ErrAbortHandler so that the server closes the
// connection instead of ending the body as if it were complete. It
// returns an error when opts has no Decode.
func New(next http.Handler, opts Options) (http.Handler, error) {
	if opts.Decode == nil {
		return nil, errors.New("gunzip: Options.Decode is not set")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &handler{next: next, opts: opts}, nil
}

type handler struct {
	next http.Handler
	opts Options
}

func (h *handler) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w := &writer{rw: rw, r: r, opts: &h.opts}
	defer w.release()
	h.next.ServeHTTP(w, r)
	if !w.started {
		// A handler that set its fields and wrote nothing: they go out
		// when the server ends the response, decided here.
		w.start(http.StatusOK)
	}
	if w.dec == nil {
		return
	}
	err := w.dec.close()
	w.dec = nil
	if errors.Is(err, errCorrupt) {
		h.opts.Logger.Error("gunzip: the body is not valid gzip", "method", r.Method, "uri", r.RequestURI, "err", err)
		panic(http.ErrAbortHandler)
	}
	// Any other error is the client's writes failing, which the handler
	// has been told already.
}

// writer is the response writer the wrapped handler writes to.
type writer struct {
	rw      http.ResponseWriter
	r       *http.Request
	opts    *Options
	started bool
	drop    bool     // decoded fields, no body: HEAD, 204, 304
	dec     *decoder // the body is decoded on its way
}

func (w *writer) Header() http.Header { return w.rw.Header() }

// Unwrap lets http.ResponseController reach the writers below.
func (w *writer) Unwrap() http.ResponseWriter { return w.rw }

func (w *writer) WriteHeader(code int) {
	if !w.started && (code < 100 || code >= 200 || code == http.StatusSwitchingProtocols) {
		w.start(code)
	}
	w.rw.WriteHeader(code)
}

func (w *writer) Write(p []byte) (int, error) {
	if !w.started {
		w.WriteHeader(http.StatusOK)
	}
	switch {
	case w.dec != nil:
		return w.dec.write(p)
	case w.drop:
		return len(p), nil
	}
	return w.rw.Write(p)
}

// ReadFrom keeps the writers' sendfile for the bodies that are not
// decoded (a location with gunzip on serves plain files too).
func (w *writer) ReadFrom(src io.Reader) (int64, error) {
	if !w.started {
		w.WriteHeader(http.StatusOK)
	}
	if rf, ok := w.rw.(io.ReaderFrom); ok && w.dec == nil && !w.drop {
		return rf.ReadFrom(src)
	}
	return io.Copy(struct{ io.Writer }{w}, src)
}

// Flush passes a flush on: a write returns only once the decoder has
// passed on all it could decode, so nothing is held here.
func (w *writer) Flush() { _ = w.FlushError() }

// FlushError is Flush reporting errors; http.ResponseController uses it.
func (w *writer) FlushError() error {
	if !w.started {
		w.WriteHeader(http.StatusOK)
	}
	return http.NewResponseController(w.rw).Flush()
}

// start is NGINX's gunzip header filter: it runs once, when the status
// and fields are final.
func (w *writer) start(code int) {
	w.started = true
	h := w.rw.Header()
	if !header.GzipBody(h) {
		return
	}
	if w.opts.Vary {
		header.VaryAcceptEncoding(h)
	}
	if code == http.StatusPartialContent || !w.opts.Decode(w.rw, w.r, h) {
		return
	}
	delete(h, "Content-Encoding")
	h.Del("Content-Length")
	header.UnknownLength(w.rw)
	h.Del("Accept-Ranges")
	header.WeakenETag(h)
	if w.r.Method == http.MethodHead || code < 200 || code == http.StatusNoContent || code == http.StatusNotModified {
		w.drop = true
		return
	}
	w.dec = newDecoder(w.rw.Write)
}

// release stops the decoder of a handler that panicked, so that its
// goroutine ends; nothing more goes to the client, and the handler's
// panic is the one that goes on.
func (w *writer) release() {
	if w.dec != nil {
		w.dec.abandon()
		w.dec = nil
	}
}
