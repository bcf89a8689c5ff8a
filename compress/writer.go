package compress

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/vars"
)

// sniffLen is how much of a body net/http looks at to guess its type.
const sniffLen = 512

// bodyState is where a response stands.
type bodyState uint8

const (
	statePending  bodyState = iota // the coding is not decided yet
	stateIdentity                  // the body goes through unchanged
	stateCompress                  // the body goes through an encoder
	stateHeadOnly                  // HEAD: a GET's headers, no body
	stateCached                    // served from the body cache: the handler's body is dropped
	stateDone                      // hijacked or aborted: nothing more is written
)

var errDone = errors.New("compress: response already hijacked or aborted")

// responseWriter wraps a handler's http.ResponseWriter. The coding is
// decided at the first byte of body, at a Flush or when the handler
// returns, whichever comes first: by then the status and headers are final,
// a missing Content-Type can be sniffed, and an empty body is known to be
// empty.
type responseWriter struct {
	rw     http.ResponseWriter
	req    *http.Request
	cfg    *config
	ranked Ranked
	dreq   dictRequest // the dictionary the request offers (dictionary.go)
	head   bool

	status     int  // the final status; 0 until the handler sets one
	begun      bool // start has run
	state      bodyState
	headerSent bool
	values     *codingValues // the coding's header values (setCodingHeaders)
	st         *vars.State   // the request's variables (startEncoder); nil without
	declared   int64         // Content-Length, -1 when unknown
	mediaType  string        // Content-Type's media type, lowercased, as start or sniffType read it
	needSniff  bool
	sniff      []byte // body held back to sniff its type
	parallel   bool   // the body went to a parallel stream (recycle)
	fileDated  bool   // Last-Modified is a served file's date (FileDated)

	compression
}

// Header returns the handler's header map.
func (w *responseWriter) Header() http.Header { return w.rw.Header() }

// WriteHeader records the final status, or sends an informational (1xx)
// response at once, as net/http does.
func (w *responseWriter) WriteHeader(code int) {
	if w.state == stateDone || w.status != 0 {
		return
	}
	if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
		w.rw.WriteHeader(code)
		return
	}
	if code < 100 || code > 999 {
		w.rw.WriteHeader(code) // let net/http reject it as it always does
		return
	}
	w.status = code
}

// Write takes body bytes from the handler.
func (w *responseWriter) Write(p []byte) (int, error) {
	if w.state == stateDone {
		return 0, errDone
	}
	if !w.begun {
		w.start()
	}
	return w.body(p)
}

// Flush sends what the handler has written so far, compressed as far as
// the encoder can take it, and flushes the connection.
func (w *responseWriter) Flush() { _ = w.FlushError() }

// FlushError is Flush reporting errors; http.ResponseController uses it.
func (w *responseWriter) FlushError() error {
	if w.state == stateDone {
		return errDone
	}
	if !w.begun {
		w.start()
	}
	if w.state == statePending {
		if err := w.decideNow(false); err != nil {
			return err
		}
	}
	switch w.state {
	case stateCompress:
		if err := w.flushEncoder(); err != nil {
			return err
		}
	case stateHeadOnly:
		w.sendHeader(-1)
	}
	return http.NewResponseController(w.rw).Flush()
}

// Hijack hands the connection to the handler; nothing more is written.
func (w *responseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(w.rw).Hijack()
	if err != nil {
		return nil, nil, err
	}
	w.abort()
	return conn, brw, nil
}

// Unwrap lets http.ResponseController reach the underlying writer for
// deadlines and full duplex.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.rw }

// FileDated is told by a file server (header.FileDated) that the response's
// Last-Modified is its file's date, which gzip_proxied no_last_modified does
// not count, as in NGINX (proxiedAllowed).
func (w *responseWriter) FileDated() { w.fileDated = true }

// start settles what the status and headers alone decide, once they are
// final. It runs at the first Write, Flush or the handler's return.
func (w *responseWriter) start() {
	w.begun = true
	if w.status == 0 {
		w.status = http.StatusOK
	}
	h := w.rw.Header()
	w.declared = declaredLength(h)
	switch {
	case len(h["Content-Encoding"]) > 0 && h["Content-Encoding"][0] != "",
		header.HasToken(h["Cache-Control"], "no-transform"):
		// Never compressed here, whatever the request: no Vary of ours
		// (the gunzip filter inside varies a gzip body itself).
		w.passThrough(false)
	case !compressibleStatus(w.status):
		// Its 200 varies if a coding takes its type and length: a
		// 206's Content-Range says that length, a 304 does not, so any
		// length counts there.
		w.passThrough(w.cfg.varies(standsFor200(w.status, h)) &&
			w.cfg.anyTakes(lowerMediaType(h.Get("Content-Type")), completeLength(w.status, h)))
	default:
		// The media type is read here, once, where the header is final:
		// decide comes at the body's first bytes or the handler's
		// return, and only sniffType changes the type in between.
		ct, typed := h["Content-Type"]
		w.needSniff = !typed && bodyAllowed(w.status)
		if len(ct) > 0 {
			w.mediaType = lowerMediaType(ct[0])
		}
	}
}

// standsFor200 reports a 304 or a 206 whose headers tell what its 200
// would be. Either answers for the 200 of the same request and carries
// the Vary that 200 would carry (RFC 9110 sections 15.4.5 and 15.3.7),
// which this filter adds when that 200 would be compressible. A 304
// without a Content-Type, an origin's usually, says nothing of its 200,
// which may be one this filter would not touch: it is left as it came (a
// FileServer adds the Vary of its own 304s: static.Options.VaryEncoding).
func standsFor200(status int, h http.Header) bool {
	if status != http.StatusNotModified && status != http.StatusPartialContent {
		return false
	}
	// A nil entry is only there to keep net/http from sniffing.
	return len(h["Content-Type"]) > 0 && h["Content-Type"][0] != ""
}

// completeLength returns the complete length that a 206's Content-Range
// states ("bytes 0-1/4" gives 4), or -1 for a 304, or when there is none,
// it is "*" or it is not plain digits within int64: an upstream's value,
// which reads as unknown (any length varies) unless it is well formed.
func completeLength(status int, h http.Header) int64 {
	v := h["Content-Range"]
	if status != http.StatusPartialContent || len(v) == 0 || !strings.HasPrefix(v[0], "bytes ") {
		return -1
	}
	i := strings.LastIndexByte(v[0], '/')
	if i < 0 {
		return -1
	}
	// ParseUint takes no sign; bitSize 63 keeps the value an int64.
	n, err := strconv.ParseUint(v[0][i+1:], 10, 63)
	if err != nil {
		return -1
	}
	return int64(n)
}

// bodyAllowed reports statuses that may carry a body.
func bodyAllowed(code int) bool {
	return code >= 200 && code != http.StatusNoContent && code != http.StatusNotModified
}

// passThrough sends the headers and lets the body through unchanged.
func (w *responseWriter) passThrough(vary bool) {
	if vary {
		w.cfg.addVary(w.rw.Header())
	}
	w.state = stateIdentity
	w.sendHeader(-1)
}

// body takes plain body bytes.
func (w *responseWriter) body(p []byte) (int, error) {
	switch w.state {
	case statePending:
		if len(p) == 0 {
			// Nothing is sent yet, so the handler may still change its
			// header: start reads it again at the body's first byte
			// (or a Flush, or the handler's return), where the media
			// type it keeps is the one sent. Held sniff bytes have
			// already fixed the type.
			if len(w.sniff) == 0 {
				w.begun = false
			}
			return 0, nil
		}
		if w.needSniff && len(w.sniff)+len(p) < sniffLen {
			w.sniff = append(w.sniff, p...)
			return len(p), nil
		}
		if w.needSniff {
			w.sniffType(p)
		}
		if err := w.decideNow(false); err != nil {
			return 0, err
		}
		return w.body(p)
	case stateIdentity:
		return w.rw.Write(p)
	case stateCompress:
		return w.encode(p)
	case stateHeadOnly, stateCached:
		return len(p), nil
	}
	return 0, errDone
}

// decideNow decides the coding with what is known now and passes on any
// body held back for sniffing. empty says the handler has returned without
// writing a byte.
func (w *responseWriter) decideNow(empty bool) error {
	if w.needSniff {
		w.sniffType(nil)
	}
	w.decide(empty)
	held := w.sniff
	w.sniff = nil
	if len(held) == 0 {
		return nil
	}
	_, err := w.body(held)
	return err
}

// sniffType sets the Content-Type net/http would have guessed from the
// first 512 bytes: held-back bytes and the start of more. Guessing from
// compressed bytes would be wrong, so it has to happen here.
func (w *responseWriter) sniffType(more []byte) {
	w.needSniff = false
	data := w.sniff
	if k := min(len(more), sniffLen-len(data)); k > 0 {
		data = append(data[:len(data):len(data)], more[:k]...)
	}
	if len(data) > 0 {
		ct := http.DetectContentType(data)
		w.rw.Header().Set("Content-Type", ct)
		w.mediaType = lowerMediaType(ct)
	}
}

// sendHeader sends the status and headers once, with a Content-Length when
// length is known. A response with its coding's headers set
// (setCodingHeaders) loses the handler's Content-Length when length is
// not known.
func (w *responseWriter) sendHeader(length int64) {
	if w.headerSent {
		return
	}
	w.headerSent = true
	switch {
	case length >= 0:
		var cl []string
		if v := w.values; v != nil {
			cl = v.v[2:3:3]
			cl[0] = v.lengthText(length)
		} else {
			cl = []string{strconv.FormatInt(length, 10)}
		}
		w.rw.Header()["Content-Length"] = cl
	case w.values != nil:
		delete(w.rw.Header(), "Content-Length")
	}
	w.rw.WriteHeader(w.status)
}

// finish completes the response after the handler has returned. It
// returns the encoder's failure, which leaves the response without its
// body or with only part of it.
func (w *responseWriter) finish() error {
	if w.state == stateDone {
		return nil
	}
	if !w.begun {
		w.start()
	}
	if w.state == statePending {
		empty := len(w.sniff) == 0
		_ = w.decideNow(empty) // a failed write is the client's loss; nothing is left to tell
	}
	switch w.state {
	case stateCompress:
		return w.closeEncoder()
	case stateHeadOnly:
		w.sendHeader(-1)
	}
	return nil
}

// abort stops the response after a panic in the handler or a hijack:
// encoders are dropped rather than pooled, since their state is unknown.
func (w *responseWriter) abort() {
	w.state = stateDone
	w.dropEncoder()
}
