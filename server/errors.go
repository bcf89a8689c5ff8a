package server

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/internal/percent"
	"github.com/mosaic-edge/mosaic/internal/reason"
	"github.com/mosaic-edge/mosaic/internal/useragent"
	"github.com/mosaic-edge/mosaic/vars"
)

// errorPage is one "error_page" target.
type errorPage struct {
	uri       *vars.Template
	override  int  // "=code"; 0 keeps the original status
	useTarget bool // "=" alone: the target's own status
}

// setErrorPage reads "error_page code ... [=[response]] uri".
func setErrorPage(c *Cmd) error {
	cl := c.Loc().(*coreLoc)
	args := c.Args
	uriArg := args[len(args)-1]
	codes := args[:len(args)-1]
	var ep errorPage
	if n := len(codes); n > 0 && strings.HasPrefix(codes[n-1], "=") {
		eq := codes[n-1]
		codes = codes[:n-1]
		if eq == "=" {
			ep.useTarget = true
		} else {
			// Digits only, as NGINX's ngx_atoi reads them: "=+302" is
			// refused.
			code, ok := conf.Atoi(eq[1:])
			if !ok || code < 100 || code > 999 {
				return c.Errorf("invalid value %q", eq)
			}
			ep.override = int(code)
		}
	}
	if len(codes) == 0 {
		return c.Errorf("invalid number of arguments in %q directive", c.Name)
	}
	t, err := c.Template(uriArg)
	if err != nil {
		return err
	}
	ep.uri = t
	// Pages set at this level replace inherited ones, as in NGINX.
	if cl.errorPages == nil || !cl.ownPages {
		cl.errorPages = map[int]errorPage{}
		cl.ownPages = true
	}
	for _, s := range codes {
		// As NGINX words it: what ngx_atoi refuses (a sign, a letter)
		// and 499 are invalid, other numbers out of range.
		n, ok := conf.Atoi(s)
		if !ok || n == 499 {
			return c.Errorf("invalid value %q", s)
		}
		if n < 300 || n > 599 {
			return c.Errorf("value %q must be between 300 and 599", s)
		}
		code := int(n)
		// A code named again at the same level keeps its first page:
		// NGINX's ngx_http_send_error_page takes the first entry of
		// the level's list that has the status.
		if _, dup := cl.errorPages[code]; !dup {
			cl.errorPages[code] = ep
		}
	}
	return nil
}

// msiePadding follows the error pages of codes 400 and up for MSIE and
// Chrome (msie_padding): under 512 bytes, those browsers show a page of
// their own instead of the server's.
const msiePadding = "<!-- a padding to disable MSIE and Chrome friendly error page -->\r\n" +
	"<!-- a padding to disable MSIE and Chrome friendly error page -->\r\n" +
	"<!-- a padding to disable MSIE and Chrome friendly error page -->\r\n" +
	"<!-- a padding to disable MSIE and Chrome friendly error page -->\r\n" +
	"<!-- a padding to disable MSIE and Chrome friendly error page -->\r\n" +
	"<!-- a padding to disable MSIE and Chrome friendly error page -->\r\n"

// padded returns the page mosaic answers code with, padded for the
// browsers msie_padding names when cl says so (NGINX's default).
func padded(r *http.Request, cl *coreLoc, code int, page string) string {
	if cl == nil || !cl.msiePadding.V || code < 400 {
		return page
	}
	if ua := r.Header.Get("User-Agent"); useragent.MSIE(ua) || useragent.Chrome(ua) {
		return page + msiePadding
	}
	return page
}

// requestLoc is the core settings of r's location, or nil outside the
// server.
func requestLoc(r *http.Request) *coreLoc {
	if ri := infoFrom(r.Context()); ri != nil && ri.loc != nil {
		return LocConf[*coreLoc](ri.loc, coreModule)
	}
	return nil
}

// sendRefresh answers a redirect to MSIE as NGINX's msie_refresh does: 200
// and a page whose meta refresh goes to target, with no Location field.
func sendRefresh(w http.ResponseWriter, r *http.Request, target string) {
	body := `<html><head><meta http-equiv="Refresh" content="0; URL=` + refreshEscapes.Escape(target) +
		"\"></head><body></body></html>\r\n"
	h := w.Header()
	delete(h, "Location")
	h["Content-Type"] = []string{"text/html"}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(body))
	}
}

// refreshEscapes are the bytes of a URL that the refresh page escapes as
// NGINX does: control bytes, bytes from 0x7f up, and space " ' < > \ ^ `
// { | ~, so that the URL can neither end the attribute nor the tag.
var refreshEscapes = percent.NewSet(func(c byte) bool {
	return c < 0x20 || c >= 0x7f || strings.IndexByte(" \"'<>\\^`{|~", c) >= 0
})

var representationHeaders = []string{"Etag", "Last-Modified", "Content-Encoding", "Content-Length",
	"Content-Type", "Accept-Ranges", "Content-Disposition", "Content-Language", "Transfer-Encoding"}

// clearRepresentation drops from h the fields of the representation that
// failed, which must not describe the page for code. A refused range's
// 416 keeps Content-Language and Content-Disposition: NGINX's special
// response clears only Accept-Ranges, Last-Modified and ETag of the 200
// whose range it refused (and replaces its length and type), so an
// upstream's, a cached response's or add_header's stay on its page, and
// on an error_page's.
func clearRepresentation(h http.Header, code int) {
	for _, k := range representationHeaders {
		if code == http.StatusRequestedRangeNotSatisfiable && (k == "Content-Language" || k == "Content-Disposition") {
			continue
		}
		delete(h, k)
	}
}

// Error sends the standard error response for code. Modules call it for
// the errors they generate, so that error_page can replace the body.
func Error(w http.ResponseWriter, r *http.Request, code int) {
	if reason.Explanation(code) != "" {
		if cl := requestLoc(r); cl != nil {
			// NGINX's own refusal codes go out as 400 with their
			// explanation, a "return 497" as the refusal itself, and
			// 495-497 end the connection (ngx_http_special_response_handler).
			if closesConnection(code) && r.ProtoMajor == 1 {
				w.Header()["Connection"] = []string{"close"}
			}
			if ri := infoFrom(r.Context()); ri != nil && ri.rec != nil {
				// A special response all the same: a post_action's
				// status does not replace the 400 in $status.
				ri.rec.special = true
			}
			serveSpecial(w, r, cl, code)
			return
		}
	}
	markError(w, code)
	if ri := infoFrom(r.Context()); ri != nil && code != 499 {
		// A 499 is no page: NGINX ends the request without one, its
		// err_status unset, so a post action's status is logged.
		if ri.rec != nil {
			ri.rec.special = true
		}
		if ri.st != nil && ri.st.Status != 0 {
			// An error inside an error_page's page ("=200 /page"
			// whose own range is refused, a missing page, the
			// redirect cycle's 500): NGINX's special response makes
			// it err_status, so $status is the code that goes out, not
			// the one the page was to go with. So too where
			// recursive_error_pages let the page's errors be caught
			// again: an error no page catches goes out as it is, and
			// one caught is given the status of its own page next.
			ri.st.Status = code
		}
	}
	if code == 499 {
		// The client went away: NGINX sends it nothing. HTTP/1's writer
		// drops a 499's page itself; HTTP/2's would take it into a stream
		// already reset and count it in $body_bytes_sent.
		w.WriteHeader(code)
		return
	}
	h := w.Header()
	// The headers of the representation that failed must not describe the
	// error page; the others (Location, Allow, Content-Range, Vary,
	// Set-Cookie, WWW-Authenticate) belong to the error and stay.
	clearRepresentation(h, code)
	cl := requestLoc(r)
	if loc := h["Location"]; len(loc) == 1 && (code == http.StatusMovedPermanently || code == http.StatusFound) &&
		cl != nil && cl.msieRefresh.V && useragent.MSIE(r.Header.Get("User-Agent")) {
		sendRefresh(w, r, loc[0])
		return
	}
	if loc := h["Location"]; len(loc) == 1 && strings.HasPrefix(loc[0], "/") {
		// A redirect mosaic makes (return, a directory without its
		// slash): absolute_redirect and its companions apply.
		if ri := infoFrom(r.Context()); ri != nil && ri.srv != nil {
			h["Location"] = []string{absoluteLocation(r, ri, loc[0])}
		}
	}
	// NGINX's page for the code; for a code it has none for (418, 422,
	// 201), an empty body without a type, as NGINX answers.
	page, ok := reason.Page(code)
	body := ""
	if ok {
		body = padded(r, cl, code, page)
		h["Content-Type"] = []string{"text/html"}
	}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	// NGINX ends an HTTP/1.x connection after its own page for these
	// codes (ngx_http_special_response_handler); after any other, a 405
	// among them, it discards the request body and keeps the connection.
	// On HTTP/2 "Connection: close" would end the connection (GOAWAY).
	if closesConnection(code) && r.ProtoMajor == 1 {
		h["Connection"] = []string{"close"}
	}
	w.WriteHeader(code)
	if r.Method != http.MethodHead && body != "" {
		_, _ = w.Write([]byte(body))
	}
}

// closesConnection reports the codes after whose page of its own NGINX
// keeps no connection: the request is in doubt (400, 414, the TLS
// refusals 495-497), its body is not read (413), or the server failed
// (500, 501).
func closesConnection(code int) bool {
	switch code {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusRequestURITooLong,
		495, 496, 497, http.StatusInternalServerError, http.StatusNotImplemented:
		return true
	}
	return false
}

// StoredError is Error for a cache that fails the precondition of a
// response it serves from its store (a hit), or refuses the range of a
// stored or filling 200: NGINX's not-modified and range filters finalize
// the request, so its error_page applies, although a stored or proxied
// response is otherwise relayed (not replaced) like an upstream's.
func StoredError(w http.ResponseWriter, r *http.Request, code int) {
	eachErrorPageWriter(w, func(e *errorPageWriter) { e.own = true })
	Error(w, r, code)
}

// FilterError is Error for an output filter that fails the response
// its content made, as NGINX's ngx_http_filter_finalize_request: the
// content's fields are dropped, and the error_page of the location that
// made the response serves code, if it has one. A filter runs outside
// the location's own catching of errors, so the page is served here,
// through the slot that the content wrote to: an internal redirect
// closes the filters' gate, and the target's output goes on from the
// slot.
func FilterError(w http.ResponseWriter, r *http.Request, code int) {
	clear(w.Header())
	if ri := infoFrom(r.Context()); ri != nil && ri.loc != nil && !ri.errorPage && ri.fl.redirectable() {
		cl := LocConf[*coreLoc](ri.loc, coreModule)
		if page, ok := cl.errorPages[code]; ok {
			// The slot leads into the filter, which is done with the
			// response: a page answered without a redirect (a URL, or
			// the 500 of a redirect cycle) goes on below it, as the
			// filter's own answer would.
			ri.fl.slot.w = w
			serveErrorPage(&ri.fl.slot, r, code, page, cl.recursivePages.V)
			return
		}
	}
	Error(w, r, code)
}

// markError tells the error_page writer under w, if any, that the server
// itself answers code: NGINX then sends that code (its special response
// sets err_status), not the one error_page keeps, so an error page that
// is missing answers 404, not the status it was to go with. And the
// page is the server's own, which error_page replaces whatever upstream
// was tried before it (the proxy's 502 after a refused connection).
func markError(w http.ResponseWriter, code int) {
	for w != nil {
		// Every one: pages caught in turn (recursive_error_pages) nest
		// their writers, and NGINX's err_status is one per request.
		if s, ok := w.(*statusWriter); ok && !s.done {
			s.status = code
		}
		if e, ok := w.(*errorPageWriter); ok {
			e.special = true
		}
		if p, ok := w.(*postWriter); ok {
			p.special = true
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return
		}
		w = u.Unwrap()
	}
}

// HasErrorPage reports whether an error_page of location l (its own or
// inherited) handles code: what NGINX's *_intercept_errors asks before it
// replaces an upstream's response.
func (l *Location) HasErrorPage(code int) bool {
	_, ok := LocConf[*coreLoc](l, coreModule).errorPages[code]
	return ok
}
