package proxy

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/mosaic-edge/mosaic/internal/connfields"
	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/reason"
)

// relayBufferSize is the copy buffer for response bodies and tunnels.
const relayBufferSize = 32 << 10

var bufPool = sync.Pool{New: func() any { b := make([]byte, relayBufferSize); return &b }}

// copyHeader passes the upstream's response header to the client's,
// leaving out the hidden fields and those NGINX's upstream module keeps
// back (ngx_http_upstream.c's headers_in table): Connection, Keep-Alive
// and Transfer-Encoding (but the Connection of a 101), and Upgrade to an
// HTTP/2 client. NGINX reads no tokens of the upstream's Connection: the
// fields it names pass, and so do Proxy-Connection and TE to an HTTP/1.x
// client. To an HTTP/2 client those two are kept back, where NGINX sends
// them: connection-specific fields make its response malformed (RFC 9113,
// 8.2.2). Trailer is kept back (but in a 101), where NGINX passes it
// (keptBack says why). h2 says the client speaks HTTP/2 and the writer
// does not keep those fields back itself (dropsConnFields).
func (h *Handler) copyHeader(dst, src http.Header, switching, h2 bool) {
	typed := false
	for k, vv := range src {
		if k == "Content-Type" {
			typed = true
		}
		if h.hidden(k) || keptBack(k, switching, h2) {
			continue
		}
		if k == "Content-Type" && len(vv) > 1 {
			// The response has one type in NGINX: each line of the
			// upstream's replaces it (ngx_http_upstream_copy_content_type).
			vv = vv[len(vv)-1:]
		}
		dst[k] = vv
	}
	if !typed && !switching {
		// The upstream sent none, so the client gets none: a nil entry stops
		// net/http from sniffing one.
		dst["Content-Type"] = nil
	}
}

// dropsConnFields says whether commit keeps Proxy-Connection, TE and
// Upgrade back from the response to r, an HTTP/2 client's request: not
// when a cache stores the response (connfields.Keep), which keeps them
// back from the client itself, however many filters lie between.
func dropsConnFields(r *http.Request) bool {
	return r.ProtoMajor >= 2 && !connfields.Kept(r.Context())
}

// hidden reports whether the response header k is not passed to the
// client. A name of a length no hidden one has is not looked up.
func (h *Handler) hidden(k string) bool {
	if h.hideLens&lengthBit(k) == 0 {
		return false
	}
	_, ok := h.hide[k]
	return ok
}

// lengthBit is name's bit in Handler.hideLens.
func lengthBit(name string) uint64 {
	return 1 << min(len(name), 63)
}

// keptBack reports whether the upstream's response field k stays back
// from the client (copyHeader).
func keptBack(k string, switching, h2 bool) bool {
	switch k {
	case "Keep-Alive", "Transfer-Encoding":
		return true
	case "Connection":
		return !switching
	case "Trailer":
		// The server's writers take the fields a handler's Trailer names
		// for trailers (net/http's convention): passed, it would move the
		// upstream's (or a later filter's) Content-Type, Set-Cookie... out
		// of the header, and drop them from an answer with a length.
		return !switching
	case "Upgrade", "Proxy-Connection", "Te":
		return h2
	}
	return false
}

// rewriteRedirects applies the proxy_redirect lines to the Location
// fields and to the url= of the Refresh fields of hdr, as NGINX does: the
// first line that applies to a value rewrites it. The last Location that
// a line rewrote is the response's own in NGINX: made absolute when it
// is a path (absolute_redirect), it goes out before the other fields, so
// first of the Locations here. One the upstream sent as a path, and no
// line changed, is left alone.
func (x *exchange) rewriteRedirects(hdr http.Header) {
	h := x.h
	if vv := hdr["Location"]; vv != nil {
		out, last := h.rewriteValues(x.r, vv, false)
		if f := h.absRedirect; f != nil && last >= 0 && strings.HasPrefix(out[last], "/") {
			if abs := f(x.r, out[last]); abs != out[last] {
				copy(out[1:last+1], out[:last])
				out[0] = abs
			}
		}
		hdr["Location"] = out
	}
	if vv := hdr["Refresh"]; vv != nil {
		hdr["Refresh"], _ = h.rewriteValues(x.r, vv, true)
	}
}

// rewriteValues rewrites each value (from its url=, for a Refresh) by the
// first line that applies. It copies vv before changing it (vv is the
// upstream's) and returns the index of the last value a line rewrote, -1
// when none was.
func (h *Handler) rewriteValues(r *http.Request, vv []string, refresh bool) ([]string, int) {
	out, last := vv, -1
	for i, v := range vv {
		prefix := 0
		if refresh {
			j := indexFold(v, "url=")
			if j < 0 {
				continue
			}
			prefix = j + len("url=")
		}
		nv, ok := h.rewriteRedirect(r, v[prefix:])
		if !ok {
			continue
		}
		if last < 0 {
			out = slices.Clone(vv)
		}
		out[i], last = v[:prefix]+nv, i
	}
	return out, last
}

// rewriteRedirect returns value as the first line that applies to it
// rewrites it.
func (h *Handler) rewriteRedirect(r *http.Request, value string) (string, bool) {
	for _, rd := range h.redirects {
		if !rd.Default {
			if nv, ok := rd.Rewrite(r, value); ok {
				return nv, true
			}
			continue
		}
		if h.redirectFrom != "" && strings.HasPrefix(value, h.redirectFrom) {
			return h.redirectTo + value[len(h.redirectFrom):], true
		}
	}
	return "", false
}

// indexFold is the index of the first instance of the lower-case ASCII
// sub in s, ignoring ASCII case, or -1.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// Redirect is one proxy_redirect line.
type Redirect struct {
	// Default is "proxy_redirect default": a value that starts with the
	// proxy_pass target has it replaced by the location prefix ("/" when
	// proxy_pass has no URI part).
	Default bool
	// Rewrite, for any other line, returns the rewritten value and true
	// when the line applies to value.
	Rewrite func(r *http.Request, value string) (string, bool)
}

// defaultRedirect is the line NGINX gives a location with proxy_pass and
// no proxy_redirect.
var defaultRedirect = []Redirect{{Default: true}}

// RedirectPrefix is a proxy_redirect line of two values (variables
// allowed): a Location or Refresh URL that starts with pattern (compared
// with case) has that start replaced by replacement.
func RedirectPrefix(pattern, replacement func(*http.Request) string) Redirect {
	return Redirect{Rewrite: func(r *http.Request, v string) (string, bool) {
		p := pattern(r)
		if !strings.HasPrefix(v, p) {
			return "", false
		}
		return replacement(r) + v[len(p):], true
	}}
}

// relayed is what relay did with the upstream's body.
type relayed struct {
	n         int64 // body bytes received from the upstream
	committed bool  // the response header went to the client's writer
	upErr     error // the upstream's body broke off
	clientErr error // the client's side failed
	logged    bool  // upErr is in the error log already
}

// relay copies the upstream's body to the client, writing the response
// header first. With flush set the header goes out at once and every
// piece read is flushed. Otherwise the header waits until the buffer is
// full or the body has ended, so that a small body leaves with its header
// in one write and without the reading ahead's goroutine. A body that
// breaks off before that (the upstream closed, failed or timed out) is a
// response all the same: NGINX sends the header as soon as it has read
// it and flushes it with the bytes received when the body breaks off, so
// the client gets the upstream's status and those bytes, then a broken
// connection (bodyFailed). A body that is malformed while still held is
// answered with 502 (bodyFailed): NGINX ends the connection then without
// flushing its header, and sends nothing.
//
// With waits set, the body is one that NGINX passes on in pieces (a
// chunked body's whole chunks) whenever the upstream has nothing more for
// it: once waits says so, what is held goes out then, header first, and
// is flushed, without waiting for the buffer to fill; a server-sent-events
// stream's events reach the client as they come.
//
// With ahead set, what is left of the body once the buffer is full is
// read from the reader it returns (given the bytes read so far), which
// reads the upstream ahead of the client; the caller then waits for that
// reader to end, and learns the upstream's side of the outcome from it.
func (x *exchange) relay(rc *http.ResponseController, resp *http.Response, flush bool, waits Pieces, ahead func(base int64) io.Reader) (res relayed) {
	bp := x.h.relayPool.Get().(*[]byte)
	defer x.h.relayPool.Put(bp)
	buf := *bp
	held := 0
	var out io.Writer // x.w, or what cuts out the client's range
	var body io.Reader = resp.Body
	if flush {
		out = x.commit(resp)
		res.committed = true
		_ = rc.Flush()
	}
	for {
		n, err := body.Read(buf[held:])
		res.n += int64(n)
		// pass: what was read goes out now (a whole chunk, nothing more
		// to read yet).
		pass := err == nil && waits != nil && waits.Waits()
		if !res.committed {
			held += n
			if err == nil && held < len(buf) && !pass {
				continue
			}
			if err != nil && err != io.EOF && (x.ctx.Err() != nil || !isIOError(err)) {
				// The client has gone: it is told nothing (499). Or the
				// body is malformed (invalid chunks), which NGINX does
				// not flush its header for: its client gets nothing, the
				// one here a 502.
				res.upErr = err
				return res
			}
			out = x.commit(resp)
			res.committed = true
			n, held = held, 0
			if err == nil && ahead != nil {
				// The reading ahead now reads resp.Body, and asks waits
				// itself on its goroutine; its reader flushes (ahead.idle).
				body, waits = ahead(res.n), nil
			}
		}
		if n > 0 {
			if _, werr := out.Write(buf[:n]); werr != nil {
				res.clientErr = werr
				return res
			}
			if flush || pass {
				if ferr := rc.Flush(); ferr != nil && !errors.Is(ferr, http.ErrNotSupported) {
					res.clientErr = ferr
					return res
				}
			}
		}
		if err == io.EOF {
			return res
		}
		if err != nil {
			res.upErr = err
			return res
		}
	}
}

// commit passes the upstream's status and header to the client's writer,
// and returns where the body goes: the writer, or for a range that
// ForceRanges answers what cuts it out of the body.
func (x *exchange) commit(resp *http.Response) io.Writer {
	x.h.copyHeader(x.w.Header(), resp.Header, false, dropsConnFields(x.r))
	if x.h.redirects != nil {
		x.rewriteRedirects(x.w.Header())
	}
	x.h.rewriteCookies(x.r, x.w.Header())
	// Published before the header goes out: the server's error_page
	// leaves an upstream's answer alone (NGINX's proxy_intercept_errors
	// off) by seeing $upstream_status when the status is written, and
	// add_header shows the timings and lengths as they stand then, as
	// NGINX's. finish publishes them as they end.
	x.publishHeader()
	passReason(x.w, resp) // with its code only: a range cut is a 206 of NGINX's
	if resp.ContentLength < 0 {
		// NGINX keeps the upstream's want of a length (content_length_n
		// -1) and chunks the body however short; the server's writer
		// would count one that fits its buffer.
		header.UnknownLength(x.w)
	}
	if x.h.forceRanges {
		return x.forceRanges(resp)
	}
	x.w.WriteHeader(resp.StatusCode)
	return x.w
}

// reasonSetter is a writer that sends a reason phrase of its caller's
// choosing with a status (mosaic's HTTP/1 server's).
type reasonSetter interface{ SetReason(code int, phrase string) }

// passReason hands what follows the code in the upstream's status line
// to the first writer under w that sends it: NGINX passes on an
// upstream's status line as the upstream wrote it ("200 Fine", "422
// Unprocessable Entity", a FastCGI "Status: 302" as "302", with no
// phrase). resp.Status starts with the code; one without (a response
// mosaic made) leaves NGINX's phrase.
func passReason(w http.ResponseWriter, resp *http.Response) {
	if c := resp.StatusCode; c < 100 || c > 999 || len(resp.Status) < 3 ||
		resp.Status[0] != byte('0'+c/100) || resp.Status[1] != byte('0'+c/10%10) || resp.Status[2] != byte('0'+c%10) {
		return // (compared digit by digit: strconv.Itoa would allocate)
	}
	rest := resp.Status[3:]
	if p := reason.Phrase(resp.StatusCode); p != "" && len(rest) == 1+len(p) && rest[0] == ' ' && rest[1:] == p {
		// NGINX's own phrase ("200 OK", what a FastCGI answer without a
		// Status line gets), which every writer sends with the code
		// anyway: the walk through the writers, a type assertion at each,
		// would change nothing.
		return
	}
	if rs, ok := header.Under[reasonSetter](w); ok {
		rs.SetReason(resp.StatusCode, rest)
	}
}

// passSpellings tells the first writer under w that spells field names
// how the upstream wrote those of its head that ReadResponse recased:
// NGINX relays an upstream's field under the name as it came ("X_A",
// "x-custom", "ETag"), but for those its header filter writes itself.
// Nothing is made for a head whose names are all canonical.
func passSpellings(w http.ResponseWriter, head []byte, h http.Header) {
	header.SpellFields(w, spellings(head, h))
}

// spellings returns the field names of head (a status line and its
// fields) that h, the header read from it, holds in another case, as
// written, one a line for a name written on several lines
// (header.LineSpellings), at most header.MaxSpellings of them; nil when
// there is none. head may run on into the body.
func spellings(head []byte, h http.Header) []string {
	var names []string
	lines := headLines(head)
	for name, at, ok := lines.next(0); ok && len(names) < header.MaxSpellings; name, at, ok = lines.next(at) {
		if _, ok := h[string(name)]; ok {
			// A key as written: a canonical name, the usual case, or
			// one the map keeps as it came (not a token), found by one
			// lookup, for which no string is made.
			continue
		}
		names = header.AddSpelling(names, string(name))
	}
	return header.LineSpellings(names, lines.next)
}

// headLines is a head (a status line and its fields, perhaps the body
// after them).
type headLines []byte

// next is a header.FieldNames of the head's field names: at is where the
// last name's line ended, 0 before the status line; past the empty line
// that ends the head (what follows is the body's) there is none.
func (head headLines) next(at int) (name []byte, end int, ok bool) {
	if at == 0 {
		if at = bytes.IndexByte(head, '\n') + 1; at == 0 {
			return nil, 0, false
		}
	}
	for at < len(head) {
		line := head[at:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line, at = line[:i], at+i+1
		} else {
			at = len(head)
		}
		if len(line) == 0 || line[0] == '\r' {
			return nil, 0, false
		}
		if colon := bytes.IndexByte(line, ':'); colon > 0 {
			return line[:colon], at, true
		}
	}
	return nil, 0, false
}
