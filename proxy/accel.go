package proxy

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/internal/onheader"
	"github.com/mosaic-edge/mosaic/internal/percent"
	"github.com/mosaic-edge/mosaic/internal/reqkey"
	"github.com/mosaic-edge/mosaic/internal/spool"
)

// Accel is an upstream's X-Accel-Redirect as the Handler hands it to
// Options.AccelRedirect: the request is to be served again, internally,
// for another URI, and the upstream's own body is dropped.
type Accel struct {
	// URI is the target's path, percent-decoded, or the name of a named
	// location ("@name"), which is taken as it came.
	URI string
	// Args is the query string that followed the first "?" of the target:
	// the redirected request has these arguments and no others. A named
	// location keeps the request's own.
	Args string
	// ContentType is the upstream's Content-Type (the last line of
	// several), "" when it sent none.
	// A content handler that picks a type of its own (a static file's,
	// from its extension) gives way to it, as in NGINX.
	ContentType string
	// Header holds the upstream's fields that go on into the redirected
	// response: Set-Cookie (after the cookie rules), Content-Disposition,
	// Cache-Control, Expires and Accept-Ranges. The hidden list does not
	// apply to them.
	Header http.Header
	// Refused is set for a target that is not safe (a ".." segment, a
	// NUL, nothing before "?"): the hook answers 404 instead, with the
	// fields of Header (NGINX copies them first), and URI is empty.
	Refused bool

	typeDone bool // a later upstream's Content-Type took over
	// body is the request body the proxy read whole, which a named
	// location gets again (NGINX keeps the read body with the request);
	// nil when there was none or it was streamed.
	body *spool.Spool
}

// Named reports whether the target is a named location.
func (a *Accel) Named() bool { return strings.HasPrefix(a.URI, "@") }

// Request returns r as it is served again: with the target's arguments
// and, unless r is a HEAD or the target a named location, as a GET
// without a body.
func (a *Accel) Request(r *http.Request) *http.Request {
	r2 := r.WithContext(context.WithValue(r.Context(), reqkey.Accel, a))
	if a.Named() {
		if a.body != nil {
			r2.Body, r2.ContentLength = io.NopCloser(a.body.Reader()), a.body.Size
		}
		return r2
	}
	u := *r.URL
	u.RawQuery, u.ForceQuery = a.Args, false
	r2.URL = &u
	if r2.Method != http.MethodHead {
		r2.Method = http.MethodGet
	}
	r2.Body, r2.ContentLength = http.NoBody, 0
	return r2
}

// Writer adds a.Header to w's header and returns the writer the
// redirected request is to be served through: w itself, or, when the
// upstream sent a Content-Type or an Accept-Ranges, a writer that keeps
// them when the target's content sets its own: the upstream's type
// replaces the target's on a 200 or a single-range 206, and its
// Accept-Ranges stays ahead of the target's (NGINX sends both).
func (a *Accel) Writer(w http.ResponseWriter) http.ResponseWriter {
	h := w.Header()
	for k, vv := range a.Header {
		h[k] = append(h[k], vv...)
	}
	if a.ContentType == "" && len(a.Header["Accept-Ranges"]) == 0 {
		return w
	}
	t := &accelTypeWriter{Writer: onheader.Writer{ResponseWriter: w}, a: a}
	t.Hook = t
	return t
}

// accelTypeWriter keeps an X-Accel-Redirect's Content-Type and
// Accept-Ranges.
type accelTypeWriter struct {
	onheader.Writer
	a *Accel
}

func (t *accelTypeWriter) BeforeHeader(h http.Header, status int) {
	ct := h.Get("Content-Type")
	if t.a.ContentType != "" && !t.a.typeDone && (status == http.StatusOK || status == http.StatusPartialContent) &&
		!strings.HasPrefix(ct, "multipart/byteranges") {
		h["Content-Type"] = []string{t.a.ContentType}
	}
	if up := t.a.Header["Accept-Ranges"]; len(up) > 0 {
		if cur := h["Accept-Ranges"]; len(cur) < len(up) || !slices.Equal(cur[:len(up)], up) {
			h["Accept-Ranges"] = append(slices.Clip(up), cur...)
		}
	}
}

// accelCarried are the upstream fields that NGINX copies into the
// response of an X-Accel-Redirect (its table's "redirect" mark), less
// Content-Type, which Accel carries apart.
var accelCarried = [...]string{"Set-Cookie", "Content-Disposition", "Cache-Control", "Expires", "Accept-Ranges"}

// noteUpstreamType records, for an X-Accel-Redirect being served, that
// this upstream's Content-Type replaces the earlier one, as each
// upstream's does in NGINX.
func (x *exchange) noteUpstreamType(resp *http.Response) {
	if a, _ := x.ctx.Value(reqkey.Accel).(*Accel); a != nil && len(resp.Header["Content-Type"]) > 0 {
		a.typeDone = true
	}
}

// accelRedirect acts on an upstream's X-Accel-Redirect, when there is one
// and it is not ignored, and reports whether it did: the upstream's body
// is dropped (its connection kept only when there is none) and the
// request is served again for the target through Options.AccelRedirect.
func (x *exchange) accelRedirect(p *peer, c *conn, resp *http.Response) bool {
	h := x.h
	v := x.accelField(resp, "X-Accel-Redirect")
	if h.accel == nil || h.ignoreAccelRedirect || len(v) == 0 ||
		resp.StatusCode == http.StatusSwitchingProtocols && h.wire == nil ||
		h.intercept != nil && h.intercept(x.r, resp.StatusCode) {
		return false // respond relays, tunnels or intercepts it
	}
	a := &x.attempts[len(x.attempts)-1]
	x.noteUpstreamType(resp)
	// NGINX reads X-Accel-Limit-Rate and X-Accel-Charset with the
	// header, before it acts on the redirect: they hold for the response
	// served instead.
	x.accelSettings(resp)
	target := v[0]
	acc := &Accel{Header: make(http.Header)}
	// Of several Content-Type lines the last counts: NGINX's copy handler
	// sets the response's type once per line.
	if ct := resp.Header["Content-Type"]; len(ct) > 0 {
		acc.ContentType = ct[len(ct)-1]
	}
	for _, k := range accelCarried {
		if vv := resp.Header[k]; len(vv) > 0 {
			if k == "Accept-Ranges" && h.forceRanges {
				continue
			}
			acc.Header[k] = vv
		}
	}
	h.rewriteCookies(x.r, acc.Header)

	// The upstream is done with: an empty body leaves its connection fit
	// for another request, anything else closes it unread.
	sent := x.waitSending(c, false) && x.sendErr == nil
	stopped := x.stop.Stop()
	a.total = time.Since(x.tryStart)
	a.count(c)
	if resp.ContentLength == 0 && sent && stopped && x.keepalive(resp) && c.br.Buffered() == 0 {
		_, _ = io.Copy(io.Discard, resp.Body)
		x.up.putIdle(c, time.Now())
	} else {
		c.close()
	}
	x.up.release(p, false, time.Now())
	// This location's tries are over: the location served instead reads
	// them ($upstream_addr in its parameters, before its own tries), as
	// NGINX's finalizes them before the internal redirect.
	x.publishUpstream()

	if strings.HasPrefix(target, "@") {
		// The method stays, and so does the body: the one read whole is
		// read again (it lives until this exchange ends, after the
		// redirect has been served).
		acc.URI, acc.body = target, x.body.spool
	} else {
		path, args, ok := percent.ParseUnsafeURI(target)
		if !ok {
			x.logFailure(slog.LevelError, "unsafe URI "+strconvQuote(target)+" was detected in X-Accel-Redirect", x.up.Name, nil)
			// The carried fields were copied before NGINX looked at the
			// target: its 404 has them too. The hook answers it, so that
			// a cache in front stores nothing here either.
			acc.ContentType, acc.Refused = "", true
			h.accel(x.w, x.r, acc)
			return true
		}
		acc.URI, acc.Args = path, args
	}
	h.accel(x.w, x.r, acc)
	return true
}

func strconvQuote(s string) string { return "\"" + strings.ReplaceAll(s, "\"", "\\\"") + "\"" }
