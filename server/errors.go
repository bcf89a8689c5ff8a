package server

import (
	"net/http"
	"strconv"
	"strings"

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
			code, err := strconv.Atoi(eq[1:])
			if err != nil || code < 100 || code > 999 {
				return c.Errorf("invalid value %q", eq)
			}
			ep.override = code
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
		code, err := strconv.Atoi(s)
		if err != nil || code < 300 || code > 599 {
			return c.Errorf("value %q must be between 300 and 599", s)
		}
		if code == 499 {
			return c.Errorf("value \"499\" must be between 300 and 599, not 499")
		}
		cl.errorPages[code] = ep
	}
	return nil
}

// errorBody is the page mosaic sends with the errors it generates itself,
// in the shape NGINX's users know.
func errorBody(code int) string {
	text := strconv.Itoa(code) + " " + http.StatusText(code)
	return "<html>\r\n<head><title>" + text + "</title></head>\r\n<body>\r\n<center><h1>" + text +
		"</h1></center>\r\n<hr><center>mosaic</center>\r\n</body>\r\n</html>\r\n"
}

var representationHeaders = []string{"Etag", "Last-Modified", "Content-Encoding", "Content-Length",
	"Content-Type", "Accept-Ranges", "Content-Disposition", "Content-Language", "Transfer-Encoding"}

// Error sends the standard error response for code. Modules call it for
// the errors they generate, so that error_page can replace the body.
func Error(w http.ResponseWriter, r *http.Request, code int) {
	markError(w, code)
	h := w.Header()
	// The headers of the representation that failed must not describe the
	// error page; the others (Location, Allow, Content-Range, Vary,
	// Set-Cookie, WWW-Authenticate) belong to the error and stay.
	for _, k := range representationHeaders {
		delete(h, k)
	}
	if loc := h["Location"]; len(loc) == 1 && strings.HasPrefix(loc[0], "/") {
		// A redirect mosaic makes (return, a directory without its
		// slash): absolute_redirect and its companions apply.
		if ri := infoFrom(r.Context()); ri != nil && ri.srv != nil {
			h["Location"] = []string{absoluteLocation(r, ri, loc[0])}
		}
	}
	body := errorBody(code)
	h["Content-Type"] = []string{"text/html"}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	if code == http.StatusMethodNotAllowed || code == http.StatusRequestEntityTooLarge {
		h["Connection"] = []string{"close"}
	}
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(body))
	}
}

// markError tells the error_page writer under w, if any, that the server
// itself answers code: NGINX then sends that code (its special response
// sets err_status), not the one error_page keeps, so an error page that
// is missing answers 404, not the status it was to go with.
func markError(w http.ResponseWriter, code int) {
	for w != nil {
		if s, ok := w.(*statusWriter); ok {
			if !s.done {
				s.status = code
			}
			return
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
