package slice

import (
	"net/http"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/httpdate"
)

// preconditions answers the client's conditional fields for the
// assembled 200 whose header (the first slice's validators) is h, in the
// order of NGINX's not-modified filter: If-Unmodified-Since, If-Match
// (412 when they fail), then If-Modified-Since and If-None-Match (304 when
// every one present holds). ims is if_modified_since. It returns 0 to
// send the response.
func preconditions(r *http.Request, h http.Header, ims string) int {
	lm, hasLM := int64(0), false
	if v := h["Last-Modified"]; len(v) > 0 {
		if t, ok := httpdate.Parse(v[0]); ok {
			lm, hasLM = t.Unix(), true
		}
	}
	etag := ""
	if v := h["Etag"]; len(v) > 0 {
		etag = v[0]
	}
	if v := r.Header["If-Unmodified-Since"]; len(v) > 0 {
		t, ok := httpdate.Parse(v[0])
		if !hasLM || !ok || t.Unix() < lm {
			return http.StatusPreconditionFailed
		}
	}
	if v := r.Header["If-Match"]; len(v) > 0 && !etagListHas(v[0], etag, false) {
		return http.StatusPreconditionFailed
	}
	imsv, inm := r.Header["If-Modified-Since"], r.Header["If-None-Match"]
	if len(imsv) == 0 && len(inm) == 0 {
		return 0
	}
	if len(imsv) > 0 {
		if !hasLM || ims == "off" {
			return 0
		}
		t, ok := httpdate.Parse(imsv[0])
		if !ok || (t.Unix() != lm && (ims != "before" || t.Unix() < lm)) {
			return 0
		}
	}
	if len(inm) > 0 && !etagListHas(inm[0], etag, true) {
		return 0
	}
	return http.StatusNotModified
}

// etagListHas reports whether the entity-tag list v ("*", or tags
// separated by commas and spaces) names etag, as NGINX compares them:
// byte for byte, with etag's "W/" ignored when weak.
func etagListHas(v, etag string, weak bool) bool {
	if v == "*" {
		return true
	}
	if etag == "" {
		return false
	}
	if weak {
		etag = strings.TrimPrefix(etag, "W/")
	}
	for _, tag := range strings.FieldsFunc(v, func(c rune) bool { return c == ',' || c == ' ' || c == '\t' }) {
		if tag == etag || (weak && tag == "W/"+etag) {
			return true
		}
	}
	return false
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
