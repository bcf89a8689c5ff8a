package proxy

import (
	"bufio"
	"net/http"
	"net/textproto"
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
// a URI part in proxy_pass it is the client's request URI as sent, while
// it stands for the request (NGINX's valid_unparsed_uri); once it does
// not ("set $args", a rewrite and an internal redirect clear r.RequestURI,
// as they clear that flag; a subrequest's is its own escaped URL), it is
// the URI escaped as pathAsSent says, then "?" and the arguments when
// there are any, as ngx_http_proxy_create_request builds it. With a URI
// part, the location prefix of the path is replaced by that URI and the
// query string is kept.
func (h *Handler) UpstreamURI(r *http.Request) string {
	uri, prefix := h.uri, h.locPrefix
	if !h.hasURI || (h.prefixLost != nil && h.prefixLost(r)) {
		// The target as the client sent it, from its path on: an
		// absolute-form target's path too goes as it came, not as
		// net/url escapes it again (NGINX passes its unparsed URI).
		if u := reqrule.OriginForm(r.RequestURI); u != "" && u[0] == '/' {
			return u
		}
		// Not the URL's own escaping (its RawPath keeps the client's
		// "%26" after a "set $args"): NGINX escapes the decoded URI.
		uri, prefix = "", ""
	}
	rest := ""
	if path := r.URL.Path; len(path) > len(prefix) {
		rest = path[len(prefix):]
	}
	n := len(uri) + len(rest)
	if r.URL.RawQuery != "" {
		n += 1 + len(r.URL.RawQuery)
	}
	var b strings.Builder
	b.Grow(1 + n + 2*percent.URI.Count(rest))
	b.WriteString(uri)
	if uri == "" && !strings.HasPrefix(rest, "/") {
		// NGINX's URI always begins with "/" (and its evaluated
		// proxy_pass URI gets one before a "?"): a path left empty (a
		// request built in-process) goes as "/", never as an empty
		// target.
		b.WriteByte('/')
	}
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
// shows as a percent-escape. After "set $args" alone it is the decoded,
// normalised path with the new arguments (see the rewrite module's
// setArgsStep), and the path is as NGINX sends it then.
func pathAsSent(r *http.Request) bool { return reqrule.Unquoted(r.RequestURI) }

// lineEscapes are the bytes that cannot stand in a request line:
// controls, space and DEL. A URI made of variables can hold them (the
// decoded $uri put into $args by a rewrite, a proxy_pass with $arg_x):
// sent as they are, a CR LF would end the request line and begin header
// lines of the client's choosing, which proxy_set_header's values are
// kept from (validValue). NGINX sends them; here they go escaped, as the
// client had to send them.
var lineEscapes = percent.NewSet(func(c byte) bool { return c <= ' ' || c == 0x7f })

// prepareHeaders evaluates the configured headers and picks the client's
// header lines to pass: all but those of the configured names (among
// them the hop-by-hop ones, which NGINX's defaults empty). The fields
// the client's Connection header names pass like any other: NGINX does
// not read its tokens, and a configured field is set whatever they say,
// so that no client can strip X-Real-IP or X-Forwarded-For by naming
// them there. They
// go in the client's order and case, each line of a repeated name where
// it came, as NGINX walks its list of the lines, where the server knows
// them (vars.State.HeaderLines, HTTP/1.x); else sorted by name, in Go's
// canonical case.
func (x *exchange) prepareHeaders() {
	r := x.r
	for _, sh := range x.h.set {
		v := sh.value(r)
		if v == "" {
			continue
		}
		if !validValue(v) {
			x.h.log.Warn("header value with NUL, CR or LF not sent", "header", sh.name)
			continue
		}
		x.set = append(x.set, field{sh.name, v})
		if sh.key == "Connection" && header.HasToken([]string{v}, "close") {
			x.sentClose = true
		}
	}
	if header.Revalidating(r) {
		// A cache's validators: NGINX's proxy_cache_headers send them
		// after its other defaults and the body's framing, before the
		// client's lines, which then leave these names out.
		x.revalid = true
		for _, k := range [...]string{"If-Modified-Since", "If-None-Match"} {
			if _, managed := x.h.managed[k]; !managed && len(r.Header[k]) > 0 && validValue(r.Header[k][0]) {
				x.pass = append(x.pass, field{k, r.Header[k][0]})
			}
		}
	}
	if x.h.noClientHeaders {
		return
	}
	if x.st != nil && x.st.HeaderLines != "" {
		lines := header.NewLines(x.st.HeaderLines, r.Header)
		for {
			name, key, value, mapped, ok := lines.Next()
			if !ok {
				break
			}
			// Unmapped: Host and a chunked body's Transfer-Encoding,
			// which the proxy sets itself, or a name taken out since.
			if mapped && x.passes(key) && validValue(value) {
				x.pass = append(x.pass, field{name, value})
			}
		}
		x.passFields(lines.Rest(nil)) // nothing, unless a module changed the map
		return
	}
	var buf [16]header.Field
	fields := buf[:0]
	for k, vv := range r.Header {
		fields = append(fields, header.Field{Name: k, Values: vv})
	}
	header.SortFields(fields)
	x.passFields(fields)
}

// passFields adds the values of the fields that pass to the lines sent.
func (x *exchange) passFields(fields []header.Field) {
	for _, f := range fields {
		if !x.passes(textproto.CanonicalMIMEHeaderKey(f.Name)) {
			continue
		}
		for _, v := range f.Values {
			if validValue(v) {
				x.pass = append(x.pass, field{f.Name, v})
			}
		}
	}
}

// passes reports whether the client's field of the canonical name key
// goes upstream.
func (x *exchange) passes(key string) bool {
	if x.revalid && (key == "If-Modified-Since" || key == "If-None-Match") {
		return false // sent before the client's lines (prepareHeaders)
	}
	_, managed := x.h.managed[key]
	return !managed
}

// writeHead writes the request line and header into bw: the configured
// fields, the body's framing, which NGINX's defaults put after them
// (Content-Length, Transfer-Encoding), then x.pass: a cache's validators
// and the client's lines.
func (x *exchange) writeHead(bw *bufio.Writer) {
	r := x.r
	bw.WriteString(r.Method)
	bw.WriteByte(' ')
	bw.WriteString(x.uri)
	bw.WriteString(x.h.requestLineEnd)
	for _, f := range x.set {
		writeField(bw, f.name, f.value)
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
	for _, f := range x.pass {
		writeField(bw, f.name, f.value)
	}
	bw.WriteString("\r\n")
}

func writeField(bw *bufio.Writer, name, value string) {
	bw.WriteString(name)
	bw.WriteString(": ")
	bw.WriteString(value)
	bw.WriteString("\r\n")
}

// validValue rejects values that would break the header framing: a CR
// or LF would begin a line of the client's choosing, a NUL ends the
// value for many upstreams. Other control bytes and DEL go as sent, as
// NGINX passes them, the HTTP/1 parser serving them as NGINX's does (a
// browser's Cookie may hold a DEL; TestProxyValueBytesAsNGINX in
// cmd/mosaic).
func validValue(v string) bool {
	return !strings.ContainsAny(v, "\x00\r\n")
}

// nonIdempotent are the methods NGINX does not retry on another server
// once the request has been sent.
func nonIdempotent(method string) bool {
	return method == http.MethodPost || method == http.MethodPatch || method == "LOCK"
}
