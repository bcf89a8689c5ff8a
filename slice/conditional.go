package slice

import (
	"net/http"

	"github.com/mosaic-edge/mosaic/internal/notmodified"
)

// preconditions answers the client's conditional fields for the
// assembled 200 whose header (the first slice's validators) is h, as
// NGINX's not-modified filter does (internal/notmodified). ims is
// if_modified_since. It returns 0 to send the response.
func preconditions(r *http.Request, h http.Header, ims string) int {
	since := notmodified.Exact
	switch ims {
	case "before":
		since = notmodified.Before
	case "off":
		since = notmodified.Off
	}
	return notmodified.CheckResponse(r.Header, h, since)
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
