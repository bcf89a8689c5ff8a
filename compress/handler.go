// Package compress compresses HTTP responses with brotli, zstd and gzip, as
// NGINX's gzip module and ngx_brotli do. It is plain net/http middleware:
// see New and Options. Decoding gzip for clients that cannot take it is
// package gunzip's, whose test of the client GunzipTest provides. Negotiate and Table pick a coding from Accept-Encoding, and
// Precompressed the precompressed copies of a file (brotli_static,
// zstd_static, gzip_static), for callers that serve files.
//
// The package knows no server: the mosaic binary builds its Options from
// the configuration in package modules/compressmod.
package compress

import (
	"net/http"
	"sync"
)

// New returns next wrapped so that its responses are compressed as opts
// say, or an error naming the options that do not pass Validate. With
// every coding off it returns next itself.
func New(next http.Handler, opts Options) (http.Handler, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if !cfg.active() {
		return next, nil
	}
	return &handler{next: next, cfg: cfg}, nil
}

type handler struct {
	next http.Handler
	cfg  *config
}

func (h *handler) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	// A CONNECT's 200 (an extended CONNECT over HTTP/2) opens a tunnel,
	// not a body to compress. A WebSocket upgrade over HTTP/1.1 is served
	// through the writer: its 101 passes as it is, and the handler that
	// takes the connection hijacks it through the writer, but a plain 200
	// to such a request is a response like any other, compressed and
	// varied as NGINX's gzip filter does it.
	if r.Method == http.MethodConnect {
		h.next.ServeHTTP(rw, r)
		return
	}
	ranked := h.cfg.table.Negotiate(acceptEncoding(r.Header))
	dreq := h.cfg.dicts.lookup(r)
	if ranked.Len() == 0 && dreq.dict == nil && !h.cfg.vary {
		// Nothing to compress for this client and no header to add:
		// leave the response writer as it is.
		h.next.ServeHTTP(rw, r)
		return
	}
	w := writers.Get().(*responseWriter)
	*w = responseWriter{
		rw:       rw,
		req:      r,
		cfg:      h.cfg,
		ranked:   ranked,
		dreq:     dreq,
		head:     r.Method == http.MethodHead,
		declared: -1,
	}
	finished := false
	defer func() {
		if !finished {
			w.abort()
		}
	}()
	h.next.ServeHTTP(w, r)
	if err := w.finish(); err != nil {
		// An encoder that fails leaves no body, or part of one, to end
		// as if complete: NGINX's filters abort the request and close
		// the connection, and so does the server here (the deferred
		// abort keeps the writer from the pool).
		if lg := h.cfg.logger; lg != nil {
			lg.ErrorContext(r.Context(), "compress: response aborted", "method", r.Method, "uri", r.RequestURI, "err", err)
		}
		if r.Context().Value(http.ServerContextKey) != nil {
			panic(http.ErrAbortHandler)
		}
	}
	finished = true
	w.recycle()
}

// writers recycles the response writers. A writer is the largest object
// the filter allocates per response (416 bytes, most of what it allocates),
// and the garbage collector's work grows with the bytes allocated.
var writers = sync.Pool{New: func() any { return new(responseWriter) }}

// recycle returns a writer whose response has finished to writers, emptied
// so that it keeps nothing of the response alive, idle encoders whose
// destination it was included. A writer that may still be reached is left
// to the collector: a hijacked or aborted response's (the handler or its
// goroutines may hold it) and a parallel one's (its segments point back to
// it).
func (w *responseWriter) recycle() {
	if w.state == stateDone || w.parallel {
		return
	}
	*w = responseWriter{}
	writers.Put(w)
}
