package http1

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// maxDrain is how much of a request body that its handler left unread is
// read and dropped to keep the connection; a longer rest closes it.
const maxDrain = 256 << 10

// aLongTimeAgo is a deadline in the past: setting it wakes a blocked read.
var aLongTimeAgo = time.Unix(1, 0)

type conn struct {
	srv        *Server
	rwc        net.Conn
	remoteAddr string
	baseCtx    context.Context
	br         *bufio.Reader
	state      atomic.Int32
	requests   int
	hijacked   bool    // the handler or another protocol (TLSNextProto) has the connection
	unread     bool    // the client may have sent more than was read
	lim        *Limits // the limits in force for the current request
	// tlsState is the connection's TLS state once its handshake is done
	// (nil on a plain connection): every request's r.TLS.
	tlsState *tls.ConnectionState

	// The deadlines the connection armed itself (see deadline.go).
	rd, wd armed
	// lastWrite is when the last response's last write began, the time
	// the wait for the next request is armed from (a write that blocked
	// shortens that wait by as long; a sendfile leaves it zero).
	lastWrite time.Time
	rdTouched atomic.Bool // another setter has moved the read deadline

	head   []byte        // the request header being read
	resh   http.Header   // the response header map, cleared for each request
	hdr    []byte        // the response header being written
	fields []headerField // the response's header fields, sorted for output
	iov    [6][]byte     // backing of bufs
	bufs   net.Buffers   // one writev
	num    [24]byte      // chunk sizes
	wmu    sync.Mutex    // orders a 100 Continue before the final header
	one    [1]byte       // the byte a watch read
	has    atomic.Bool   // one holds a byte that the next read returns

	// The watch on the connection while a handler runs (see watch.go),
	// guarded by the shard's lock.
	cond       sync.Cond
	shard      *watchShard
	prev, next *conn       // in shard's list of running requests
	startTick  int64       // the sweep tick at which the handler started
	running    bool        // a handler runs and may be watched
	fired      bool        // watchDelay has passed
	bodyDone   bool        // the request body has been read and nothing follows it
	watching   bool        // a read is in progress in the watch
	aborting   bool        // the watch is being stopped, not the peer gone
	gone       bool        // the peer closed its side
	reqCtx     *requestCtx // the running request's, cancelled when the peer goes
}

func newConn(s *Server, rwc net.Conn) *conn {
	c := &conn{srv: s, rwc: rwc, lim: s.current()}
	c.shard = &s.watch.shards[watchShardOf.Add(1)%uint32(len(s.watch.shards))]
	c.cond.L = &c.shard.mu
	if a := rwc.RemoteAddr(); a != nil {
		c.remoteAddr = a.String()
	}
	c.br = bufio.NewReaderSize(connReader{c}, 4<<10)
	return c
}

// connReader reads the connection for the buffered reader, first handing
// out a byte that a watch read while the handler ran.
type connReader struct{ c *conn }

func (r connReader) Read(p []byte) (int, error) {
	c := r.c
	if c.has.Load() && len(p) > 0 {
		p[0] = c.one[0]
		c.has.Store(false)
		return 1, nil
	}
	return c.rwc.Read(p)
}

func (c *conn) closeIfIdle() {
	if c.state.CompareAndSwap(stateIdle, stateClosed) {
		_ = c.rwc.Close()
	}
}

// serverMark is the http.ServerContextKey value of http1's requests:
// handlers look for a server there before they abort a response with
// panic(http.ErrAbortHandler) (a body cut off upstream must not end as if
// complete), and find one.
var serverMark = &http.Server{}

func (c *conn) serve() {
	defer func() {
		// Shutdown waits for requests, not for a lingering close.
		c.srv.removeConn(c)
		if !c.hijacked {
			c.close()
		}
	}()
	// Before the connection's context is made: a connection handed to
	// another protocol gets its context there.
	if tc, ok := c.rwc.(*tls.Conn); ok && !c.handshake(tc) {
		return
	}
	s := c.srv
	ctx := context.WithValue(context.Background(), http.ServerContextKey, serverMark)
	ctx = context.WithValue(ctx, http.LocalAddrContextKey, c.rwc.LocalAddr())
	if s.ConnContext != nil {
		ctx = s.ConnContext(ctx, c.rwc)
	}
	c.baseCtx = ctx
	for {
		if !c.awaitRequest() {
			return
		}
		if !c.state.CompareAndSwap(stateIdle, stateActive) {
			return // closed by Shutdown while the request arrived
		}
		keep := c.serveOne()
		if !keep || c.hijacked {
			return
		}
		c.state.Store(stateIdle)
		if s.closing.Load() {
			return
		}
	}
}

// awaitRequest waits for the first byte of the next request: for the
// first request within the header timeout, for later ones within the
// keep-alive timeout. A request already buffered (pipelined) is served
// at once.
func (c *conn) awaitRequest() bool {
	c.lim = c.srv.current()
	if c.br.Buffered() > 0 {
		return true
	}
	wait, now := c.lim.KeepAliveTimeout, c.lastWrite
	if now.IsZero() {
		now = time.Now()
	}
	if c.requests == 0 {
		wait = c.lim.HeaderTimeout
	} else {
		// The client has only just been sent its response (at now): a
		// read now would mostly find nothing (EAGAIN), a system call for
		// nothing. Letting the other connections that are ready run
		// first, as an event loop does, gives the next request time to
		// arrive.
		runtime.Gosched()
	}
	c.armRead(now, wait)
	_, err := c.br.Peek(1)
	return err == nil
}

// serveOne reads one request and runs the handler for it. It reports
// whether the connection may serve another.
func (c *conn) serveOne() bool {
	lim := c.lim
	if c.requests > 0 && lim.HeaderTimeout > 0 && !c.headBuffered() {
		// The rest of the header must arrive within client_header_timeout.
		c.setRead(time.Now().Add(lim.HeaderTimeout))
	}
	x := &exchange{ctx: requestCtx{Context: c.baseCtx}}
	defer x.ctx.cancel()
	req, err := c.readRequest(x)
	if err != nil {
		c.refuse(err)
		return false
	}
	c.requests++

	w := &x.w
	*w = response{c: c, req: req, header: c.responseHeader(), cl: -1, sendTimeout: lim.WriteTimeout}
	w.closeAfter = req.Close || lim.KeepAliveTimeout <= 0 ||
		lim.MaxRequests > 0 && c.requests >= lim.MaxRequests
	b, _ := req.Body.(*body)
	if b != nil {
		b.w, w.body = w, b
		// The wait's deadline must not cut the body short; without a
		// body nothing reads the connection until the next wait (the
		// watch lifts the deadline itself).
		c.setRead(time.Time{})
	}
	c.startWatch(&x.ctx, b == nil)
	panicked := c.runHandler(w, req)
	c.stopWatch()
	x.ctx.cancel()
	if w.hijacked {
		return false
	}
	if b != nil {
		b.closeForHandler()
		c.unread = !b.eof
	}
	if panicked {
		return false
	}
	w.finish()
	if w.closeAfter || c.gone || w.err != nil {
		return false
	}
	if b != nil && !b.finish() {
		return false
	}
	c.unread = false
	return true
}

// headerField is one name of a response header with its values.
type headerField struct {
	name   string
	values []string
}

// responseHeader returns the connection's response header map, emptied.
// One map serves every response on the connection: a handler may not use
// its ResponseWriter, the header included, once it has returned (the
// net/http rule), and a map with its slots already allocated saves two
// allocations per request.
func (c *conn) responseHeader() http.Header {
	if c.resh == nil || len(c.resh) > 32 {
		// A map one response grew large is not kept for the rest.
		c.resh = make(http.Header, 8)
	} else {
		clear(c.resh)
	}
	return c.resh
}

// close closes the connection, lingering first (see Server.Linger) when
// the client may still be sending.
func (c *conn) close() {
	lim := c.lim
	linger := lim.Linger == LingerAlways && c.requests > 0 ||
		lim.Linger == LingerOn && (c.unread || c.br.Buffered() > 0)
	if !linger || c.gone || closeWrite(c.rwc) != nil {
		_ = c.rwc.Close()
		return
	}
	total, each := lim.LingerTime, lim.LingerTimeout
	if total <= 0 {
		total = 30 * time.Second
	}
	if each <= 0 {
		each = 5 * time.Second
	}
	end := time.Now().Add(total)
	buf := make([]byte, 4<<10)
	for {
		next := time.Now().Add(each)
		if next.After(end) {
			next = end
		}
		c.setRead(next)
		if _, err := c.rwc.Read(buf); err != nil {
			break
		}
	}
	_ = c.rwc.Close()
}

// headBuffered reports whether a whole request header is already in the
// read buffer, so that no read has to wait for it.
func (c *conn) headBuffered() bool {
	buf, _ := c.br.Peek(c.br.Buffered())
	for i := 0; i < len(buf); i++ {
		if buf[i] == '\n' && (i+1 < len(buf) && buf[i+1] == '\n' ||
			i+2 < len(buf) && buf[i+1] == '\r' && buf[i+2] == '\n') {
			return true
		}
	}
	return false
}

// runHandler calls the handler and recovers from a panic in it: the
// panic is logged (unless it is http.ErrAbortHandler), a 500 sent if no
// response has started, and the connection closed. It reports a panic.
func (c *conn) runHandler(w *response, req *http.Request) (panicked bool) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		panicked = true
		if v != http.ErrAbortHandler {
			c.srv.logger().Error(fmt.Sprintf("panic serving %s: %v\n%s", c.remoteAddr, v, debug.Stack()))
			if !w.hijacked && !w.sentHeader {
				w.header = http.Header{}
				w.wroteHeader, w.status, w.written, w.cl = false, 0, 0, -1
				w.release()
				w.closeAfter = true
				w.WriteHeader(http.StatusInternalServerError)
				w.finish()
			}
		}
		w.release()
	}()
	h := c.srv.Handler
	if h == nil {
		h = http.DefaultServeMux
	}
	h.ServeHTTP(w, req)
	return false
}

// exchange holds what serving one request allocates besides the
// http.Request, its header and the header's text, in one object: the
// response, the request's context, and the parse's URL and header values.
type exchange struct {
	w   response
	ctx requestCtx
	mem reqMem
}

// readRequest reads and parses the next request header.
func (c *conn) readRequest(x *exchange) (*http.Request, error) {
	head, err := c.readHead()
	if err != nil {
		return nil, err
	}
	var r http.Request
	if err := parseHead(string(head), &r, &x.mem); err != nil {
		return nil, err
	}
	r.RemoteAddr = c.remoteAddr
	r.TLS = c.tlsState
	r.Body = http.NoBody
	if r.ContentLength != 0 {
		r.Body = newBody(c, &r)
	}
	var ctx context.Context = &x.ctx
	if c.srv.RequestContext != nil {
		ctx = c.srv.RequestContext(ctx)
	}
	req := r.WithContext(ctx)
	if b, ok := req.Body.(*body); ok {
		b.req = req
	}
	return req, nil
}

// errLineTooLong and errHeadTooLarge end a request whose header breaks
// the limits.
var (
	errLineTooLong  = &requestError{http.StatusRequestURITooLong, "request line too long"}
	errFieldTooLong = &requestError{http.StatusRequestHeaderFieldsTooLarge, "header field too long"}
	errHeadTooLarge = &requestError{http.StatusRequestHeaderFieldsTooLarge, "request header too large"}
)

// readHead reads the request line and header fields up to the empty line
// that ends them, skipping empty lines before the request line. The
// result is valid until the next call.
func (c *conn) readHead() ([]byte, error) {
	maxLine, maxHead := c.lim.MaxLineBytes, c.lim.MaxHeaderBytes
	if maxLine <= 0 {
		maxLine = 8 << 10
	}
	if maxHead <= 0 {
		maxHead = 32 << 10
	}
	acc := c.head[:0]
	start := 0 // where the current line begins in acc
	for {
		frag, err := c.br.ReadSlice('\n')
		acc = append(acc, frag...)
		if n := len(acc) - start; n > maxLine+2 || len(acc) > maxHead {
			c.head = acc[:0]
			switch {
			case start == 0:
				return nil, errLineTooLong
			case n > maxLine+2:
				return nil, errFieldTooLong
			}
			return nil, errHeadTooLarge
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			c.head = acc[:0]
			if len(acc) > 0 && !errors.Is(err, io.EOF) {
				return nil, err
			}
			if len(acc) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if line := acc[start:]; len(line) == 1 || len(line) == 2 && line[0] == '\r' {
			if start == 0 {
				acc = acc[:0] // an empty line before the request line
				continue
			}
			c.head = acc
			return acc[:start], nil
		}
		start = len(acc)
	}
}

// refuse answers a request that cannot be served and closes. A client
// that went away or timed out before sending a whole header gets nothing.
func (c *conn) refuse(err error) {
	var re *requestError
	if !errors.As(err, &re) {
		return
	}
	c.unread = true // the rest of what the client sent is not read
	c.srv.logger().Info("client sent invalid request", "client", c.remoteAddr, "error", re.msg)
	writeRefusal(c.rwc, re.status, "")
}

// writeRefusal sends NGINX's error page for status on nc, with detail
// under its heading when set, and says that the connection closes.
func writeRefusal(nc net.Conn, status int, detail string) {
	text := http.StatusText(status)
	if detail != "" {
		detail = "<center>" + detail + "</center>\r\n"
	}
	page := fmt.Sprintf("<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n<center><h1>%d %s</h1></center>\r\n%s</body>\r\n</html>\r\n",
		status, text, status, text, detail)
	msg := fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Type: text/html\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		status, text, len(page), page)
	_ = nc.SetWriteDeadline(time.Now().Add(5 * time.Second)) // the connection closes after
	_, _ = io.WriteString(nc, msg)
}
