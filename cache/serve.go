package cache

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/internal/byterange"
	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/notmodified"
	"github.com/mosaic-edge/mosaic/internal/reason"
	"github.com/mosaic-edge/mosaic/vars"
)

// h2Dropped are the stored fields that an HTTP/1.x client gets and an
// HTTP/2 client does not (see storedHeader).
var h2Dropped = [...]string{"Proxy-Connection", "Te", "Upgrade"}

// h2DroppedField reports whether k is one of h2Dropped.
func h2DroppedField(k string) bool {
	for _, d := range h2Dropped {
		if k == d {
			return true
		}
	}
	return false
}

// serveStored writes a stored response: its header, a fresh Age, the
// Cache-Status value cs, and the body unless the request is HEAD or its
// conditionals make it a 304; a Range request for a stored 200 gets its
// ranges (206) or 416.
func (c *Cache) serveStored(w http.ResponseWriter, r *http.Request, obj Object, m *Meta, now time.Time, status, cs string) {
	c.publish(r, status)
	// Only while this response is written: a handler that serves the
	// request again after it (error_page, try_files) shares the request's
	// variables, and its body is not this one. Nor is a body that a filter
	// between the cache and ESI rebuilds for each request (SSI): a plan
	// keyed on the stored body would replay one request's text to others.
	if c.publishBodyID && (c.transformed == nil || !c.transformed(m.Header.Get("Content-Type"))) {
		publishBodyID(r, m.BodyID)
		defer publishBodyID(r, 0)
	}
	h := w.Header()
	for k, vv := range m.Header {
		h[k] = vv
	}
	for _, k := range c.consumed {
		delete(h, k)
	}
	header.SpellFields(w, m.Spell)
	if r.ProtoMajor == 2 {
		// Connection-specific: they make an HTTP/2 response malformed
		// (RFC 9113, 8.2.2); the proxy keeps them back from HTTP/2
		// clients the same way.
		for _, k := range h2Dropped {
			delete(h, k)
		}
	}
	// One allocation carries both values.
	vals := make([]string, 2)
	vals[0] = strconv.FormatInt(int64(m.age(now)/time.Second), 10)
	vals[1] = cs
	h["Age"] = vals[0:1:1]
	h["Cache-Status"] = vals[1:2:2]

	code := m.Status
	offered := len(m.Header["Accept-Ranges"]) > 0
	// Stored without a length (commit): NGINX's hit of such an answer
	// keeps the upstream's want of one (content_length_n -1), so it goes
	// out chunked, and its range filter leaves it whole, without
	// Accept-Ranges.
	size := m.Size
	unknown := bodyAllowed(code) && len(m.Header["Content-Length"]) == 0
	if unknown {
		size = -1
	}
	if code == http.StatusOK {
		if cond := c.conditional(r, m.Header, m.ResponseTime); cond != 0 {
			c.answerCondition(w, r, cond)
			return
		}
	}
	var body io.Writer = w
	if code == http.StatusOK && !unknown {
		if ranges, verdict := c.clientRanges(r, m.Header, m.Size, false); verdict != byterange.Whole {
			// add_header and expires act on the stored 200 that NGINX's
			// range filter then cuts or refuses.
			header.RangeOf200(w, h.Get("Last-Modified"), h.Get("Content-Type"))
			rw := setRangeHeader(r.Context(), h, ranges, m.Size, w)
			if rw == nil {
				c.refuseRange(w, r)
				return
			}
			code, body = http.StatusPartialContent, rw
		}
	}
	c.acceptRanges(h, code, size, offered)
	if unknown {
		header.UnknownLength(w)
	}
	w.WriteHeader(code)
	if r.Method == http.MethodHead || !bodyAllowed(code) || m.Size == 0 {
		return
	}
	_, err := obj.WriteTo(body)
	if err == nil {
		return
	}
	if errors.Is(err, ErrCorrupt) {
		c.log.store("read", m.Key, err)
		if derr := c.store.Delete(context.WithoutCancel(r.Context()), m.Key); derr != nil {
			c.log.store("delete", m.Key, derr)
		}
	}
	// Whatever broke off the body (a corrupt entry, a store that stopped
	// answering, the client's connection), the header is out: only a
	// broken connection tells the client the body is incomplete.
	// Returning would end it as if complete wherever its length is not
	// in the header (a chunked or compressed response).
	if r.Context().Value(http.ServerContextKey) != nil {
		panic(http.ErrAbortHandler)
	}
}

// BodyIDVar is the request variable (vars.State, not a $variable of the
// configuration) in which a response served from the store names its body
// (Meta.BodyID, in hexadecimal; empty when unknown) while it is being
// written, and only then: the ESI processor keys its parse plans on it.
const BodyIDVar = "cache_body_id"

func publishBodyID(r *http.Request, id uint64) {
	v := ""
	if id != 0 {
		v = strconv.FormatUint(id, 16)
	}
	vars.FromContext(r.Context()).Set(BodyIDVar, v)
}

// newBodyID draws a Meta.BodyID: random, never 0.
func newBodyID() uint64 {
	for {
		if id := rand.Uint64(); id != 0 {
			return id
		}
	}
}

// conditional answers the request's conditional fields for a 200 whose
// header is h, received when it arrived from upstream, as
// Options.Conditions says: 304, 412, or 0 to send the response.
func (c *Cache) conditional(r *http.Request, h http.Header, received time.Time) int {
	q := r.Header
	if len(q["If-None-Match"]) == 0 && len(q["If-Modified-Since"]) == 0 && len(q["If-Match"]) == 0 && len(q["If-Unmodified-Since"]) == 0 {
		return 0
	}
	if c.conditions == ConditionsRFC {
		if notModified(r, h, received) {
			return http.StatusNotModified
		}
		return 0
	}
	// NGINX's filter acts whatever the method (proxy_cache_methods POST),
	// and on the main request only.
	if c.subrequest != nil && c.subrequest(r) {
		return 0
	}
	return notmodified.CheckResponse(q, h, conditionsSince[c.conditions])
}

// conditionsSince maps the NGINX Conditions to if_modified_since.
var conditionsSince = [...]notmodified.Since{
	ConditionsNGINX:       notmodified.Exact,
	ConditionsNGINXBefore: notmodified.Before,
	ConditionsNGINXOff:    notmodified.Off,
}

// refuseRange answers with 416 a range of a complete 200 that
// setRangeHeader refused (Content-Range: bytes */size): under the
// server, as NGINX's range filter finalizes the request, with the
// server's page, which error_page replaces and which keeps what
// add_header gave the 200 (RangeOf200 came first); else with a short
// text of its own.
func (c *Cache) refuseRange(w http.ResponseWriter, r *http.Request) {
	if c.errorPage != nil {
		c.errorPage(w, r, http.StatusRequestedRangeNotSatisfiable)
		return
	}
	w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
	_, _ = io.WriteString(w, notSatisfiableBody)
}

// answerCondition writes conditional's 304 or 412 to w, whose header
// holds the response's fields. A 304 keeps them but the length and
// Accept-Ranges; a 412 is an error page with none of them, as NGINX's
// filter finalizes the request.
func (c *Cache) answerCondition(w http.ResponseWriter, r *http.Request, code int) {
	h := w.Header()
	if code == http.StatusPreconditionFailed {
		clear(h)
		if c.errorPage != nil {
			c.errorPage(w, r, code)
			return
		}
		page, _ := reason.Page(code)
		h["Content-Type"] = []string{"text/html"}
		h["Content-Length"] = []string{strconv.Itoa(len(page))}
		w.WriteHeader(code)
		if r.Method != http.MethodHead {
			_, _ = io.WriteString(w, page)
		}
		return
	}
	// Content-Type stays for the filters after the cache to judge the
	// 304 as they judged its 200 (gzip_vary); the server drops it as the
	// 304 goes out.
	delete(h, "Content-Length")
	delete(h, "Accept-Ranges")
	w.WriteHeader(code)
}

// notModified evaluates the request's If-None-Match, or failing that its
// If-Modified-Since, against a 200 response's validators (RFC 9110
// section 13.2.2), so that a hit or a fill can answer 304. received is
// when the response arrived from upstream.
func notModified(r *http.Request, h http.Header, received time.Time) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if inm := r.Header["If-None-Match"]; len(inm) > 0 {
		etag := ""
		if v := h["Etag"]; len(v) > 0 {
			etag = v[0]
		}
		return etagListMatches(inm, etag)
	}
	ims := r.Header["If-Modified-Since"]
	if len(ims) == 0 {
		return false
	}
	since, ok := fieldDate(ims)
	if !ok {
		return false
	}
	// RFC 9111 section 4.3.2: without Last-Modified the response's Date
	// stands for it, and without a Date the time it was received.
	modified := received
	if lm := h["Last-Modified"]; len(lm) > 0 {
		if modified, ok = fieldDate(lm); !ok {
			return false
		}
	} else if d := h["Date"]; len(d) > 0 {
		if modified, ok = fieldDate(d); !ok {
			return false
		}
	}
	return !modified.After(since)
}

// etagListMatches applies the weak comparison of If-None-Match.
func etagListMatches(lines []string, etag string) bool {
	if etag == "" {
		for _, line := range lines {
			if strings.TrimSpace(line) == "*" {
				return true
			}
		}
		return false
	}
	want := strings.TrimPrefix(etag, "W/")
	for _, line := range lines {
		for tag := range strings.SplitSeq(line, ",") {
			tag = strings.TrimSpace(tag)
			if tag == "*" || strings.TrimPrefix(tag, "W/") == want {
				return true
			}
		}
	}
	return false
}

// invalidating handles an unsafe method: the request goes upstream as is,
// and a non-error answer invalidates what is stored for its URI (RFC 9111
// section 4.4).
func (c *Cache) invalidating(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w}
	c.next.ServeHTTP(sw, r)
	if sw.status == 0 || sw.status >= 400 {
		return
	}
	c.invalidate(context.WithoutCancel(r.Context()), c.key(r))
}

func (c *Cache) invalidate(ctx context.Context, key string) {
	if err := c.store.Delete(ctx, key); err != nil {
		c.log.store("invalidate", key, err)
	}
}

// post handles a POST that proxy_cache_methods does not name, with
// PostReuse on. RFC 9110 section 9.3.3 lets its response be reused for
// later GET and HEAD requests of the same URI when it has an explicit
// lifetime and a Content-Location naming the target URI: such a response
// is stored under the request's key, where a GET finds it. Otherwise a
// successful answer invalidates the key, as for any unsafe method (RFC
// 9111 section 4.4).
func (c *Cache) post(w http.ResponseWriter, r *http.Request) {
	key := c.key(r)
	gen, err := c.store.Generation(r.Context())
	if err != nil {
		c.log.store("lookup", key, err)
		c.invalidating(w, r)
		return
	}
	c.forward(w, r, fillParams{lk: lookup{primary: key, key: key, gen: gen}, fwd: "method", mayStore: true, post: true})
}

// contentLocationIsTarget reports a Content-Location that names the
// request's own URI, resolved against it (RFC 9110 section 8.7).
func contentLocationIsTarget(r *http.Request, h http.Header) bool {
	cl := h["Content-Location"]
	if len(cl) != 1 {
		return false
	}
	ref, err := url.Parse(strings.TrimSpace(cl[0]))
	if err != nil {
		return false
	}
	target := &url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery}
	if r.TLS != nil {
		target.Scheme = "https"
	}
	got := target.ResolveReference(ref)
	return got.Scheme == target.Scheme && strings.EqualFold(got.Host, target.Host) && got.RequestURI() == target.RequestURI()
}

// statusWriter remembers the status written through it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 && code >= 200 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(p []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(p)
}

func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// unsafeMethod reports the methods whose success invalidates the URI.
func unsafeMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodConnect:
		return false
	}
	return true
}
