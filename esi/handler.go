package esi

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
)

// errAborted stops a page whose handler panicked.
var errAborted = errors.New("esi: handler aborted")

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rw := &responseWriter{h: h, w: w, r: r}
	if fi, _ := r.Context().Value(fragmentKey{}).(*fragmentInfo); fi != nil {
		// This request is a fragment of a page, served in process: ESI in
		// its response is this Handler's business, at the depth it is at.
		fi.claimed.Store(true)
		rw.depth, rw.includes = fi.depth, fi.includes
	}
	finished := false
	defer func() {
		if !finished {
			rw.abort()
		}
	}()
	h.next.ServeHTTP(rw, r)
	rw.finish()
	finished = true
}

type writeMode uint8

const (
	modePass    writeMode = iota // not processed: bytes go through untouched
	modeDiscard                  // HEAD of a processed type: headers only
	modeProcess                  // plaintext page: parsed as it is written
	modeInflate                  // gzipped page: inflated, then parsed
)

// responseWriter is what next writes the page to. The decision to process
// is taken when the body starts (first Write, ReadFrom or Flush, or the end
// of the handler), when status, headers and the first bytes are known.
type responseWriter struct {
	h         *handler
	w         http.ResponseWriter
	r         *http.Request
	depth     int
	includes  *atomic.Int32
	status    int
	committed bool
	mode      writeMode
	page      *page
	inflater  *inflater
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
	case modeDiscard:
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
		return rw.page.readFrom(src)
	case modeInflate:
		if rw.inflater == nil {
			cr := &countingReader{r: src}
			err := rw.page.inflate(cr)
			return cr.n, err
		}
		return io.Copy(writerOnly{rw}, src)
	case modeDiscard:
		return io.Copy(io.Discard, src)
	}
	return io.Copy(rw.w, src)
}

func (rw *responseWriter) Flush() {
	if !rw.committed {
		rw.commit(nil)
	}
	if rw.page != nil {
		rw.page.out.requestFlush()
		return
	}
	_ = http.NewResponseController(rw.w).Flush()
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
	}
	rw.w.WriteHeader(status)
	if rw.mode == modeProcess || rw.mode == modeInflate {
		if rw.includes == nil {
			rw.includes = new(atomic.Int32)
		}
		rw.page = newPage(rw.r.Context(), rw.h, rw.r, rw.depth, rw.includes, newOutput(rw.w, http.NewResponseController(rw.w).Flush, &rw.h.bufs))
	}
}

func (rw *responseWriter) decide(status int, hdr http.Header) writeMode {
	switch {
	case status == http.StatusNoContent || status == http.StatusNotModified || status < 200:
		return modePass // no body
	case status == http.StatusPartialContent:
		return modePass // a range of the stored document, not a page to assemble
	case !rw.h.processes(hdr.Get("Content-Type")):
		return modePass
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
		_ = rw.page.finish()
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
