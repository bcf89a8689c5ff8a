// Package reqrule holds the rules a request must pass before any handler
// sees it, written once for every listener (HTTP/1.x plain or TLS,
// HTTP/2): which methods are served, which request targets, which Host
// values, and which header names reach handlers. The rules follow NGINX's
// request parser, stricter where NGINX lets a value through that could
// climb out of a path built from it.
package reqrule

import (
	"net/http"
	"net/url"
	"strings"
)

// Method checks a request method as NGINX does. It returns 0 for a method
// that may be served, 400 for one that is not made of upper-case letters,
// '_' and '-', and 405 for CONNECT (a tunnel, which a gateway never opens
// on a client's word) and TRACE (which would echo the request's
// credentials back to a script that asked for it).
func Method(m string) int {
	if m == "" {
		return http.StatusBadRequest
	}
	for i := 0; i < len(m); i++ {
		if c := m[i]; (c < 'A' || c > 'Z') && c != '_' && c != '-' {
			return http.StatusBadRequest
		}
	}
	if m == http.MethodConnect || m == http.MethodTrace {
		return http.StatusMethodNotAllowed
	}
	return 0
}

// Target checks the request target of r and cuts a fragment from it. A
// target must be in origin form ("/path?query") or absolute form
// ("scheme://authority/path"), as NGINX requires: "*" and the authority
// form of CONNECT are refused. A request-target has no fragment (RFC 9112,
// section 3.2); as NGINX does, everything from a '#' on is dropped, and
// r.RequestURI and r.URL are both made from what is left, so that the
// path that picks a location is the path a proxy sends. A space, which
// no URI holds, is refused as NGINX refuses it: HTTP/2's :path can carry
// one, where an HTTP/1.x request line cannot. So is an absolute-form
// target with userinfo ("http://user:password@host/"), which NGINX's
// parser refuses and RFC 9110 (section 4.2.4) has a recipient treat as an
// error: taken, it would choose a server by the part after the '@' while
// the credentials in front vanished from everything logged or passed on.
// An absolute-form target with no host ("http:///x") is refused too:
// NGINX finds no host to validate in its line, where a server would be
// chosen by the Host field for a target that named none.
// It reports false for a target to refuse with 400.
func Target(r *http.Request) bool {
	t := r.RequestURI
	if t == "" || t[0] != '/' && (!absoluteForm(t) || r.URL.Host == "") || strings.IndexByte(t, ' ') >= 0 || r.URL.User != nil {
		return false
	}
	i := strings.IndexByte(t, '#')
	if i < 0 {
		return true
	}
	t = t[:i]
	u, err := url.ParseRequestURI(t)
	if err != nil || r.URL.Host != "" && u.Host == "" {
		return false
	}
	if u.Host != "" {
		r.Host = u.Host // the authority of an absolute-form target wins
	}
	r.URL, r.RequestURI = u, t
	return true
}

// OriginForm returns a request target from its path on: an absolute-form
// target ("http://host/x?a=1") without its scheme and authority
// ("/x?a=1"), "/" standing for an empty path. It is what NGINX's
// $request_uri holds, and so the REQUEST_URI a FastCGI or uwsgi
// application reads and the URI a proxy passes on: an application that
// matches it against its routes, or builds links from it, expects a path.
// Any other target is returned as it is.
func OriginForm(t string) string {
	if t == "" || t[0] == '/' || !absoluteForm(t) {
		return t
	}
	rest := t[strings.Index(t, "://")+3:]
	i := strings.IndexAny(rest, "/?")
	switch {
	case i < 0:
		return "/"
	case rest[i] == '?':
		return "/" + rest[i:]
	}
	return rest[i:]
}

// Unquoted reports a request target whose path (OriginForm's, up to
// "?") holds no percent-escape: NGINX's request without quoted_uri,
// whose decoded path is the very bytes the client sent, and which its
// proxy copies into the request line as they are. A target that is not
// a path ("*", "") is not.
func Unquoted(t string) bool {
	u := OriginForm(t)
	if u == "" || u[0] != '/' {
		return false
	}
	if i := strings.IndexByte(u, '?'); i >= 0 {
		u = u[:i]
	}
	return !strings.Contains(u, "%")
}

// DotDot returns where p's first ".." segment starts, or -1: the one
// test of every place a value a client can shape becomes a file path
// (a root's variables, a store's, a log's or a certificate's name),
// which a ".." segment could lead out of its directory.
func DotDot(p string) int {
	for i := strings.Index(p, ".."); i >= 0; {
		if (i == 0 || p[i-1] == '/') && (i+2 == len(p) || p[i+2] == '/') {
			return i
		}
		j := strings.Index(p[i+1:], "..")
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return -1
}

// absoluteForm reports a target that starts with a scheme and "://".
func absoluteForm(t string) bool {
	i := strings.Index(t, "://")
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		switch c := t[j]; {
		case 'a' <= c|0x20 && c|0x20 <= 'z':
		case j > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// Host validates a Host value (the header, an absolute-form target's
// authority, or HTTP/2's :authority) and returns the host name that
// selects a virtual server and that $host holds: lower-cased, without the
// port, without one trailing dot. It refuses what NGINX refuses (two dots
// in a row, a '/', NUL, controls and spaces, nothing left once the port
// and the trailing dot are gone) and, stricter than NGINX, a leading dot
// and a backslash, so that a $host used in a file path can neither climb
// nor name a hidden directory. An empty value is accepted as empty: the
// caller decides whether the protocol allows it.
func Host(v string) (string, bool) {
	if v == "" {
		return "", true
	}
	if v[0] == '.' {
		return "", false
	}
	end := len(v) // where the name ends: at the port, or after "]"
	literal, inPort, upper := false, false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if hostPlain[c] {
			continue // most bytes of most names
		}
		switch {
		case c == '.':
			if v[i-1] == '.' { // i > 0: a leading dot was refused
				return "", false
			}
		case c == ':':
			if !inPort && !literal {
				end, inPort = i, true
			}
		case c == '[':
			literal = literal || i == 0
		case c == ']':
			if literal && !inPort {
				end, inPort, literal = i+1, true, false
			}
		case 'A' <= c && c <= 'Z':
			upper = upper || !inPort
		default: // controls, space, DEL, '/', '\\'
			return "", false
		}
	}
	h := v[:end]
	if h != "" && h[len(h)-1] == '.' {
		h = h[:len(h)-1]
	}
	if h == "" {
		return "", false
	}
	if upper {
		h = strings.ToLower(h)
	}
	return h, true
}

// hostPlain marks the bytes of a Host value that need no look: all but
// '.', ':', '[', ']', upper-case letters, and the refused ones (controls,
// space, DEL, '/', '\\').
var hostPlain = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		switch {
		case c <= ' ' || c == 0x7f || c == '/' || c == '\\':
		case c == '.' || c == ':' || c == '[' || c == ']':
		case 'A' <= c && c <= 'Z':
		default:
			t[c] = true
		}
	}
	return t
}()

// HeaderNames says which header names handlers see, as NGINX's
// underscores_in_headers and ignore_invalid_headers do. Names made of
// letters, digits and '-' always pass. Other names (with '_', or any
// other token character such as '.') are dropped when IgnoreInvalid is
// on, except names with '_' when Underscores is on. Dropped names are
// invisible to $http_*, to a proxy and to a cache key: a header that an
// application reads as "X_Forwarded_For" (CGI turns both '-' and '_' into
// '_') cannot shadow the proxy's own X-Forwarded-For.
type HeaderNames struct {
	Underscores   bool
	IgnoreInvalid bool
}

// Filter deletes from h the names that n drops and returns them, for the
// log (nil when none was dropped; h is not touched then).
func (n HeaderNames) Filter(h http.Header) []string {
	if !n.IgnoreInvalid {
		return nil
	}
	var dropped []string
	for name := range h {
		if !n.allows(name) {
			dropped = append(dropped, name)
		}
	}
	for _, name := range dropped {
		delete(h, name)
	}
	return dropped
}

// Keeps reports whether a field of name reaches handlers, as NGINX's
// header parse keeps it: then, and only then, NGINX counts it toward
// max_headers.
func (n HeaderNames) Keeps(name string) bool {
	return !n.IgnoreInvalid || n.allows(name)
}

func (n HeaderNames) allows(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; !plainNameChars[c] && !(c == '_' && n.Underscores) {
			return false
		}
	}
	return true
}

// plainNameChars marks the bytes of a name that always passes: letters,
// digits and '-'. One load a byte, where four range tests took about
// twice the instructions for every name of every request.
var plainNameChars = func() (t [256]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-'
	}
	return t
}()
