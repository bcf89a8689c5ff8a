package server

import (
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/mosaic-edge/mosaic/vars"
)

// returnSpec is a "return" directive: a status with a text, or a redirect.
type returnSpec struct {
	code int
	text *vars.Template // body text, or the redirect target
	loc  *Location
}

func isRedirect(code int) bool {
	switch code {
	case 301, 302, 303, 307, 308:
		return true
	}
	return false
}

// setReturn reads "return code [text|URL]" and "return URL".
func setReturn(c *Cmd) error {
	cl := c.Loc().(*coreLoc)
	if cl.ret != nil {
		return c.Duplicate()
	}
	r := &returnSpec{loc: c.level}
	first := c.Args[0]
	code, err := strconv.Atoi(first)
	switch {
	case err == nil:
		if code < 0 || code > 999 {
			return c.Errorf("invalid return code %q", first)
		}
		r.code = code
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
	cl.ret = r
	return nil
}

func (rs *returnSpec) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rs.code == 444 {
		// NGINX's 444 closes the connection without a response.
		panic(http.ErrAbortHandler)
	}
	h := w.Header()
	if isRedirect(rs.code) {
		target := ""
		if rs.text != nil {
			target = rs.text.Eval(r)
		}
		if strings.HasPrefix(target, "/") {
			// NGINX's absolute_redirect: make a local target absolute.
			scheme := "http"
			if r.TLS != nil {
				scheme = "https"
			}
			target = scheme + "://" + r.Host + target
		}
		h["Location"] = []string{target}
		Error(w, r, rs.code)
		return
	}
	if rs.text == nil {
		if rs.code >= 400 {
			Error(w, r, rs.code)
			return
		}
		w.WriteHeader(rs.code)
		return
	}
	body := rs.text.Eval(r)
	h["Content-Type"] = []string{rs.loc.DefaultType()}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(rs.code)
	if r.Method != http.MethodHead {
		_, _ = io.WriteString(w, body)
	}
}
