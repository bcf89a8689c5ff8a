// Package compress compresses HTTP responses with brotli, zstd and gzip, as
// NGINX's gzip module and ngx_brotli do, and decompresses gzip responses for
// clients that cannot take them. It is plain net/http middleware: see
// Handler and Options. Negotiate and Table pick a coding from
// Accept-Encoding for callers that serve precompressed files.
package compress

import (
	"log/slog"
	"net/http"
)

// Handler returns next wrapped so that its responses are compressed as opts
// say. It panics if opts does not pass Validate, as a bad route pattern
// panics in http.ServeMux: options are fixed when a server is built. With
// every coding and gunzip off it returns next itself.
func Handler(next http.Handler, opts Options) http.Handler {
	cfg, err := newConfig(opts)
	if err != nil {
		panic(err)
	}
	if !cfg.active() {
		return next
	}
	return &handler{next: next, cfg: cfg}
}

type handler struct {
	next http.Handler
	cfg  *config
}

func (h *handler) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if isUpgrade(r) {
		h.next.ServeHTTP(rw, r)
		return
	}
	ranked := h.cfg.table.Negotiate(acceptEncoding(r.Header))
	if ranked.Len() == 0 && !h.cfg.vary && !h.cfg.gunzip {
		// Nothing to compress for this client and no header to add:
		// leave the response writer as it is.
		h.next.ServeHTTP(rw, r)
		return
	}
	w := &responseWriter{
		rw:       rw,
		req:      r,
		cfg:      h.cfg,
		ranked:   ranked,
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
	err := w.finish()
	finished = true
	if err != nil {
		// Part of the response may be out with headers that promise a
		// complete body; closing the connection is the only honest end.
		lg := h.cfg.logger
		if lg == nil {
			lg = slog.Default()
		}
		lg.Warn("compress: aborting response", "method", r.Method, "uri", r.RequestURI, "err", err)
		panic(http.ErrAbortHandler)
	}
}
