package compress

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/vars"
)

// CacheStatusVariable is the variable that tells how the body cache took a
// compressed response: HIT, MISS or BYPASS (not a fixed object, or HEAD).
// It is empty when the response is not compressed or the cache is off.
const CacheStatusVariable = "compress_cache_status"

// lookupBody looks for the compressed body of a response about to be
// compressed with enc. It returns the body on a hit; on a miss of a body
// that may be kept it sets w.cacheKey, so that the output is collected.
func (w *responseWriter) lookupBody(h http.Header, enc Encoding, length int64) *cachedBody {
	st := vars.FromContext(w.req.Context())
	validator := objectValidator(h, length)
	if w.head || validator == "" || w.status != http.StatusOK ||
		length <= 0 || length > MaxCachedBody || hasTrailers(h) || variesOtherwise(h["Vary"]) ||
		header.HasToken(h["Cache-Control"], "no-store") || header.HasToken(h["Cache-Control"], "private") {
		st.Set(CacheStatusVariable, "BYPASS")
		return nil
	}
	level, window := w.cfg.coding[enc].level, 0
	switch enc {
	case Brotli:
		window = brotliWindowBits(w.cfg.brotliBits, length)
	case Zstd:
		window = zstdWindowLog(length)
	}
	uri := w.req.RequestURI
	if uri == "" {
		uri = w.req.URL.RequestURI()
	}
	key := bodyCacheKey(w.cfg.cacheScope, w.req.Host, uri, validator, enc, level, window)
	if body, ok := w.cfg.cache.get(key); ok {
		st.Set(CacheStatusVariable, "HIT")
		return body
	}
	st.Set(CacheStatusVariable, "MISS")
	w.cacheKey = key
	return nil
}

// variesOtherwise reports whether a response's Vary names a request field
// other than those a kept body is chosen by (Accept-Encoding, and
// Available-Dictionary), or is "*": its bytes may then differ between
// two requests for the same URI and validator (Vary: Cookie, one user's
// page and another's), and one's compressed body must not answer the
// other.
func variesOtherwise(vary []string) bool {
	for _, line := range vary {
		for name := range strings.SplitSeq(line, ",") {
			name = header.TrimOWS(name)
			if name != "" && !strings.EqualFold(name, "Accept-Encoding") && !strings.EqualFold(name, "Available-Dictionary") {
				return true
			}
		}
	}
	return false
}

// objectValidator returns what identifies a fixed object: its strong ETag
// (static files derive it from mtime and size; cached upstream responses
// carry the origin's), or else its Last-Modified with its length. A weak
// ETag promises only equivalent content, not the same bytes, and alone
// it is not enough.
func objectValidator(h http.Header, length int64) string {
	if et := h.Get("Etag"); strings.HasPrefix(et, `"`) {
		return et
	}
	if lm := h.Get("Last-Modified"); lm != "" && length > 0 {
		return lm + " " + strconv.FormatInt(length, 10)
	}
	return ""
}

// serveBody sends a kept body whole, with its length; the handler's own
// body is then dropped as it comes.
func (w *responseWriter) serveBody(enc Encoding, body *cachedBody) {
	w.state = stateCached
	w.sendHeader(int64(len(body.data)))
	w.emit(body.data)
	if w.err == nil && len(body.data) > 0 {
		vars.FromContext(w.req.Context()).SetRatio(enc.RatioVariable(), body.in, int64(len(body.data)))
	}
}

// storeBody keeps the output of a compression the cache lacked, once the
// encoder has produced all of it, nothing failed and the handler wrote the
// body it declared. It runs before the last bytes go out, so that a client
// that has the whole response finds the body in the store.
func (w *responseWriter) storeBody() {
	if w.cacheKey == "" {
		return
	}
	if w.err == nil && w.in == w.declared {
		w.cfg.cache.put(w.cacheKey, &cachedBody{data: w.fill, in: w.in})
	}
	w.cacheKey, w.fill = "", nil
}
