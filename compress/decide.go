package compress

import (
	"log/slog"
	"net/http"
)

// decide picks the coding for a response whose status, Content-Encoding and
// Cache-Control allowed compression (start has checked them), and sets the
// headers that go with it.
func (w *responseWriter) decide(empty bool) {
	h := w.rw.Header()
	if w.cfg.varies(true, w.gzipBody) {
		addVary(h)
	}
	length := w.declared
	if empty && !w.head {
		length = 0
	}
	enc := w.choose(h, length)
	if enc != Identity && w.cfg.cache != nil {
		if body := w.lookupBody(h, enc, length); body != nil {
			setCodingHeaders(h, enc)
			w.serveBody(enc, body)
			return
		}
	}
	if enc != Identity && !w.head {
		if err := w.startEncoder(enc, length); err != nil {
			slog.Error("compress: cannot start encoder, sending identity", "coding", enc, "err", err)
			enc = Identity
			w.cacheKey = ""
		}
	}
	if enc == Identity {
		w.state = stateIdentity
		w.sendHeader(-1)
		return
	}
	setCodingHeaders(h, enc)
	if w.head {
		w.state = stateHeadOnly
		return
	}
	w.state = stateCompress
}

// setCodingHeaders makes the headers of a response compressed with enc.
func setCodingHeaders(h http.Header, enc Encoding) {
	h["Content-Encoding"] = []string{enc.String()}
	h.Del("Content-Length")
	h.Del("Accept-Ranges")
	weakenETag(h)
}

// choose returns the best coding the client accepts whose own directives
// take this response, or Identity. length is the body's length, -1 when
// unknown; a body of unknown length (streamed) can be compressed, an empty
// one never.
func (w *responseWriter) choose(h http.Header, length int64) Encoding {
	if length == 0 || w.ranked.Len() == 0 {
		return Identity
	}
	// A range request is served from the identity body: NGINX would ignore
	// the Range and compress, but clients asking for a range (resuming a
	// download, seeking in media) want the bytes they asked for.
	if len(w.req.Header["Range"]) > 0 {
		return Identity
	}
	mt := lowerMediaType(h.Get("Content-Type"))
	skipped := w.cfg.skip.contains(mt)
	for i := 0; i < w.ranked.Len(); i++ {
		e := w.ranked.At(i)
		c := &w.cfg.coding[e]
		if !c.types.takes(mt, skipped) || (length > 0 && length < c.minLength) {
			continue
		}
		if e == Gzip && !w.cfg.gzipAllowed(w.req, h) {
			continue
		}
		return e
	}
	return Identity
}
