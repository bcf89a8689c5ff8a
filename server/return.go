package server

import (
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/internal/notmodified"
	"github.com/mosaic-edge/mosaic/vars"
)

// returnSpec is a "return" directive: a status with a text, or a redirect.
type returnSpec struct {
	code int
	text *vars.Template // body text, or the redirect target
	loc  *Location
}

// closesUnanswered reports whether NGINX's ngx_http_finalize_request
// terminates a request that ends in code: 444 (NGX_HTTP_CLOSE), 408 and
// 499 close the connection (an HTTP/2 stream) without a response.
func closesUnanswered(code int) bool {
	return code == 444 || code == http.StatusRequestTimeout || code == 499
}

// abortUnanswered ends r with nothing sent: the access log says code
// for closesUnanswered's codes, as NGINX's ngx_http_terminate_request
// sets it, and no status ("000") for the others, which NGINX finalises
// without setting one.
func abortUnanswered(r *http.Request, code int) {
	if st := vars.FromContext(r.Context()); st != nil {
		if closesUnanswered(code) {
			st.WroteHeader(code)
		} else {
			st.NoStatus = true
		}
	}
	panic(http.ErrAbortHandler)
}

func isRedirect(code int) bool {
	switch code {
	case 301, 302, 303, 307, 308:
		return true
	}
	return false
}

// setReturn reads "return code [text|URL]" and "return URL". It is a
// step of the rewrite phase (rewrite.go): it answers when reached, and the
// steps after it do not run.
func setReturn(c *Cmd) error {
	r := &returnSpec{loc: c.level}
	first := c.Args[0]
	// The code as NGINX's ngx_atoi reads it: digits only ("+1" fails).
	code, isCode := conf.Atoi(first)
	var err error
	switch {
	case isCode:
		if code > 999 {
			return c.Errorf("invalid return code %q", first)
		}
		r.code = int(code)
		if len(c.Args) == 2 {
			if r.text, err = c.Template(c.Args[1]); err != nil {
				return err
			}
		}
	case len(c.Args) == 1 && (strings.HasPrefix(first, "http://") || strings.HasPrefix(first, "https://") || strings.HasPrefix(first, "$scheme")):
		r.code = http.StatusFound
		if r.text, err = c.Template(first); err != nil {
			return err
		}
	default:
		return c.Errorf("invalid return code %q", first)
	}
	c.AddRewriteStep(returnStep{r})
	return nil
}

func (rs *returnSpec) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if closesUnanswered(rs.code) && rs.text == nil {
		// With a text, the return sends it with the status, as for any
		// other code (ngx_http_send_response).
		abortUnanswered(r, rs.code)
	}
	h := w.Header()
	if isRedirect(rs.code) {
		target := ""
		if rs.text != nil {
			target = rs.text.Eval(r)
		}
		Redirect(w, r, rs.code, target)
		return
	}
	if rs.text == nil && rs.code >= 400 {
		Error(w, r, rs.code)
		return
	}
	if rs.text == nil && (rs.code < 200 || rs.code == http.StatusNoContent) {
		w.WriteHeader(rs.code)
		return
	}
	// Below 400 without text NGINX sends an empty text all the same, its
	// length said ("return 200;"). Either is typed as a file of the URI
	// would be (ngx_http_send_response sets no type of its own, so
	// ngx_http_set_content_type takes the extension of $uri, as rewrites
	// and try_files left it): "location = /robots.txt { return 200 ...; }"
	// answers text/plain, a URI without a known extension default_type.
	if rs.code == http.StatusOK && SubrequestDepth(r) == 0 && !keptErrorStatus(r) {
		// NGINX's not-modified filter judges every 200 of a client
		// request, this one too, which has neither ETag nor
		// Last-Modified: If-Unmodified-Since fails, an If-Match but "*"
		// fails, and If-None-Match: "*" alone answers 304. An error
		// page that keeps its error's status ("error_page 412 /failed")
		// is no 200 there.
		switch notmodified.Check(r.Header, "", 0, false, notmodified.Exact) {
		case http.StatusNotModified:
			writeUncaught(w, http.StatusNotModified)
			return
		case http.StatusPreconditionFailed:
			Error(w, r, http.StatusPreconditionFailed)
			return
		}
	}
	body := ""
	if rs.text != nil {
		body = evalWithStatus(rs.text, r, rs.code)
	}
	h["Content-Type"] = []string{rs.loc.ContentType(r.URL.Path)}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	writeUncaught(w, rs.code)
	if r.Method != http.MethodHead {
		_, _ = io.WriteString(w, body)
	}
}

// keptErrorStatus reports a request that an error_page serves with its
// error's status (no "=" or "=200"): what it answers goes out with that
// status, not its own.
func keptErrorStatus(r *http.Request) bool {
	st := vars.FromContext(r.Context())
	return st != nil && st.Status != 0 && st.Status != http.StatusOK
}

// Redirect answers with a redirect to target (return, rewrite's redirect
// and permanent): the Location header and the standard page of code.
func Redirect(w http.ResponseWriter, r *http.Request, code int, target string) {
	// A target starting with "/" is made absolute by Error, as
	// absolute_redirect and its companions say.
	w.Header()["Location"] = []string{target}
	Error(w, r, code)
}
