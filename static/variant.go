package static

import (
	"net/http"
	"slices"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// Variant is a precompressed copy of a file, found beside it under the
// file's name plus Suffix (".br", ".zst", ".gz") and sent with
// Content-Encoding: Encoding. It is sent whole, whatever Range asks, as
// NGINX 1.22 sends its precompressed copies.
type Variant struct {
	Suffix   string
	Encoding string
}

// VariantFunc returns the precompressed variants to try for r, best first
// (nil when none apply: the client accepts none of them and the mode is
// not "always"), and whether a served variant carries Vary:
// Accept-Encoding (gzip_vary).
type VariantFunc func(r *http.Request) (try []Variant, vary bool)

// serveVariant serves the first variant of rel that exists as a regular
// file and reports whether it did. The variant's own size, ETag and
// Last-Modified describe the response, as NGINX's gzip_static does; the
// media type is the original file's. Ranges and conditionals apply to the
// variant's bytes.
func (h *FileServer) serveVariant(w http.ResponseWriter, r *http.Request, rel string) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	try, vary := h.variants(r)
	for _, v := range try {
		f, err := h.open(rel + v.Suffix)
		if err != nil {
			continue
		}
		if f.info.kind != kindRegular {
			f.close()
			continue
		}
		if vary {
			header.VaryAcceptEncoding(w.Header())
		}
		h.serveFile(w, r, &f, rel, v)
		f.close()
		return true
	}
	for _, v := range h.varyVariants {
		if slices.Contains(try, v) {
			continue // tried above, and not there
		}
		if f, err := h.open(rel + v.Suffix); err == nil {
			f.close()
			header.VaryAcceptEncoding(w.Header())
			break
		}
	}
	return false
}
