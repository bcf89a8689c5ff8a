package server

import (
	"bufio"
	"io"
	"net"
	"net/http"
)

// The output filters of a response are those of the location that
// produces it, as in NGINX, whose internal redirects switch the request's
// location configuration before its header and body filters read it.
// A location's chain is
//
//	request filters → gateHandler → output filters → entryHandler → core and content
//
// The request filters (Filter.PerRequest: the access log, metrics) wrap
// the request once. gateHandler puts a gate (outputGate) between them and
// the output filters (add_header, expires, limit_rate, compression, SSI,
// ESI), and entryHandler a slot (outputSlot) between the output filters
// and the writers of the core and the content (error_page's, an
// X-Accel-Redirect's). An internal redirect (redirect) closes the gate,
// so that whatever the first location's filters write from then on, at
// their end, goes nowhere; it runs the target's output filters over a new
// gate on the same writer, and points the slot at them: the target's
// content writes through the caller's writers as before (an error_page
// status stays in force), then the target's filters, to the client. The
// first location's filters, bypassed, see nothing of the response. A
// second redirect does the same to the first one's target.

// filterLayer is a request's gate and slot, kept in its reqRoot so that a
// request that is not redirected allocates nothing for them.
type filterLayer struct {
	base outputGate  // the first gate
	cur  *outputGate // the gate of the filters in force
	slot outputSlot
	// loc is the target of the last internal redirect, whose settings
	// the core applies to the header (charset); nil before one.
	loc *Location
}

// outputGate passes what the output filters above it write to w until
// an internal redirect closes it; then it swallows all, and its Header
// is a map of its own.
type outputGate struct {
	w      http.ResponseWriter
	closed bool
	// atHeader is the location's Filter.AtHeader writer, until the
	// header or the body's first bytes come (started); r is the request
	// it is given.
	atHeader func(http.ResponseWriter, *http.Request) http.ResponseWriter
	r        *http.Request
	// hdr is the map Header answers with, taken at its first call: w's
	// while the gate is open (every writer below it has one map for the
	// response), a map of the gate's own once it is closed. The filters
	// above ask for it many times (compression five times a response,
	// after the encoder has pushed their code out of the instruction
	// cache), and each call went down two more layers.
	hdr http.Header
}

func (g *outputGate) Header() http.Header {
	if g.hdr == nil {
		g.hdr = g.firstHeader()
	}
	return g.hdr
}

func (g *outputGate) firstHeader() http.Header {
	if g.closed {
		return http.Header{}
	}
	return g.w.Header()
}

// close closes the gate: from now on it swallows all.
func (g *outputGate) close() { g.closed, g.hdr = true, nil }

func (g *outputGate) WriteHeader(code int) {
	if !g.closed {
		// An informational header goes before the response's own.
		if g.atHeader != nil && code >= 200 {
			g.start()
		}
		g.w.WriteHeader(code)
	}
}

func (g *outputGate) Write(b []byte) (int, error) {
	if g.closed {
		return len(b), nil
	}
	if g.atHeader != nil {
		g.start()
	}
	return g.w.Write(b)
}

// start puts the location's AtHeader writer under the gate as the
// response's header (or its first body bytes, with the implicit 200)
// goes through, once: what the handlers set by then (an upstream's
// X-Accel-Limit-Rate) is known. Apart from the hot path, which tests
// one field.
//
//go:noinline
func (g *outputGate) start() {
	f := g.atHeader
	g.atHeader = nil
	g.w = f(g.w, g.r)
}

// gateRF is a gate on a writer that takes bodies with ReadFrom
// (sendfile). The gate and the slot have ReadFrom when the writer they
// stand for has it, and only then: a content that sees it acts on it
// (static files flush the header first, which settles compression).
// Made of one pointer, it goes into an interface without an allocation.
type gateRF struct{ *outputGate }

func (g gateRF) ReadFrom(src io.Reader) (int64, error) {
	if g.closed {
		return io.Copy(io.Discard, src)
	}
	if g.atHeader != nil {
		g.start()
	}
	return g.w.(io.ReaderFrom).ReadFrom(src)
}

// gated returns g as the writer for the filters above it: with ReadFrom
// when w has it.
func (g *outputGate) gated() http.ResponseWriter {
	if _, ok := g.w.(io.ReaderFrom); ok {
		return gateRF{g}
	}
	return g
}

func (g *outputGate) Flush() { _ = g.FlushError() }

// FlushError is Flush reporting errors, for http.ResponseController.
func (g *outputGate) FlushError() error {
	if g.closed {
		return nil
	}
	return flushError(g.w)
}

func (g *outputGate) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if g.closed {
		return nil, nil, http.ErrNotSupported
	}
	return http.NewResponseController(g.w).Hijack()
}

// Unwrap lets http.ResponseController reach the server's writer
// (deadlines, full duplex); a closed gate reaches nothing.
func (g *outputGate) Unwrap() http.ResponseWriter {
	if g.closed {
		return nil
	}
	return g.w
}

// outputSlot is the writer the core and the content of a request write
// to: it passes all to the output filters in force, those of the first
// location, then of each internal redirect's target.
type outputSlot struct {
	w http.ResponseWriter
}

func (s *outputSlot) Header() http.Header         { return s.w.Header() }
func (s *outputSlot) WriteHeader(code int)        { s.w.WriteHeader(code) }
func (s *outputSlot) Write(b []byte) (int, error) { return s.w.Write(b) }

// slotRF is the slot for filters that take bodies with ReadFrom. A
// redirect's target may have filters without it: their bodies are
// copied.
type slotRF struct{ *outputSlot }

func (s slotRF) ReadFrom(src io.Reader) (int64, error) {
	if rf, ok := s.w.(io.ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	return io.Copy(struct{ io.Writer }{s.w}, src)
}

func (s *outputSlot) Flush() { _ = s.FlushError() }

// FlushError is Flush reporting errors, for http.ResponseController.
func (s *outputSlot) FlushError() error { return flushError(s.w) }

func (s *outputSlot) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(s.w).Hijack()
}

func (s *outputSlot) Unwrap() http.ResponseWriter { return s.w }

// gateHandler puts the request's first gate under a location's output
// filters, next. atHeader is the location's Filter.AtHeader writer for
// the chain of main requests, which the gate puts under itself; nil for
// subrequests' chain and where no filter has one.
type gateHandler struct {
	next     http.Handler
	atHeader func(http.ResponseWriter, *http.Request) http.ResponseWriter
}

func (h *gateHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ri := infoFrom(r.Context())
	if ri == nil || ri.fl == nil || ri.fl.cur != nil {
		// Outside the server, or a chain entered twice for one request:
		// the filters stay where they are.
		h.next.ServeHTTP(w, r)
		return
	}
	// The first gate of the request: cur is nil only here, once per
	// request (each has a root of its own, http1's record included), so
	// the base gate is as made, open and without a map. A later pass
	// (an internal redirect, error_page, a post action) gets a new gate
	// (switchTo), and a chain entered again (an ESI replay) keeps this
	// one, above.
	g := &ri.fl.base
	g.w = w
	if h.atHeader != nil {
		g.atHeader, g.r = h.atHeader, r
	}
	ri.fl.cur = g
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler && ri.rec != nil {
				// A response broken off after its header (an upstream
				// body cut short) still has its post action, as NGINX
				// runs it for a request finalized with an error, and
				// the access log, written as the panic unwinds, shows
				// it. The connection breaks after, as it would have,
				// without the last chunk that the post action's
				// completion would otherwise count as sent.
				ri.st.Aborted = true
				schedulePostAction(ri, r)
				ri.rec.runHolds()
			}
			panic(p)
		}
	}()
	h.next.ServeHTTP(g.gated(), r)
	if ri.rec != nil {
		schedulePostAction(ri, r)
		// The output filters are done with the response: it goes out
		// whole, and what AfterResponse holds runs before the request
		// filters (the access log) see the request end, as NGINX logs
		// a request once its background subrequests and its post action
		// have ended.
		ri.rec.settle()
	}
}

// entryHandler is the end of a location's output filters: it points the
// slot at them and runs the core and content. For the target of an
// internal redirect it runs them on the writer that the redirect was
// given, which goes down to the slot.
type entryHandler struct {
	loc     *Location
	content http.Handler
}

func (h *entryHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ri := infoFrom(r.Context())
	switch {
	case ri == nil || ri.fl == nil || ri.fl.cur == nil:
		h.content.ServeHTTP(w, r)
	case ri.redir != nil && ri.redir.loc == h.loc:
		// The target of an internal redirect: its filters take over the
		// slot. ESI runs its content again for some requests (a replay)
		// and comes back here with the same record.
		ri.fl.slot.w = w
		h.content.ServeHTTP(ri.redir.w, r)
	default:
		// The first run, or the chain run again for the same request (an
		// ESI replay): the slot points at this run's filters, so that a
		// redirect made by the content reaches the client.
		s := &ri.fl.slot
		s.w = w
		if _, ok := w.(io.ReaderFrom); ok {
			h.content.ServeHTTP(slotRF{s}, r)
			return
		}
		h.content.ServeHTTP(s, r)
	}
}

// redirectable reports whether the request's responses go through the
// slot, so that the target of an internal redirect can have its own
// filters.
func (fl *filterLayer) redirectable() bool {
	return fl != nil && fl.cur != nil && fl.slot.w != nil
}

// switchTo closes the gate in force and returns a new one on the same
// writer, for the output filters of an internal redirect's target, loc,
// serving r. A redirect comes before the header, so the old gate has put
// no AtHeader writer under itself; a post action's comes after it, but
// from a gate that runPostAction put on the writer that discards the
// answer, so the client's paced writer is left behind there too.
func (fl *filterLayer) switchTo(loc *Location, r *http.Request, main bool) http.ResponseWriter {
	old := fl.cur
	g := &outputGate{w: old.w}
	if main {
		g.atHeader, g.r = loc.atHeader, r
	}
	old.close()
	fl.cur = g
	return g.gated()
}

// flushError flushes w as http.ResponseController does, without
// allocating one for the writers that flush themselves.
func flushError(w http.ResponseWriter) error {
	switch f := w.(type) {
	case interface{ FlushError() error }:
		return f.FlushError()
	case http.Flusher:
		f.Flush()
		return nil
	}
	return http.NewResponseController(w).Flush()
}

// redirTarget is what an internal redirect leaves in its record for its
// target's chain: the location and the writer the content is to use.
type redirTarget struct {
	loc *Location
	w   http.ResponseWriter
}
