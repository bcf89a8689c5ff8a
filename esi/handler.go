package esi

import (
	"errors"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// errAborted stops a page whose handler panicked.
var errAborted = errors.New("esi: handler aborted")

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && (len(r.Header["Range"]) > 0 || len(r.Header["If-Range"]) > 0) {
		// Ranges are defined for GET only (RFC 9110 section 14.2); a HEAD
		// answered 206 would describe a slice of the unprocessed document.
		r = without(r, rangeHeaders)
	}
	if h.opts.Surrogate {
		r = withCapability(r)
	}
	rw := &responseWriter{h: h, w: w, r: r}
	if fi, _ := r.Context().Value(fragmentKey{}).(*fragmentInfo); fi != nil {
		// This request is a fragment of a page, served in process: ESI in
		// its response is this handler's business, at the depth it is at.
		fi.claimed.Store(true)
		rw.depth, rw.includes, rw.fragment = fi.depth, fi.includes, true
	}
	rw.ranged = r.Method == http.MethodGet && len(r.Header["Range"]) > 0
	rw.conditional = (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		(len(r.Header["If-None-Match"]) > 0 || len(r.Header["If-Modified-Since"]) > 0)
	if rw.ranged || rw.conditional {
		// next may answer for the stored document rather than with it; the
		// header as it stands now is what a second pass starts from.
		rw.saved = w.Header().Clone()
	}
	rw.serve()
	if rw.mode != modeReplay {
		return
	}
	// next answered with a slice of the unprocessed document, or with a
	// 304 against its validators, which the processed page does not have.
	// That answer was never sent: the request is served again without the
	// headers that asked for it (GET and HEAD are safe to repeat), and the
	// page it gets is processed whole.
	hdr := w.Header()
	clear(hdr)
	maps.Copy(hdr, rw.saved)
	rw = &responseWriter{h: h, w: w, r: without(r, replayHeaders), depth: rw.depth, includes: rw.includes, fragment: rw.fragment}
	rw.serve()
}

// rangeHeaders ask for part of a representation; replayHeaders also the
// conditionals that can make a response a 304.
var (
	rangeHeaders  = []string{"Range", "If-Range"}
	replayHeaders = []string{"Range", "If-Range", "If-None-Match", "If-Modified-Since"}
)

// without returns a copy of r without the named headers.
func without(r *http.Request, names []string) *http.Request {
	r = r.Clone(r.Context())
	for _, k := range names {
		delete(r.Header, k)
	}
	return r
}

// serve runs next and ends the body.
func (rw *responseWriter) serve() {
	finished := false
	defer func() {
		if !finished {
			rw.abort()
		}
	}()
	rw.h.next.ServeHTTP(rw, rw.r)
	rw.finish()
	finished = true
}

type writeMode uint8

const (
	modePass    writeMode = iota // not processed: bytes go through untouched
	modeDiscard                  // HEAD of a processed type: headers only
	modeProcess                  // plaintext page: parsed as it is written
	modeInflate                  // gzipped page: inflated, then parsed
	modeReplay                   // not the page itself: dropped, and served again
)

// responseWriter is what next writes the page to. The decision to process
// is taken when the body starts (first Write, ReadFrom or Flush, or the end
// of the handler), when status, headers and the first bytes are known.
type responseWriter struct {
	h        *handler
	w        http.ResponseWriter
	r        *http.Request
	depth    int
	includes *atomic.Int32
	fragment bool // the request is a fragment of a page: never stitched
	// ranged and conditional say the request may get a partial or a 304
	// answer; saved is the header before next ran, kept for a replay.
	ranged      bool
	conditional bool
	saved       http.Header
	status      int
	committed   bool
	mode        writeMode
	page        *page
	inflater    *inflater
	stitch      *stitcher // the page is compressed here (esi_stitch)
}

func (rw *responseWriter) Header() http.Header { return rw.w.Header() }

func (rw *responseWriter) WriteHeader(code int) {
	if rw.committed || rw.status != 0 {
		return
	}
	if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
		rw.w.WriteHeader(code) // informational: the final header follows
		return
	}
	rw.status = code
}

// Unwrap lets http.ResponseController reach the server's writer.
func (rw *responseWriter) Unwrap() http.ResponseWriter { return rw.w }

func (rw *responseWriter) Write(b []byte) (int, error) {
	if !rw.committed {
		rw.commit(b)
	}
	switch rw.mode {
	case modeProcess:
		return rw.page.write(b)
	case modeInflate:
		return rw.inflaterFor().write(b)
	case modeDiscard, modeReplay:
		return len(b), nil
	}
	return rw.w.Write(b)
}

// ReadFrom is what io.Copy uses (http.ServeContent, for one): the page is
// read into buffers the processor owns, so no byte of it is copied.
func (rw *responseWriter) ReadFrom(src io.Reader) (int64, error) {
	if !rw.committed {
		if _, has := rw.w.Header()["Content-Type"]; !has {
			// The type is sniffed from the first bytes, which only Write sees.
			return io.Copy(writerOnly{rw}, src)
		}
		rw.commit(nil)
	}
	switch rw.mode {
	case modeProcess:
		if bufs, ok := src.(*net.Buffers); ok {
			// Already in memory (a cache's stored chunks): parsed where
			// they lie rather than copied into the page's buffers; only
			// text that must wait is copied, and none of a run written
			// from its stored form.
			return rw.page.writeBuffers(bufs)
		}
		return rw.page.readFrom(src)
	case modeInflate:
		if rw.inflater == nil {
			cr := &countingReader{r: src}
			err := rw.page.inflate(cr)
			return cr.n, err
		}
		return io.Copy(writerOnly{rw}, src)
	case modeDiscard, modeReplay:
		return io.Copy(io.Discard, src)
	}
	return io.Copy(rw.w, src)
}

func (rw *responseWriter) Flush() {
	if !rw.committed {
		rw.commit(nil)
	}
	switch {
	case rw.page != nil:
		rw.page.out.requestFlush()
	case rw.mode != modeReplay: // a flush would send the header of a dropped answer
		_ = http.NewResponseController(rw.w).Flush()
	}
}

// commit decides how the body is handled and sends the header.
func (rw *responseWriter) commit(first []byte) {
	rw.committed = true
	status := rw.status
	if status == 0 {
		status = http.StatusOK
	}
	hdr := rw.w.Header()
	if _, has := hdr["Content-Type"]; !has && len(first) > 0 && hdr.Get("Content-Encoding") == "" {
		hdr.Set("Content-Type", http.DetectContentType(first))
	}
	rw.mode = rw.decide(status, hdr)
	if rw.mode == modeReplay {
		return
	}
	parsed := rw.mode == modeProcess || rw.mode == modeInflate
	var key planKey
	planned := false
	if parsed && rw.h.opts.Plans != nil {
		key, planned = keyOf(rw.r)
	}
	coding := rw.stitchCoding(status, hdr)
	if rw.h.opts.Surrogate {
		// Addressed to the surrogate, processed or not.
		hdr.Del("Surrogate-Control")
	}
	if rw.mode != modePass {
		// A processed page is another representation than the one these
		// headers describe: no length, no ranges, no validators.
		// Surrogate-Control is addressed to this processor and stops here.
		hdr.Del("Content-Length")
		hdr.Del("Accept-Ranges")
		hdr.Del("ETag")
		hdr.Del("Last-Modified")
		hdr.Del("Surrogate-Control")
		if rw.mode == modeInflate || (rw.mode == modeDiscard && isGzip(hdr.Get("Content-Encoding"))) {
			hdr.Del("Content-Encoding")
		}
		if coding != CodingNone {
			hdr.Set("Content-Encoding", coding.String())
		}
	}
	rw.w.WriteHeader(status)
	if parsed {
		if rw.includes == nil {
			rw.includes = new(atomic.Int32)
		}
		var w io.Writer = rw.w
		flush := http.NewResponseController(rw.w).Flush
		if coding != CodingNone {
			rw.stitch = newStitcher(rw.w, coding, rw.h.opts.Stitch.Level)
			w, flush = rw.stitch, rw.stitch.flush(flush)
		}
		out := newOutput(w, flush, &rw.h.bufs, rw.h.opts.MaxHeldSize)
		rw.page = newPage(rw.r.Context(), rw.h, rw.r, rw.depth, rw.includes, out)
		rw.page.stitch = rw.stitch
		if planned {
			rw.page.usePlan(rw.h.opts.Plans, key)
		}
	}
}

// stitchCoding returns the coding a processed response is stitched in,
// and adds the Vary that stitching calls for.
func (rw *responseWriter) stitchCoding(status int, hdr http.Header) Coding {
	st := rw.h.opts.Stitch
	if st == nil || rw.mode == modePass || rw.fragment {
		return CodingNone
	}
	// A response that is not stitched is the compression filter's to
	// vary, if it compresses it: not stitching adds no Vary.
	if !stitchable(rw.r, status, hdr) {
		return CodingNone
	}
	coding, vary := st.Choose(rw.r)
	if vary && !header.HasToken(hdr["Vary"], "accept-encoding") && !header.HasToken(hdr["Vary"], "*") {
		hdr["Vary"] = append(hdr["Vary"], "Accept-Encoding")
	}
	return coding
}

func (rw *responseWriter) decide(status int, hdr http.Header) writeMode {
	switch {
	case rw.mustReplay(status, hdr):
		return modeReplay
	case status == http.StatusNoContent || status == http.StatusNotModified || status < 200:
		return modePass // no body
	case status == http.StatusPartialContent:
		return modePass // a range of a document of a type not processed here
	case !rw.h.processes(hdr.Get("Content-Type")):
		return modePass
	case rw.h.opts.Surrogate && !asksForESI(hdr.Values("Surrogate-Control")):
		return modePass // the origin did not ask for ESI processing
	}
	enc := strings.TrimSpace(strings.Join(hdr.Values("Content-Encoding"), ","))
	mode := modeProcess
	switch {
	case isGzip(enc):
		mode = modeInflate
	case enc != "" && !strings.EqualFold(enc, "identity"):
		rw.h.log.LogAttrs(rw.r.Context(), slog.LevelInfo, "esi: response passed through unprocessed: its Content-Encoding cannot be inflated",
			slog.String("uri", rw.r.URL.RequestURI()), slog.String("content_encoding", enc))
		return modePass
	}
	if rw.r.Method == http.MethodHead {
		return modeDiscard // the header of the processed page, and no fragment requests
	}
	return mode
}

// mustReplay reports whether a response stands for the unprocessed document
// of a processed type instead of carrying it whole: a slice of it (a 206,
// or an error page whose status replaced a 206's and kept its
// Content-Range) or a 304 against its validators. Ranges do not apply to a
// processed page, as NGINX's SSI filter turns them off for the responses
// it processes, and the page has no validators. The parts of a
// multipart/byteranges answer carry their type in the body, so such an
// answer counts as one of a processed type.
func (rw *responseWriter) mustReplay(status int, hdr http.Header) bool {
	ctype := hdr.Get("Content-Type")
	switch {
	case status == http.StatusNotModified:
		return rw.conditional && rw.h.processes(ctype)
	case rw.ranged && (status == http.StatusPartialContent || isSlice(hdr.Get("Content-Range"))):
		if rw.h.opts.Surrogate && !asksForESI(hdr.Values("Surrogate-Control")) {
			return false // a slice of a page that is not processed
		}
		return rw.h.processes(ctype) || isMultipartByteranges(ctype)
	}
	return false
}

// isSlice reports a Content-Range that names the bytes sent, not the
// "bytes */length" of a 416, whose body is an error page of its own.
func isSlice(contentRange string) bool {
	return contentRange != "" && !strings.HasPrefix(contentRange, "bytes */")
}

func isMultipartByteranges(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "multipart/byteranges")
}

func isGzip(enc string) bool {
	enc = strings.TrimSpace(enc)
	return strings.EqualFold(enc, "gzip") || strings.EqualFold(enc, "x-gzip")
}

// finish ends the body once next has returned.
func (rw *responseWriter) finish() {
	if !rw.committed {
		rw.commit(nil)
	}
	if rw.inflater != nil {
		rw.inflater.close()
	}
	if rw.page != nil {
		// Write errors went to next already; here the client is gone.
		if err := rw.page.finish(); err == nil && rw.stitch != nil {
			_ = rw.stitch.close()
		}
	}
}

// abort cleans up after next panicked: fragments are stopped and nothing
// more is written.
func (rw *responseWriter) abort() {
	if rw.inflater != nil {
		rw.inflater.pw.CloseWithError(errAborted)
		<-rw.inflater.done
	}
	if rw.page != nil {
		rw.page.abort(errAborted)
	}
}

// writerOnly hides ReadFrom, so io.Copy goes through Write.
type writerOnly struct{ io.Writer }

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
