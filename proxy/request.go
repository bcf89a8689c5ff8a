package proxy

import (
	"bufio"
	"net/http"
	"net/textproto"
	"slices"
	"strconv"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/percent"
	"github.com/mosaic-edge/mosaic/internal/reqrule"
)

// field is a header line to send.
type field struct {
	name, value string
}

// UpstreamURI is the request target sent to the upstream for r. Without
// a URI part in proxy_pass it is the client's request URI as sent (the
// in-process URL when the request has none, as for a subrequest or a
// rewritten URI); with one, the location prefix of the path is replaced by
// that URI and the query string is kept.
func (h *Handler) UpstreamURI(r *http.Request) string {
	if !h.hasURI || (h.prefixLost != nil && h.prefixLost(r)) {
		// The target as the client sent it, from its path on: an
		// absolute-form target's path too goes as it came, not as
		// net/url escapes it again (NGINX passes its unparsed URI).
		if u := reqrule.OriginForm(r.RequestURI); u != "" && u[0] == '/' {
			return u
		}
		return r.URL.RequestURI()
	}
	rest := ""
	if path := r.URL.Path; len(path) > len(h.locPrefix) {
		rest = path[len(h.locPrefix):]
	}
	n := len(h.uri) + len(rest)
	if r.URL.RawQuery != "" {
		n += 1 + len(r.URL.RawQuery)
	}
	var b strings.Builder
	b.Grow(n + 2*percent.URI.Count(rest))
	b.WriteString(h.uri)
	if pathAsSent(r) {
		// No client sends controls; should one get here, it cannot end
		// the request line.
		lineEscapes.Append(&b, rest)
	} else {
		percent.URI.Append(&b, rest)
	}
	if r.URL.RawQuery != "" {
		b.WriteByte('?')
		b.WriteString(r.URL.RawQuery)
	}
	return b.String()
}

// pathAsSent reports a path that NGINX copies into the request line as
// it is: it escapes the path again only for quoted_uri (the client's path
// held a percent-escape) or internal (a rewrite, an internal redirect, a
// subrequest). A client's raw '"', '|', '{' or byte above ASCII thus goes
// upstream raw. A URI that is not the client's has no RequestURI, or one
// made from the escaped URL (a subrequest's), where what needs escaping
// shows as a percent-escape.
func pathAsSent(r *http.Request) bool {
	u := reqrule.OriginForm(r.RequestURI)
	if u == "" || u[0] != '/' {
		return false
	}
	if i := strings.IndexByte(u, '?'); i >= 0 {
		u = u[:i]
	}
	return !strings.Contains(u, "%")
}

// lineEscapes are the bytes that cannot stand in a request line:
// controls, space and DEL. A URI made of variables can hold them (the
// decoded $uri put into $args by a rewrite, a proxy_pass with $arg_x):
// sent as they are, a CR LF would end the request line and begin header
// lines of the client's choosing, which proxy_set_header's values are
// kept from (validValue). NGINX sends them; here they go escaped, as the
// client had to send them.
var lineEscapes = percent.NewSet(func(c byte) bool { return c <= ' ' || c == 0x7f })

// prepareHeaders evaluates the configured headers and picks the client
// headers to pass: all but the configured, the hop-by-hop ones and those
// the client's Connection header names. Keys are sorted so that the
// upstream sees a stable order.
func (x *exchange) prepareHeaders() {
	r := x.r
	for _, sh := range x.h.set {
		v := sh.value(r)
		if v == "" {
			continue
		}
		if !validValue(v) {
			x.h.log.Warn("header value with control characters not sent", "header", sh.name)
			continue
		}
		x.set = append(x.set, field{sh.name, v})
		if sh.key == "Connection" && header.HasToken([]string{v}, "close") {
			x.sentClose = true
		}
	}
	if x.h.noClientHeaders {
		return
	}
	connection := r.Header["Connection"]
	for k, vv := range r.Header {
		ck := textproto.CanonicalMIMEHeaderKey(k)
		if _, ok := x.h.managed[ck]; ok || len(vv) == 0 || header.HasToken(connection, ck) {
			continue
		}
		x.keys = append(x.keys, k)
	}
	slices.Sort(x.keys)
}

// writeHead writes the request line and header into bw.
func (x *exchange) writeHead(bw *bufio.Writer) {
	r := x.r
	bw.WriteString(r.Method)
	bw.WriteByte(' ')
	bw.WriteString(x.uri)
	bw.WriteString(x.h.requestLineEnd)
	for _, f := range x.set {
		writeField(bw, f.name, f.value)
	}
	for _, k := range x.keys {
		for _, v := range r.Header[k] {
			if validValue(v) {
				writeField(bw, k, v)
			}
		}
	}
	switch x.body.kind {
	case bodyLength:
		var num [20]byte
		bw.WriteString("Content-Length: ")
		bw.Write(strconv.AppendInt(num[:0], x.body.length, 10))
		bw.WriteString("\r\n")
	case bodyChunked:
		bw.WriteString("Transfer-Encoding: chunked\r\n")
	}
	bw.WriteString("\r\n")
}

func writeField(bw *bufio.Writer, name, value string) {
	bw.WriteString(name)
	bw.WriteString(": ")
	bw.WriteString(value)
	bw.WriteString("\r\n")
}

// validValue rejects values that would break the header framing.
func validValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// nonIdempotent are the methods NGINX does not retry on another server
// once the request has been sent.
func nonIdempotent(method string) bool {
	return method == http.MethodPost || method == http.MethodPatch || method == "LOCK"
}
