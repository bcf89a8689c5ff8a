package slice

import (
	"net/http"

	"github.com/mosaic-edge/mosaic/internal/notmodified"
)

// since reads if_modified_since ("exact" or "", "before", "off") once,
// for the not-modified filter's answer to the assembled 200.
func since(ims string) notmodified.Since {
	switch ims {
	case "before":
		return notmodified.Before
	case "off":
		return notmodified.Off
	}
	return notmodified.Exact
}

// fail answers code with the error page and none of the slice's fields,
// as NGINX's filters end a request.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, code int) {
	clear(w.Header())
	if h.errorPage != nil {
		h.errorPage(w, r, code)
		return
	}
	http.Error(w, http.StatusText(code), code)
}
