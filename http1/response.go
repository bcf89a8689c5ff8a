package http1

import (
	"bufio"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// outSize is the output buffer: a body up to about this size leaves with
// its header in one writev; a larger write goes out directly.
const outSize = 16 << 10

var outPool = sync.Pool{New: func() any { b := make([]byte, 0, outSize); return &b }}

var errAfterReturn = errors.New("http: write after the handler returned")

// statusClientClosed is NGINX's 499, "client closed request": a status for
// the logs only. A handler that answers it (mosaic's proxy does when the
// client has gone) sends nothing: a client that only half-closed its side
// could still read, and must not get a status line that no HTTP defines.
const statusClientClosed = 499

var errClientClosed = errors.New("http1: the client closed the request (499): nothing is sent")

// response is the http.ResponseWriter of one request.
type response struct {
	c      *conn
	req    *http.Request
	body   *body // the request's, nil without one
	header http.Header
	status int
	cl     int64 // the Content-Length of the body, -1 until known
	// written counts the body bytes the handler wrote (also for HEAD,
	// whose body is dropped).
	written int64
	out     *[]byte // buffered body bytes, from outPool
	// sendTimeout bounds each write (see armWrite), unless the handler
	// set a write deadline itself (ownDeadline).
	sendTimeout time.Duration
	now         time.Time // ResponseTime's reading; zero until taken

	// reqHeadLen is the size of the request line and header as received.
	reqHeadLen int64
	// start is when the request's first byte came (RequestStart).
	start time.Time
	// headLen is the size of the status line and header once sent;
	// framed counts the bytes of chunked framing sent.
	headLen int64
	framed  int64

	// reason is what follows the code in the status line when the
	// status is reasonCode (SetReason); reasonCode 0 for NGINX's phrase.
	reason     string
	reasonCode int

	wroteHeader bool // the final status is set
	sentHeader  bool // the header has gone to the connection
	chunked     bool
	bodyless    bool // HEAD, 1xx, 204, 304: no body goes out
	closeAfter  bool // close the connection after this response
	noChunking  bool // SetChunking(false): a body of unknown length ends with the connection
	unknownLen  bool // UnknownLength: no length counted when the handler returns
	// expectTrailers: ExpectTrailers was called; trailers are the
	// fields AddTrailer gave, sent after the last chunk in that order
	// (behind a pointer: few responses have any, and every request
	// allocates the response, which TestExchangeSize bounds).
	expectTrailers bool
	trailers       *[]header.Field
	hijacked       bool
	done           bool // the handler returned
	// ownDeadline: the handler set a write deadline (see sendTimeout).
	ownDeadline bool
	// pipelined: the request had begun to arrive before the previous
	// response ended.
	pipelined bool
	// headKeys is how many keys the header map had when the head was
	// collected, plus one, when respMem.headNames holds them all and
	// none is Trailer or a "Trailer:" name; 0 otherwise (trailerFree).
	headKeys uint8
	// (The bools are together: the exchange that holds the response is
	// allocated per request, and TestExchangeSize bounds it.)
	err error
}

func (w *response) Header() http.Header { return w.header }

// RequestLines returns the request's header lines after its request
// line, as the client sent them (each ending with CRLF or LF, without
// the empty line that ends them): the order and case of the names that
// the map lost, which header.Lines walks (vars.WireSizer). Asked for
// once, before the handler has returned, as the server does when it
// takes the request.
func (w *response) RequestLines() string { return w.c.fields }

// RequestLine returns the request line as the client sent it where its
// parts, joined by a space each, do not give it back (several spaces
// between them), else "" (vars.WireSizer). Asked for as RequestLines is.
func (w *response) RequestLine() string { return w.c.line }

// SetReason makes rest what follows the code in the status line should
// the response's status be code, in place of NGINX's phrase: NGINX
// passes on the status line of a proxied response as the upstream wrote
// it, " Fine" after "200", or nothing (a FastCGI "Status: 302" goes out
// as "HTTP/1.1 302"). A rest with a byte a status line may not hold (RFC
// 9112, section 4: tab, space, visible characters, obs-text) is not used.
func (w *response) SetReason(code int, rest string) {
	for i := 0; i < len(rest); i++ {
		if b := rest[i]; b < ' ' && b != '\t' || b == 0x7f {
			return
		}
	}
	w.reason, w.reasonCode = rest, code
}

// SpellFields makes each field of the header whose key differs in case
// alone from one of names go out under that name, as NGINX relays an
// upstream's field under the name the upstream wrote ("X_A", which the
// map holds as "X_a"); a key that several names spell sends its values
// under them in turn ("X-Dup: 1", "x-dup: 2"), the last for the values
// past them (header.Speller). It must come before the header is sent.
func (w *response) SpellFields(names []string) { w.c.mem.spell = names }

// SetChunking says whether a body of unknown length goes out chunked or
// ends with the connection (NGINX's chunked_transfer_encoding). It must
// come before the header is sent; the last call decides, as each location
// a request enters sets it again.
func (w *response) SetChunking(on bool) { w.noChunking = !on }

// UnknownLength says that a filter took the body's length away, as
// NGINX's filters set its content_length_n to -1: the body is then
// framed as one of unknown length (chunked on HTTP/1.1) even when it ends
// in the output buffer before the header has gone, where a response that
// never had a length gets the length of what was buffered. NGINX's
// chunked filter decides by the header alone; a HEAD answer gets no
// length either. It must come before the header is sent.
func (w *response) UnknownLength() { w.unknownLen = true }

// ExpectTrailers says that the response ends with trailer fields
// (AddTrailer), as NGINX's expect_trailers (add_trailer): on HTTP/1.1
// with chunking on, the body goes out chunked even when its length is
// known, without Content-Length and without a Trailer field announcing
// them; elsewhere nothing changes and the trailers are not sent. It must
// come before the status is set.
func (w *response) ExpectTrailers() { w.expectTrailers = true }

// AddTrailer adds a field to send after the last chunk of a response
// that ExpectTrailers made chunked, in the order added; a name that is
// not a token is dropped, and a CR or LF in the value becomes a space.
func (w *response) AddTrailer(name, value string) {
	if w.trailers == nil {
		w.trailers = new([]header.Field)
	}
	*w.trailers = append(*w.trailers, header.Field{Name: name, Values: []string{value}})
}

// trailered reports whether the body goes out chunked for trailers.
func (w *response) trailered() bool {
	return w.expectTrailers && !w.bodyless && w.req.ProtoMinor > 0 && !w.noChunking
}

func (w *response) WriteHeader(code int) {
	if w.hijacked || w.done {
		return
	}
	if code < 100 || code > 999 {
		panic("http1: invalid WriteHeader code " + strconv.Itoa(code))
	}
	if w.wroteHeader {
		return
	}
	if code < 200 && code != http.StatusSwitchingProtocols {
		w.sendInformational(code)
		return
	}
	w.wroteHeader, w.status = true, code
	if code == statusClientClosed {
		w.bodyless, w.closeAfter, w.err = true, true, errClientClosed
		return
	}
	w.bodyless = w.req.Method == http.MethodHead || code < 200 ||
		code == http.StatusNoContent || code == http.StatusNotModified
	f := w.collectFields()
	if v := f.contentLength; len(v) > 0 && !w.trailered() {
		if n, ok := parseLength(v[0]); ok {
			w.cl = n
		}
	}
	if header.HasToken(f.connection, "close") || code == http.StatusSwitchingProtocols {
		w.closeAfter = true
	}
	w.headerFields(f)
}

// fieldScan is what one pass over the handler's header found besides
// the fields that go out as they are (respMem.fields): a lookup in the
// map for each of these cost more than the pass.
type fieldScan struct {
	contentLength, connection, trailer []string
	date                               bool
}

// collectFields gathers into c.mem.fields the header's fields that may go
// out as the handler set them, and returns the others it met.
func (w *response) collectFields() (f fieldScan) {
	mem := w.c.mem
	fields := mem.fields[:0]
	named, trailered := 0, false
	for k, vv := range w.header {
		if named < len(mem.headNames) {
			mem.headNames[named] = k
		}
		named++
		switch k {
		case "Content-Length":
			f.contentLength = vv
			continue
		case "Connection":
			f.connection = vv
			continue
		case "Transfer-Encoding":
			continue
		case "Date":
			f.date = true
		case "Trailer":
			f.trailer = vv
			trailered = true
		}
		// A field without values writes no line (a filter's way to take
		// one out, as compression takes Accept-Ranges): leaving it out
		// here spares the sort.
		if strings.HasPrefix(k, http.TrailerPrefix) {
			trailered = true
			continue
		}
		if len(vv) == 0 {
			continue
		}
		fields = append(fields, header.Field{Name: k, Values: vv})
	}
	mem.fields = fields
	if named <= len(mem.headNames) && !trailered {
		// (Names past these, an earlier response's, stay until written
		// over, as the map's keys stay until it is cleared: a clear here
		// cost 60 instructions a request.)
		w.headKeys = uint8(named + 1)
	}
	return f
}

// trailerFree reports whether the header map still holds exactly the keys
// collectFields noted, none of them a trailer's: then it has no trailer
// field, and lastChunk need not walk it. The same number of keys, each
// still there, is the same set: a handler that took one out and added a
// "Trailer:" one is seen. A few lookups cost less than a walk, whose
// start alone (the iterator and its two random numbers) is about 265
// instructions (fastcgi README, twenty-first pass).
func (w *response) trailerFree() bool {
	n := int(w.headKeys) - 1
	if n < 0 || len(w.header) != n {
		return false
	}
	for _, k := range w.c.mem.headNames[:n] {
		if _, ok := w.header[k]; !ok {
			return false
		}
	}
	return true
}

func (w *response) Write(p []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	switch {
	case w.hijacked:
		return 0, http.ErrHijacked
	case w.done:
		return 0, errAfterReturn
	case w.err != nil:
		return 0, w.err
	case len(p) == 0:
		return 0, nil
	case w.bodyless:
		if w.req.Method == http.MethodHead && w.status >= 200 && w.status != 204 && w.status != 304 {
			w.written += int64(len(p))
			return len(p), nil
		}
		return 0, http.ErrBodyNotAllowed
	case w.cl >= 0 && w.written+int64(len(p)) > w.cl:
		return 0, http.ErrContentLength
	}
	w.written += int64(len(p))
	out := w.buffer()
	if len(*out)+len(p) <= cap(*out) {
		*out = append(*out, p...)
		return len(p), nil
	}
	if err := w.send(p, false); err != nil {
		return 0, err
	}
	return len(p), nil
}

// buffer returns the output buffer, taking one from the pool.
func (w *response) buffer() *[]byte {
	if w.out == nil {
		w.out = outPool.Get().(*[]byte)
	}
	return w.out
}

func (w *response) release() {
	if w.out != nil {
		*w.out = (*w.out)[:0]
		outPool.Put(w.out)
		w.out = nil
	}
}

// send writes, in one writev, the header if it has not gone yet, the
// buffered body and p. final says the handler has returned, so a body
// of unknown length that has not started has the length of what is
// buffered; otherwise it goes out chunked (HTTP/1.1) or up to the
// connection's close (HTTP/1.0).
func (w *response) send(p []byte, final bool) error {
	return w.sendv(final, p)
}

// sendv is send with the body's bytes in several slices, all in the same
// writev (and the same chunk).
func (w *response) sendv(final bool, ps ...[]byte) error {
	c := w.c
	c.bufs = c.iov[:0]
	var buffered []byte
	if w.out != nil {
		buffered = *w.out
	}
	size := len(buffered)
	for _, p := range ps {
		size += len(p)
	}
	first := !w.sentHeader
	if first {
		// From deciding whether the connection stays open (which
		// depends on a 100 Continue having gone) to the header's write.
		c.wmu.Lock()
		w.frame(final, int64(size))
		c.bufs = append(c.bufs, w.framing())
		w.headLen = int64(len(c.mem.hdr))
	}
	if w.chunked && size > 0 {
		line := append(strconv.AppendInt(c.num[:0], int64(size), 16), '\r', '\n')
		c.bufs = append(c.bufs, line)
		w.framed += int64(len(line) + len(crlf))
	}
	if len(buffered) > 0 {
		c.bufs = append(c.bufs, buffered)
	}
	for _, p := range ps {
		if len(p) > 0 {
			c.bufs = append(c.bufs, p)
		}
	}
	if w.chunked && size > 0 {
		c.bufs = append(c.bufs, crlf)
	}
	if final && w.chunked {
		last := w.lastChunk()
		c.bufs = append(c.bufs, last)
		w.framed += int64(len(last))
	}
	if first {
		w.sentHeader = true
	}
	w.armWrite(time.Now())
	err := c.writeBufs()
	if first {
		c.wmu.Unlock()
	}
	if w.out != nil {
		*w.out = (*w.out)[:0]
	}
	if err != nil {
		w.err = err
		w.closeAfter = true
	}
	return err
}

var crlf = []byte("\r\n")

// frame settles how the body is delimited, when the header is about to
// go with size bytes of body.
func (w *response) frame(final bool, size int64) {
	w.cl, w.chunked, w.closeAfter = w.framingFor(final, size)
}

// framingFor is how the body would be delimited if the header went now
// with size bytes of body; it changes nothing.
func (w *response) framingFor(final bool, size int64) (cl int64, chunked, closeAfter bool) {
	cl, chunked, closeAfter = w.cl, w.chunked, w.closeAfter
	if w.bodyless {
		if cl < 0 && w.written > 0 && w.req.Method == http.MethodHead && final && !w.unknownLen {
			cl = w.written // what a GET would have carried
		}
		return
	}
	if cl >= 0 {
		return
	}
	switch {
	case final && !w.unknownLen && len(w.header["Trailer"]) == 0 && !w.trailered():
		cl = size
	case w.req.ProtoMinor > 0 && !w.noChunking:
		chunked = true
	default:
		closeAfter = true // HTTP/1.0: the body ends with the connection
	}
	return
}

// ResponseTime is the response's one reading of the clock, taken the
// first time it is asked for: the Date line goes out with it, and the
// filters that count from now (expires, gzip_proxied expired) take it
// through header.ResponseTime, as NGINX takes both from its cached time.
// Two readings made "expires 0" a second older than Date when a second
// ended between them.
func (w *response) ResponseTime() time.Time {
	if w.now.IsZero() {
		w.now = time.Now()
	}
	return w.now
}

// headerFields writes the status line and the header fields into c.mem.hdr
// when the status is set, so that later changes to the header map do not
// show (as with net/http), except trailers. Names go out sorted (as
// net/http sends them); values with a CR or LF have it replaced by a
// space, so that no value can start a line of its own. The fields that
// delimit the body and the connection follow when the header is sent
// (framing).
func (w *response) headerFields(f fieldScan) {
	c := w.c
	now := w.ResponseTime()
	var h []byte
	if w.reasonCode != 0 && w.reasonCode == w.status && w.status >= 100 && w.status <= 999 {
		h = append(c.mem.hdr[:0], "HTTP/1.1 "...)
		h = strconv.AppendInt(h, int64(w.status), 10)
		h = append(append(h, w.reason...), "\r\n"...)
	} else {
		h = append(c.mem.hdr[:0], statusLine(w.status)...)
	}
	if !f.date {
		h = appendDate(h, now)
	}
	fields := c.mem.fields
	if w.closeAfter || len(f.trailer) > 0 {
		kept := fields[:0]
		for _, fl := range fields {
			// Keep-Alive describes a connection that stays open.
			if fl.Name == "Keep-Alive" && w.closeAfter || header.HasToken(f.trailer, fl.Name) {
				continue
			}
			kept = append(kept, fl)
		}
		clear(fields[len(kept):])
		fields = kept
	}
	header.SortFields(fields)
	spell := c.mem.spell
	for _, fl := range fields {
		if !header.IsToken(fl.Name) {
			continue
		}
		// Each value takes the next of the list's spellings of the key,
		// the line's own when the upstream wrote the name in several
		// ways; past them the last one found.
		name, next := fl.Name, 0
		for _, v := range fl.Values {
			for ; next < len(spell); next++ {
				if s := spell[next]; len(s) == len(name) && strings.EqualFold(s, name) {
					name = s
					next++
					break
				}
			}
			h = appendField(h, name, v)
		}
	}
	clear(fields) // the values are the handler's: not kept past the request
	c.mem.fields = fields[:0]
	if w.status == http.StatusSwitchingProtocols {
		for _, v := range f.connection {
			h = appendField(h, "Connection", v)
		}
	}
	c.mem.hdr = h
}

// framing completes the header in c.mem.hdr with the fields that delimit the
// body and say whether the connection stays open, and the empty line.
func (w *response) framing() []byte {
	w.closeAfter = w.closing(w.closeAfter)
	w.c.mem.hdr = w.appendFraming(w.c.mem.hdr, w.cl, w.chunked, w.closeAfter)
	return w.c.mem.hdr
}

// closing is whether the connection closes after the response, given
// what the response itself decided: a stopping server or a request body
// left unread close it too.
func (w *response) closing(closeAfter bool) bool {
	return closeAfter || w.status != http.StatusSwitchingProtocols &&
		(w.c.srv.closing.Load() || w.body != nil && !w.body.keepable())
}

// appendFraming appends to h the fields for a body delimited as given and
// the empty line that ends the header.
func (w *response) appendFraming(h []byte, cl int64, chunked, closeAfter bool) []byte {
	if cl >= 0 && !(w.status < 200 || w.status == http.StatusNoContent) {
		h = append(h, "Content-Length: "...)
		h = strconv.AppendInt(h, cl, 10)
		h = append(h, "\r\n"...)
	}
	if chunked {
		h = append(h, "Transfer-Encoding: chunked\r\n"...)
	}
	if w.status != http.StatusSwitchingProtocols {
		if closeAfter {
			h = append(h, "Connection: close\r\n"...)
		} else if w.req.ProtoMinor == 0 {
			h = append(h, "Connection: keep-alive\r\n"...)
		}
	}
	return append(h, "\r\n"...)
}

// HeaderSize reports the size of the response's status line and header:
// as sent, or, before they go, as they will go when the handler returns
// with nothing more written (the access log asks from inside the
// handler, while a small response still waits in the buffer). Before the
// status is set there is no header yet: 0.
func (w *response) HeaderSize() int64 {
	switch {
	case w.sentHeader:
		return w.headLen
	case !w.wroteHeader || w.hijacked:
		return 0
	}
	cl, chunked, closeAfter := w.framingNow()
	var scratch [96]byte
	return int64(len(w.c.mem.hdr) + len(w.appendFraming(scratch[:0], cl, chunked, closeAfter)))
}

// BodyOverhead reports the bytes of chunked framing around the body: sent,
// and with complete still to go if the handler returns now
// ($body_bytes_sent counts them, as NGINX counts what it sends after the
// header). A response cut short (a handler that aborts, a client gone)
// sends nothing more: complete is false for it.
func (w *response) BodyOverhead(complete bool) int64 {
	n := w.framed
	if w.done || w.hijacked || !w.wroteHeader || !complete {
		return n
	}
	if _, chunked, _ := w.framingNow(); !chunked {
		return n
	}
	if w.out != nil && len(*w.out) > 0 {
		n += int64(len(strconv.FormatInt(int64(len(*w.out)), 16)) + 2 + len(crlf))
	}
	return n + int64(len(w.lastChunk()))
}

// Pipelined reports whether the request came pipelined: it had begun to
// arrive before the previous response on the connection ended.
func (w *response) Pipelined() bool { return w.pipelined }

// RequestStart is when the request's first byte came, where NGINX begins
// a request: its $request_time counts the reading of the header too.
func (w *response) RequestStart() time.Time { return w.start }

// Framing reports whether the body goes chunked and whether the
// connection closes after the response, as HeaderSize tells the size.
// Before the header goes it reports no chunks: NGINX's chunked filter
// runs after the header filters that read $sent_http_transfer_encoding
// (add_header), which see none.
func (w *response) Framing() (chunked, closing bool) {
	_, chunked, closing = w.framingNow()
	return chunked && w.sentHeader, closing
}

// framingNow is the framing the header went with, or will go with if the
// handler returns now.
func (w *response) framingNow() (cl int64, chunked, closeAfter bool) {
	if w.sentHeader {
		return w.cl, w.chunked, w.closeAfter
	}
	size := 0
	if w.out != nil {
		size = len(*w.out)
	}
	cl, chunked, closeAfter = w.framingFor(true, int64(size))
	return cl, chunked, w.closing(closeAfter)
}

// BodyArrived reports whether the request's chunked body came whole
// with its head, unread so far. NGINX reads what is there before it
// proxies a body unbuffered (ngx_http_read_client_request_body), and a
// chunked body it finds complete goes upstream with its length, not
// chunked: a proxy asks this to do the same.
func (w *response) BodyArrived() bool { return w.body != nil && w.body.arrived() }

// RequestSize reports the bytes of the request received so far: the
// request line and header, and the body bytes the handler read (decoded,
// for a chunked body).
func (w *response) RequestSize() int64 {
	n := w.reqHeadLen
	if w.body != nil {
		n += w.body.bytesRead()
	}
	return n
}

func appendField(h []byte, k, v string) []byte {
	h = append(h, k...)
	h = append(h, ": "...)
	start := len(h)
	h = append(h, v...)
	if mayBreakLine(v) {
		for i := start; i < len(h); i++ {
			if h[i] == '\r' || h[i] == '\n' {
				h[i] = ' '
			}
		}
	}
	return append(h, "\r\n"...)
}

// mayBreakLine reports whether s may hold a CR or LF: whether a byte is
// below 0x0e, the one after CR, tested eight at a time (a borrow starts
// only at such a byte; ^x drops those from 0x80), the last eight bytes
// in one word that may overlap the one before. A value passing it, one
// with a tab or another control byte, is then looked at byte by byte.
// Two vector searches, one for each byte, cost every value about 50
// instructions, most of them the calls' setup for values this short.
func mayBreakLine(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	low := func(x uint64) bool { return (x-0x0e*ones)&^x&highs != 0 }
	n := len(s)
	if n < 8 {
		for i := 0; i < n; i++ {
			if s[i] < 0x0e {
				return true
			}
		}
		return false
	}
	for i := 0; i < n-8; i += 8 {
		if low(load8(s[i:])) {
			return true
		}
	}
	return low(load8(s[n-8:]))
}

// bareLastChunk ends a chunked body that has no trailer fields, as most
// do (every answer of a FastCGI application without a length): shared, so
// that such a response allocates nothing for its end.
var bareLastChunk = []byte("0\r\n\r\n")

// lastChunk is the end of a chunked body, with the trailer fields. Its
// result may be bareLastChunk: callers only read it.
func (w *response) lastChunk() []byte {
	var t []byte
	// A map whose keys are still those of the head, none a trailer's,
	// holds no trailer field: it is not walked (trailerFree).
	if !w.trailerFree() {
		t = w.appendMapTrailers(t)
	}
	if w.trailers != nil {
		for _, f := range *w.trailers {
			if header.IsToken(f.Name) {
				t = appendTrailer(t, f.Name, f.Values[0])
			}
		}
	}
	if t == nil {
		return bareLastChunk
	}
	return append(t, "\r\n"...)
}

// appendMapTrailers appends to t the trailer fields the header map
// holds: the "Trailer:" ones and those its Trailer field declares.
func (w *response) appendMapTrailers(t []byte) []byte {
	// Most answers have no Trailer field, and a lookup of the absent name
	// hashes it (about 146 instructions once the map holds a line): the
	// walk sees the name for a comparison of lengths, and only an answer
	// that has it is walked again for the names it declares. The map's
	// order is random, so the order of the two walks' lines is no change.
	declares := false
	for k, vs := range w.header {
		name, isTrailer := strings.CutPrefix(k, http.TrailerPrefix)
		if !isTrailer {
			declares = declares || k == "Trailer"
			continue
		}
		if !header.IsToken(name) {
			continue
		}
		for _, v := range vs {
			t = appendTrailer(t, name, v)
		}
	}
	if declares {
		declared := w.header["Trailer"]
		for k, vs := range w.header {
			if !strings.HasPrefix(k, http.TrailerPrefix) && header.HasToken(declared, k) && header.IsToken(k) {
				for _, v := range vs {
					t = appendTrailer(t, k, v)
				}
			}
		}
	}
	return t
}

// appendTrailer appends a trailer line to t, after the last chunk's
// size line when t is still empty.
func appendTrailer(t []byte, name, v string) []byte {
	if t == nil {
		t = append(t, "0\r\n"...)
	}
	return appendField(t, name, v)
}

// sendInformational writes a 1xx response with the current header, less
// the fields about a body or the connection. HTTP/1.0 has no interim
// responses: they are not sent to it.
func (w *response) sendInformational(code int) {
	if w.sentHeader || w.err != nil || w.req.ProtoMinor == 0 {
		return
	}
	h := append([]byte(nil), statusLine(code)...)
	for k, vs := range w.header {
		switch k {
		case "Content-Length", "Transfer-Encoding", "Connection", "Trailer":
			continue
		}
		if header.IsToken(k) {
			for _, v := range vs {
				h = appendField(h, k, v)
			}
		}
	}
	h = append(h, "\r\n"...)
	w.c.wmu.Lock()
	w.armWrite(time.Now())
	_, err := w.c.rwc.Write(h)
	w.c.wmu.Unlock()
	if err != nil {
		w.err = err
	}
}

// sendContinue answers "Expect: 100-continue" when the handler first
// reads the body, unless the final response has started: then the client
// is still owed it (body.expecting), and the response closes the
// connection. c.wmu orders this against the final header (see send).
func (w *response) sendContinue() {
	c := w.c
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if !w.sentHeader {
		w.armWrite(time.Now())
		_, _ = io.WriteString(c.rwc, "HTTP/1.1 100 Continue\r\n\r\n")
		w.body.expecting.Store(false)
	}
}

func (w *response) Flush() {
	_ = w.FlushError()
}

// FlushError sends the header and whatever body is buffered.
func (w *response) FlushError() error {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.hijacked || w.done || w.err != nil {
		return w.err
	}
	if w.sentHeader && (w.out == nil || len(*w.out) == 0) {
		return nil
	}
	return w.send(nil, false)
}

// EndResponse completes the response before the handler returns, which
// must write nothing more: the client has its answer whole (the last
// chunk of a chunked one) while the handler waits for work of its own
// (the server's AfterResponse). The connection goes on once it returns.
func (w *response) EndResponse() {
	if !w.hijacked {
		w.finish()
	}
}

// finish completes the response after the handler has returned; once
// done, it does nothing more.
func (w *response) finish() {
	if w.done {
		return
	}
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.err == nil && (!w.sentHeader || w.out != nil && len(*w.out) > 0 || w.chunked) {
		_ = w.send(nil, true)
	} else {
		// Nothing left to send: the keep-alive wait counts from now, not
		// from a write the handler made before it went on working (the
		// next request, already sent, met a deadline in the past).
		w.c.lastWrite = time.Time{}
	}
	if !w.bodyless && w.cl >= 0 && w.written < w.cl {
		// Fewer bytes than announced: only closing tells the client.
		w.closeAfter = true
	}
	w.done = true
	w.release()
}

// ReadFrom copies src to the body. A source that fits the output buffer
// is read into it and leaves with the header in one write; a longer one
// goes out with the kernel's sendfile or splice after the header, when
// the body's length is known.
func (w *response) ReadFrom(src io.Reader) (int64, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.hijacked || w.done || w.err != nil || w.bodyless {
		return io.CopyBuffer(writerOnly{w}, src, make([]byte, 512))
	}
	if bufs, ok := src.(*net.Buffers); ok {
		return w.writeBuffers(bufs)
	}
	out := w.buffer()
	if lr, ok := src.(*io.LimitedReader); ok && lr.N <= int64(cap(*out)-len(*out)) {
		return w.readInto(src, lr.N)
	}
	if w.cl < 0 {
		return w.readInto(src, -1)
	}
	rf, ok := w.c.rwc.(io.ReaderFrom)
	if !ok {
		return w.readInto(src, -1)
	}
	if !w.sentHeader || len(*out) > 0 {
		if err := w.send(nil, false); err != nil {
			return 0, err
		}
	}
	// The file goes to sendfile in pieces, the send timeout armed afresh
	// before each: a client that stops reading is cut off once a piece
	// has waited the timeout, where NGINX's timer, re-armed between its
	// writes, cuts off one that lets the socket stay full that long. Given
	// whole, with its deadline cleared, the file held a client that never
	// read, and its goroutine and descriptors, for good. (A source already
	// limited is unwrapped: sendfile takes a file in one LimitedReader, not
	// in two.)
	file, limit := src, int64(math.MaxInt64)
	outer, _ := src.(*io.LimitedReader)
	if outer != nil {
		file, limit = outer.R, outer.N
	}
	if _, ok := file.(io.ReaderAt); !ok {
		// Not a file (an upstream's body, a socket): a source that may be
		// slow goes through the buffer, the send timeout armed at each
		// write, not while the source is read, as NGINX's runs between its
		// writes; under one deadline a piece, that slowness would count.
		return w.readInto(src, -1)
	}
	pieceMax := int64(sendfilePiece)
	if w.ownDeadline || w.sendTimeout <= 0 {
		pieceMax = math.MaxInt64 // no timeout of ours to re-arm
	}
	var n int64
	var err error
	for left := w.cl - w.written; left > 0 && limit > 0; {
		piece := min(left, limit, pieceMax)
		w.armWrite(time.Now())
		var k int64
		k, err = rf.ReadFrom(&io.LimitedReader{R: file, N: piece})
		n, w.written, left, limit = n+k, w.written+k, left-k, limit-k
		if outer != nil {
			outer.N -= k
		}
		if err != nil || k < piece {
			break // the source ended, or the write failed
		}
	}
	w.c.lastWrite = time.Time{} // it may have taken long: no time to reuse
	if err != nil {
		w.err = err
		w.closeAfter = true
		return n, err
	}
	if w.written == w.cl && limit > 0 && hasMore(src) {
		return n, http.ErrContentLength
	}
	return n, nil
}

// sendfilePiece is how much of a file goes to sendfile under one send
// timeout (ReadFrom): a client must take that much within the timeout
// (256 KiB in 60 s is 4.3 KB/s), about what NGINX asks of one whose socket
// buffer it keeps full; a few more system calls per megabyte.
const sendfilePiece = 256 << 10

// hasMore reports whether src has bytes beyond those copied, which a
// body of the declared length has no room for.
func hasMore(src io.Reader) bool {
	var one [1]byte
	n, _ := src.Read(one[:])
	return n > 0
}

// writeBuffers sends a body held in several slices, such as a cached
// response's chunks, with what is buffered and the header if it has not
// gone, in one writev and without copying them. ReadFrom takes this path
// for a *net.Buffers, which it consumes.
func (w *response) writeBuffers(bufs *net.Buffers) (int64, error) {
	var n int64
	for _, b := range *bufs {
		n += int64(len(b))
	}
	if w.cl >= 0 && w.written+n > w.cl {
		return 0, http.ErrContentLength
	}
	if n == 0 {
		return 0, nil
	}
	w.written += n
	out := w.buffer()
	if int64(len(*out))+n <= int64(cap(*out)) {
		for _, b := range *bufs {
			*out = append(*out, b...)
		}
		*bufs = (*bufs)[len(*bufs):]
		return n, nil
	}
	err := w.sendv(false, *bufs...)
	*bufs = (*bufs)[len(*bufs):]
	if err != nil {
		return 0, err
	}
	return n, nil
}

// readInto copies src through the output buffer, up to max bytes (no
// limit when negative) and the declared Content-Length.
func (w *response) readInto(src io.Reader, max int64) (int64, error) {
	var total int64
	for max != 0 {
		out := *w.out
		room := cap(out) - len(out)
		if room == 0 {
			if err := w.send(nil, false); err != nil {
				return total, err
			}
			continue
		}
		if max > 0 && int64(room) > max {
			room = int(max)
		}
		if w.cl >= 0 && int64(room) > w.cl-w.written {
			room = int(w.cl - w.written)
			if room == 0 {
				if hasMore(src) {
					return total, http.ErrContentLength
				}
				return total, nil
			}
		}
		n, err := src.Read(out[len(out) : len(out)+room])
		*w.out = out[:len(out)+n]
		w.written += int64(n)
		total += int64(n)
		if max > 0 {
			max -= int64(n)
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// writerOnly hides ReadFrom, so that io.Copy writes through Write.
type writerOnly struct{ io.Writer }

// Hijack hands the connection to the handler: bytes the client sent
// after its request wait in the returned reader.
func (w *response) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if w.hijacked {
		return nil, nil, http.ErrHijacked
	}
	if w.done {
		return nil, nil, errAfterReturn
	}
	c := w.c
	c.stopWatch()
	if c.has.Load() {
		// The watch's byte goes into the reader's buffer, where a hijacker
		// looks (Buffered) before reading the connection itself, as
		// net/http puts it there.
		_, _ = c.br.Peek(c.br.Buffered() + 1)
	}
	if w.wroteHeader && (!w.sentHeader || w.out != nil && len(*w.out) > 0) {
		if err := w.send(nil, false); err != nil {
			return nil, nil, err
		}
	}
	w.hijacked, c.hijacked = true, true
	handOver(c.rwc, true)
	w.release()
	c.srv.removeConn(c)
	_ = c.rwc.SetDeadline(time.Time{})
	c.rdTouched.Store(true)
	c.wd.valid = false
	return c.rwc, bufio.NewReadWriter(c.br, bufio.NewWriter(c.rwc)), nil
}

// SetReadDeadline and SetWriteDeadline serve http.ResponseController. A
// write deadline set here replaces the send timeout for the rest of the
// response.
func (w *response) SetReadDeadline(t time.Time) error {
	w.c.rdTouched.Store(true)
	return w.c.rwc.SetReadDeadline(t)
}

// BodyTimedOut says that a read of the request body ran past the
// deadline its reader set for it (client_body_timeout), not one a
// handler set to cut the read short: the connection then closes without
// lingering, as NGINX closes one whose body read timed out.
func (w *response) BodyTimedOut() { w.c.bodyTimedOut.Store(true) }

func (w *response) SetWriteDeadline(t time.Time) error {
	w.ownDeadline, w.c.wd.valid = true, false
	return w.c.rwc.SetWriteDeadline(t)
}

// SetSendTimeout sets the time each write of the response may take,
// from the write on (NGINX's send_timeout); zero means no limit. It
// replaces the server's WriteTimeout for this response.
func (w *response) SetSendTimeout(d time.Duration) {
	w.sendTimeout, w.ownDeadline = d, false
}

// resetSetting is a location's reset_timedout_connection, or none.
type resetSetting uint8

const (
	resetDefault resetSetting = iota // the server's Limits.ResetTimedOut
	resetOn
	resetOff
)

// SetResetTimedOut sets reset_timedout_connection for this request, as
// its location says; it replaces the server's ResetTimedOut should the
// connection close because the client timed out in its body or in the
// sending of the response.
func (w *response) SetResetTimedOut(on bool) {
	w.c.locReset = resetOff
	if on {
		w.c.locReset = resetOn
	}
}

// SetLingering sets lingering_time (total) and lingering_timeout (each)
// for this request, as its location says: they replace the server's
// LingerTime and LingerTimeout for the discard of the body's rest after
// the response and for the lingering close after it.
func (w *response) SetLingering(total, each time.Duration) {
	w.c.locLinger, w.c.locLingerEach = total, each
}

// EnableFullDuplex serves http.ResponseController: the body can always
// be read while the response is written.
func (w *response) EnableFullDuplex() error { return nil }
