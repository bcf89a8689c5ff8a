package server

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/vars"
)

// recorder is the outermost response writer: it records the status and
// the body bytes for $status and $body_bytes_sent, and passes every
// optional interface through so that sendfile (io.ReaderFrom), flushing
// and hijacking keep working.
type recorder struct {
	w  http.ResponseWriter
	st *vars.State
	ri *reqInfo // the request's record: the location in force at the header
	// deadlines is the connection's deadline control; with sendTimeout
	// set, each write must complete within it (NGINX's send_timeout, the
	// time between two successive writes to a client that stopped reading).
	deadlines   deadliner
	sendTimeout time.Duration
	armedAt     time.Time // when the write deadline was last moved
	// final says the final header went out. The State's status cannot
	// tell: filters (add_header) and error_page set it before the header
	// reaches the recorder, as NGINX sets $status before its filters run.
	final bool
	// ends are AtRequestEnd's functions, run by release.
	ends []func()
	// bodies are the request's deadline-armed bodies, let go by release.
	bodies []*deadlineBody
	// holds are AfterResponse's functions, run by settle once the
	// response has gone out whole (by release after a panic).
	holds []func()
	// special says the client's answer is the server's own page for an
	// error (Error), whose status stays the request's $status after a
	// post action, as NGINX's err_status does.
	special bool
	// now is the response's one reading of the clock, where the server's
	// writer keeps none (Go's HTTP/2): see ResponseTime.
	now time.Time
}

type deadliner interface {
	SetReadDeadline(time.Time) error
	SetWriteDeadline(time.Time) error
}

// deadlineBody arms the read deadline before each read of a request body.
// A handler may leave a reader of the body running past its own end (an
// HTTP/2 client of a gRPC upstream writes the request body from a
// goroutine of its own): once the request has ended (end), the deadline
// is not touched, since the writer it belongs to may be gone (Go's
// HTTP/2 server clears it when the handler returns).
type deadlineBody struct {
	io.ReadCloser
	timeout time.Duration
	read    atomic.Bool // a handler has read from it: an error page cannot have it whole
	mu      sync.Mutex
	d       deadliner // nil once the request has ended
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	b.read.Store(true)
	b.mu.Lock()
	var deadline time.Time
	if b.d != nil {
		deadline = time.Now().Add(b.timeout)
		_ = b.d.SetReadDeadline(deadline)
	}
	b.mu.Unlock()
	n, err := b.ReadCloser.Read(p)
	if err != nil && !deadline.IsZero() && errors.Is(err, os.ErrDeadlineExceeded) && !time.Now().Before(deadline) {
		// The deadline set here ran out, not an earlier one a handler set
		// to cut the read short: the writer closes without lingering.
		b.mu.Lock()
		if t, ok := b.d.(interface{ BodyTimedOut() }); ok {
			t.BodyTimedOut()
		}
		b.mu.Unlock()
	}
	return n, err
}

// end lets the writer go: the request is over.
func (b *deadlineBody) end() {
	b.mu.Lock()
	b.d = nil
	b.mu.Unlock()
}

var recorderPool = sync.Pool{New: func() any { return new(recorder) }}

func newRecorder(w http.ResponseWriter, st *vars.State) *recorder {
	rw := recorderPool.Get().(*recorder)
	rw.w, rw.st = w, st
	rw.deadlines, _ = w.(deadliner)
	rw.sendTimeout, rw.armedAt, rw.final, rw.special, rw.now = 0, time.Time{}, false, false, time.Time{}
	st.Header = w.Header()
	return rw
}

// settle sends the rest of a response that AfterResponse's functions
// wait behind, then runs them: the client has its answer whole while the
// request goes on, as NGINX's does until its background subrequests
// end. A server that cannot end a response before its handler returns
// (Go's HTTP/2) gets what is buffered flushed.
func (rw *recorder) settle() {
	if len(rw.holds) == 0 {
		return
	}
	if e, ok := rw.w.(interface{ EndResponse() }); ok {
		e.EndResponse()
	} else if f, ok := rw.w.(http.Flusher); ok {
		f.Flush()
	}
	rw.runHolds()
}

func (rw *recorder) runHolds() {
	// By index: a hold may add more (a post action that ends in a
	// location with mirror), which run in turn.
	for i := 0; i < len(rw.holds); i++ {
		rw.holds[i]()
	}
	clear(rw.holds)
	rw.holds = rw.holds[:0]
}

// release runs the functions of AtRequestEnd, then returns the recorder
// to its pool. A write deadline it armed itself (on net/http's
// connections) is lifted: the connection may serve more requests, and
// net/http writes the rest of its buffer after the handler. mosaic's own
// server bounds that write with send_timeout itself.
func (rw *recorder) release() {
	rw.runHolds()
	for _, f := range rw.ends {
		f()
	}
	clear(rw.ends)
	rw.ends = rw.ends[:0]
	for _, b := range rw.bodies {
		b.end()
	}
	clear(rw.bodies)
	rw.bodies = rw.bodies[:0]
	if rw.deadlines != nil && rw.sendTimeout > 0 {
		_ = rw.deadlines.SetWriteDeadline(time.Time{})
	}
	rw.w, rw.st, rw.ri, rw.deadlines = nil, nil, nil, nil
	recorderPool.Put(rw)
}

func (rw *recorder) Header() http.Header { return rw.w.Header() }

// ResponseTime is the response's one reading of the clock
// (header.ResponseTime), which Expires and gzip_proxied's "expired" count
// from: the server writer's, whose Date line takes it (mosaic's HTTP/1),
// or else one taken here when first asked for, which the Date field then
// takes too (putDate), as NGINX takes both from its cached time. Go's
// HTTP/2 server read the clock again for Date, a second later when a
// second ended between the two.
func (rw *recorder) ResponseTime() time.Time {
	if c, ok := header.Under[header.Clock](rw.w); ok {
		return c.ResponseTime()
	}
	if rw.now.IsZero() {
		rw.now = time.Now()
	}
	return rw.now
}

// putDate puts the response's reading of the clock in the header map as
// Date just before the server's writer takes the header, when the reading
// was made here and the map has no Date; it reports whether it did, and
// the caller removes the field once the header is taken: NGINX's
// $sent_http_date, read from the map, stays empty. A response that no one
// asked the time of leaves Date to the server, which reads the clock once.
func (rw *recorder) putDate() bool {
	if rw.final || rw.now.IsZero() {
		return false
	}
	h := rw.w.Header()
	if _, ok := h["Date"]; ok {
		return false
	}
	h["Date"] = []string{rw.now.UTC().Format(http.TimeFormat)}
	return true
}

// dropDate removes the Date that putDate put, once the header is taken.
func (rw *recorder) dropDate() {
	delete(rw.w.Header(), "Date")
}

// WriteHeader, Write, ReadFrom and Flush defer dropDate only when putDate
// put a Date: with mosaic's HTTP/1 writer, which keeps the clock, it never
// does, and an unconditional defer ran a call of its own at every return.
func (rw *recorder) WriteHeader(code int) {
	if code >= 200 && rw.putDate() {
		defer rw.dropDate()
	}
	if code >= 200 && !rw.final {
		rw.final = true
		rw.finalHeader(code)
	}
	if code == http.StatusNotModified {
		// A 304 describes no representation of its own (RFC 9110, section
		// 15.4.5): filters may have read these to decide its Vary, but the
		// client's stored response keeps its own.
		h := rw.w.Header()
		for _, k := range notModifiedDrops {
			delete(h, k)
		}
	}
	rw.st.WroteHeader(code)
	rw.w.WriteHeader(code)
}

// finalHeader applies, once per response, what the core changes in the
// header the client gets, with the settings of the location serving the
// request then (after internal redirects, their target's): the charset
// directives. NGINX's charset filter also touches only main requests.
func (rw *recorder) finalHeader(code int) {
	ri := rw.ri
	if ri == nil || ri.loc == nil {
		return
	}
	loc := ri.serving()
	cl := LocConf[*coreLoc](loc, coreModule)
	if x := rw.st.Rare(); x != nil && x.AccelCharset != "" {
		var known map[string]bool
		var maps *charsetMaps
		if ri.cfg != nil {
			known, maps = ri.cfg.charsets, &ri.cfg.charsetMaps
		}
		cl.applyAccelCharset(known, maps, x.AccelCharset, rw.w.Header(), code, loc.Logger())
		return
	}
	if cl.charset.V != "" {
		cl.applyCharset(rw.w.Header(), code, loc.Logger())
	}
}

// implicitHeader is the 200 header that a body written without
// WriteHeader implies.
func (rw *recorder) implicitHeader() {
	if !rw.final {
		rw.final = true
		rw.finalHeader(http.StatusOK)
	}
	rw.st.BodyStarts()
}

// notModifiedDrops are the fields of a representation that a 304 does not
// carry, as NGINX and net/http send it.
var notModifiedDrops = []string{"Content-Type", "Content-Length", "Content-Encoding", "Content-Range", "Accept-Ranges"}

func (rw *recorder) Write(b []byte) (int, error) {
	if rw.putDate() {
		defer rw.dropDate()
	}
	rw.implicitHeader()
	rw.arm()
	n, err := rw.w.Write(b)
	rw.st.BodyBytes += int64(n)
	if err != nil {
		rw.st.WriteFailed = true
	}
	return n, err
}

// connSetter is a server's writer that takes a location's settings for
// its connection itself (http1's): send_timeout, applied to its own writes
// so that the recorder need not move deadlines; reset_timedout_connection;
// and lingering_time and lingering_timeout for the discard of a body's
// rest after the response and for the lingering close.
type connSetter interface {
	SetSendTimeout(time.Duration)
	SetResetTimedOut(bool)
	SetLingering(total, each time.Duration)
}

// setConnection applies a location's send_timeout, through the server's
// writer when it can, otherwise by moving the deadline on writes here, and
// passes reset_timedout_connection, lingering_time and lingering_timeout
// on to a server that takes them; NGINX reads those from the request's
// location when the request ends (ngx_http_free_request,
// ngx_http_finalize_connection), so each location the request passes
// through replaces the previous one's. One assertion for the three, where
// there were two a response: the server's writer has all or none.
func (rw *recorder) setConnection(cl *coreLoc) {
	c, ok := rw.w.(connSetter)
	if !ok {
		rw.sendTimeout = cl.sendTimeout.V
		return
	}
	c.SetSendTimeout(cl.sendTimeout.V)
	rw.sendTimeout = 0
	c.SetResetTimedOut(cl.resetTimedOut.V)
	c.SetLingering(cl.lingerTime.V, cl.lingerTimeout.V)
}

// arm moves the write deadline to send_timeout from now. Writes mostly
// land in net/http's buffer, so the deadline is moved at most once per
// tenth of the timeout rather than on every small write (an ESI page is
// written as many slices): a write then has between 0.9 and 1 times the
// timeout.
func (rw *recorder) arm() {
	if rw.sendTimeout <= 0 || rw.deadlines == nil {
		return
	}
	now := time.Now()
	if now.Sub(rw.armedAt) < rw.sendTimeout/10 {
		return
	}
	rw.armedAt = now
	_ = rw.deadlines.SetWriteDeadline(now.Add(rw.sendTimeout))
}

// ReadFrom lets the server's writer take file bodies itself (http1's
// sendfile, which applies send_timeout on its own).
func (rw *recorder) ReadFrom(src io.Reader) (int64, error) {
	if rw.putDate() {
		defer rw.dropDate()
	}
	rw.implicitHeader()
	if rw.sendTimeout > 0 && rw.deadlines != nil {
		// A writer whose send timeout the recorder keeps (net/http's, for
		// HTTP/2, which has no sendfile): the body goes through Write, the
		// timeout armed at each write, as NGINX's runs between writes. The
		// deadline was once lifted for the whole body instead, and a client
		// that stopped reading held the stream for good.
		return io.Copy(struct{ io.Writer }{rw}, src)
	}
	var n int64
	var err error
	if rf, ok := rw.w.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(src)
	} else {
		n, err = io.Copy(rw.w, src)
	}
	rw.st.BodyBytes += n
	if err != nil {
		rw.st.WriteFailed = true
	}
	return n, err
}

func (rw *recorder) Flush() {
	if rw.putDate() {
		defer rw.dropDate()
	}
	rw.implicitHeader()
	if f, ok := rw.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (rw *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(rw.w).Hijack()
}

func (rw *recorder) Unwrap() http.ResponseWriter { return rw.w }

// UnknownLength (header.UnknownLength) says the body's length is not
// known: mosaic's HTTP/1 writer then chunks it. net/http's writer
// (HTTP/2) has no such notion and counts a body that ends in its buffer
// into a content-length, where NGINX's HTTP/2 header filter sends one
// only for a known length: a Content-Length key without a value keeps
// net/http from adding it, and sends nothing. A length set after this
// replaces the key.
func (rw *recorder) UnknownLength() {
	if u, ok := rw.w.(interface{ UnknownLength() }); ok {
		u.UnknownLength()
		return
	}
	h := rw.w.Header()
	if _, ok := h["Content-Length"]; !ok {
		h["Content-Length"] = nil
	}
}
