package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mosaic-edge/mosaic/internal/endhook"
	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/pace"
	"github.com/mosaic-edge/mosaic/vars"
)

// exchange is the state of one proxied request, recycled between requests.
type exchange struct {
	h   *Handler
	up  *Upstream // the handler's group, or the request's own (ServeVia)
	w   http.ResponseWriter
	r   *http.Request
	ctx context.Context
	st  *vars.State

	uri       string
	head      []byte  // a Wire's encoding of the request, before its body
	id        connID  // the connections this request may use
	set       []field // configured headers with their values
	pass      []field // the client's header lines to pass, in order
	sentClose bool    // a "Connection: close" goes upstream
	revalid   bool    // If-Modified-Since, If-None-Match are a cache's validators, first in pass
	body      reqBody
	sel       selection
	attempts  []attempt // the tries: rec's, or spare's without a State
	rec       *record   // what the request's variables read, nil without a State
	spare     []attempt // the tries' room of a request without a State, kept
	start     time.Time // of the first try, for proxy_next_upstream_timeout
	tryStart  time.Time // of the current try (the last attempt), for its total
	// headAt is when the current try's head was read, and headReads
	// its connection's reads then: a try that reads nothing more ends
	// at headAt (upstreamEnded); -1 for one that ends with the client's
	// writes (unbuffered), which is timed when it ends.
	headAt    time.Time
	headReads int

	stop      endhook.Stop  // cancels closing the connection when the client leaves
	sending   bool          // a goroutine streams the body of the current try
	sendDone  chan struct{} // closed when it has finished
	sendErr   error         // its outcome, readable once sendDone is closed
	cutClient bool          // the client's body read was cut short to stop it
	// cutCancels: the cut came before the request's context was done,
	// which net/http then cancels for the cut (classify).
	cutCancels bool
	// plain: the current try's head has no Connection, no X-Accel-*
	// field and no name to spell, as its Wire noted (PlainHead): they
	// are not looked up.
	plain bool
}

var exchangePool = sync.Pool{New: func() any { return new(exchange) }}

// ServeHTTP proxies r to the upstream.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.serve(w, r, nil, "") }

// ServeWithURI proxies r with uri as the whole request target sent to the
// upstream: neither the client's path nor its query string is added. It
// is how NGINX sends a request for a proxy_pass with variables whose value
// has a URI part.
func (h *Handler) ServeWithURI(w http.ResponseWriter, r *http.Request, uri string) {
	h.serve(w, r, nil, uri)
}

// ServeVia proxies r to the servers of up instead of the handler's
// group, with uri as the whole request target when it is not empty (see
// ServeWithURI). It is how NGINX serves a proxy_pass with variables
// whose value names a host that it resolves at request time: a group of
// the addresses made for that request alone, whose failures no other
// request sees.
func (h *Handler) ServeVia(w http.ResponseWriter, r *http.Request, up *Upstream, uri string) {
	h.serve(w, r, up, uri)
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request, up *Upstream, uri string) {
	if h.refuse != nil {
		if status := h.refuse(r); status != 0 {
			h.errorResponse(w, r, status)
			return
		}
	}
	x := exchangePool.Get().(*exchange)
	x.h, x.w, x.r, x.ctx = h, w, r, r.Context()
	if x.up = up; up == nil {
		x.up = h.up
	}
	x.st = vars.FromContext(x.ctx)
	if h.ignoreClientAbort && (x.st == nil || !x.st.HeaderOnly) {
		// The exchange with the upstream outlives the client's leaving.
		// Not a header-only subrequest's (auth_request), which is
		// stopped once its header is in: NGINX finalizes its upstream
		// then, whatever *_ignore_client_abort says, where a detached
		// exchange would read the body to its end and the check would
		// wait for it.
		x.ctx = context.WithoutCancel(x.ctx)
	}
	defer x.finish()

	if x.st != nil {
		x.publishProxy()
	} else {
		x.attempts = x.spare[:0]
	}
	// A body read whole is read first, as NGINX does before it builds the
	// upstream request: proxy_set_header values may use $request_body.
	if err := x.prepareBody(); err != nil {
		f := x.classify(err, phaseSend, false, nil)
		if f.kind != failClient && f.kind != failCanceled { // the spool failed
			x.logFailure(slog.LevelError, "cannot save request body", x.up.Name, err)
			h.errorResponse(w, r, http.StatusInternalServerError)
			return
		}
		x.logFailure(slog.LevelInfo, f.message(), x.up.Name, err)
		if f.kind == failClient && x.clientGone(f.err) {
			x.terminate(f.status())
		}
		h.errorResponse(w, r, f.status())
		return
	}
	if h.wire == nil {
		if x.uri = uri; uri == "" {
			x.uri = h.UpstreamURI(r)
		}
		x.uri = lineEscapes.Escape(x.uri)
		x.prepareHeaders()
	} else {
		var err error
		if x.head, err = h.wire.AppendHead(x.head[:0], r, x.body.length); err != nil {
			// The protocol cannot carry the request (its parameters do
			// not fit): no server could take it, and none is to blame.
			x.logFailure(slog.LevelError, err.Error(), x.up.Name, nil)
			h.errorResponse(w, r, http.StatusInternalServerError)
			return
		}
	}
	if h.tls != nil {
		// After publishProxy: a proxy_ssl_name may refer to $proxy_host.
		x.id = connID{tls: h.tls, name: h.tls.serverName(r)}
	}
	x.id.sock = h.localFor(r)
	x.sel.reset(x.up, r)
	if h.nextTries > 0 && x.sel.tries > h.nextTries {
		x.sel.tries = h.nextTries
	}
	x.run()
}

// terminate ends a request whose client closed or timed out while
// sending its body, read whole or streamed: NGINX terminates it
// (c->error, c->timedout) and sends nothing; the log says status (400 or
// 408), the request not complete.
func (x *exchange) terminate(status int) {
	if x.st != nil {
		x.st.WroteHeader(status)
	}
	panic(http.ErrAbortHandler)
}

// clientGone reports whether the client's body failed because its
// connection (or stream) closed or timed out, not because what it sent was
// wrong: NGINX answers a malformed chunked body ("client sent invalid
// chunked body"), an HTTP/2 stream ended before its Content-Length
// ("client prematurely closed stream") and a body over
// client_max_body_size with their pages.
func (x *exchange) clientGone(err error) bool {
	return isIOError(err) || isTimeout(err) || x.r.Context().Err() != nil
}

func (x *exchange) finish() {
	x.publishUpstream()
	x.body.close()
	clear(x.set)
	clear(x.pass)
	head := x.head[:0]
	if cap(head) > 64<<10 {
		head = nil // a rare big head is not kept for every request
	}
	spare := x.spare
	if x.rec == nil {
		spare = x.attempts[:0]
	}
	// The tries of a request with a State stay with its record, which
	// the State may still be read through.
	*x = exchange{set: x.set[:0], pass: x.pass[:0], spare: spare, head: head}
	exchangePool.Put(x)
}

// run tries servers until one answers or the request may not go on, as
// NGINX's proxy_next_upstream says.
func (x *exchange) run() {
	var p *peer
	fresh := false // retry p on a new connection: a kept-alive one was stale
	x.start = time.Now()
	// The first choice and try take the time of the start: a clock read
	// costs as much as a small function, and the request reads it often.
	now := x.start
	for n := 0; ; n++ {
		if n > 0 {
			now = time.Now()
		}
		if !fresh {
			if p = x.sel.next(now); p == nil {
				x.attempts = append(x.attempts, attempt{addr: x.up.Name, status: http.StatusBadGateway, connect: -1, header: -1})
				x.logFailure(slog.LevelError, "no live upstreams while "+phaseConnect, x.up.Name, nil)
				x.upstreamFailed(FailError, http.StatusBadGateway)
				return
			}
		}
		c, resp, f := x.try(p, fresh, now)
		if f == nil {
			if x.nextOnStatus(p, c, resp) {
				fresh = false
				continue
			}
			if x.accelRedirect(p, c, resp) {
				return
			}
			x.respond(p, c, resp)
			return
		}
		// A keepalive connection the server had already closed is no fault
		// of the server: retry on a new connection, without counting a
		// try, where proxy_next_upstream would let an error go on (as
		// NGINX adds a try back for a cached connection and then asks
		// it): not for a request sent with a body that cannot go again,
		// nor for one that is not idempotent, which the server may have
		// acted on before closing.
		if fresh = f.stale && x.mayGoOn(NextError, f.sent); fresh {
			x.attempts = x.attempts[:len(x.attempts)-1]
			continue
		}
		if !f.kind.upstream() {
			x.up.release(p, false, time.Now())
			x.logFailure(slog.LevelInfo, f.message(), p.addr, f.err)
			if f.kind == failClient && x.clientGone(f.err) {
				x.terminate(f.status())
			}
			x.errorResponse(f.status())
			return
		}
		x.logFailure(slog.LevelError, f.message(), p.addr, f.err)
		if x.up.release(p, true, time.Now()) {
			x.logFailure(slog.LevelWarn, "upstream server temporarily disabled while "+f.phase, p.addr, nil)
		}
		x.sel.tries--
		if !x.retryable(f) {
			x.upstreamFailed(f.kind, f.status())
			return
		}
	}
}

// upstreamFailed answers with the error response for the upstream's
// failure, telling Options.OnFailure first.
func (x *exchange) upstreamFailed(kind Failure, status int) {
	if x.h.onFailure != nil {
		x.h.onFailure(x.w, x.r, kind)
	}
	x.errorResponse(status)
}

// errorResponse answers with the error response for status after the
// tries so far. Their values are published first, timings and lengths
// included, each try having ended: NGINX's ngx_http_upstream_finalize_request
// sets the last try's response time before it sends its own error page,
// so an "add_header ... always" shows a refused connection's
// "0.000", "-" for its connect and header times.
func (x *exchange) errorResponse(status int) {
	x.publishUpstream()
	x.h.errorResponse(x.w, x.r, status)
}

// retryable reports whether a failed try may go on to the next server:
// tries left, a failure that proxy_next_upstream names, and a request
// that was not sent yet, or whose body can be sent again and that is
// idempotent (or non_idempotent is named).
func (x *exchange) retryable(f *failure) bool {
	var cond NextUpstream
	switch f.kind {
	case FailError:
		cond = NextError
	case FailTimeout:
		cond = NextTimeout
	case FailInvalidHeader:
		cond = NextInvalidHeader
	default:
		return false
	}
	return x.sel.tries > 0 && x.mayGoOn(cond, f.sent)
}

// mayGoOn reports whether proxy_next_upstream allows another server after
// cond, for a request that was (sent) or was not sent yet, within
// proxy_next_upstream_timeout.
func (x *exchange) mayGoOn(cond NextUpstream, sent bool) bool {
	next := x.h.next
	if next&NextOff != 0 || next&cond == 0 {
		return false
	}
	if sent && (!x.body.replayable() || (nonIdempotent(x.r.Method) && next&NextNonIdempotent == 0)) {
		return false
	}
	return x.h.nextTimeout <= 0 || time.Since(x.start) < x.h.nextTimeout
}

// nextOnStatus ends a try whose response status proxy_next_upstream names
// (http_500, http_502, ...) when another server may still be tried: the
// response is dropped (dropResponse), the server is charged with a
// failure (except for 403 and 404, as in NGINX), and run goes on. On the
// last try the response is relayed as it is.
func (x *exchange) nextOnStatus(p *peer, c *conn, resp *http.Response) bool {
	cond := statusCondition(resp.StatusCode)
	if cond == 0 || x.sel.tries <= 1 || !x.mayGoOn(cond, true) {
		return false
	}
	a := &x.attempts[len(x.attempts)-1]
	x.dropResponse(c, resp, a)
	charged := cond != NextHTTP403 && cond != NextHTTP404
	if x.up.release(p, charged, time.Now()) {
		x.logFailure(slog.LevelWarn, "upstream server temporarily disabled while "+phaseHeader, p.addr, nil)
	}
	x.sel.tries--
	return true
}

// try sends the request to p and reads the response header; it starts
// at start, a time just read.
func (x *exchange) try(p *peer, fresh bool, start time.Time) (*conn, *http.Response, *failure) {
	h := x.h
	x.attempts = append(x.attempts, attempt{addr: p.addr, connect: -1, header: -1})
	x.tryStart = start
	a := &x.attempts[len(x.attempts)-1]
	var c *conn
	fail := func(f *failure) (*conn, *http.Response, *failure) {
		a.total = time.Since(start)
		a.count(c)
		if f.kind.upstream() {
			a.status = f.status()
		}
		return nil, nil, f
	}

	if !fresh {
		c = x.up.getIdle(p, x.id, start)
	}
	reused := c != nil
	now := start
	if c == nil {
		var err error
		if c, err = h.dial(x.ctx, p, x.id); err != nil {
			return fail(x.classify(err, phaseConnect, false, nil))
		}
		now = time.Now()
	}
	// A kept connection takes no time to connect: 0, as NGINX's
	// $upstream_connect_time reads for one (its clock is the event
	// loop's, not read again within the handler).
	a.connect = now.Sub(start)
	c.begin(h.readTimeout, h.sendTimeout, x.body.hasBytes(), now)
	x.stop = endhook.After(x.ctx, c.abortFn)

	var err error
	if h.wire != nil {
		// A write error here is the connection's: the head was encoded
		// before connecting.
		_, err = c.bw.Write(x.head)
		if err == nil && !x.body.hasBytes() {
			err = h.wire.EndBody(c.bw)
		}
	} else {
		x.writeHead(c.bw)
	}
	if err == nil && !x.body.hasBytes() {
		err = c.flush()
	}
	if err != nil {
		x.stop.Stop()
		c.close()
		return fail(x.classify(err, phaseSend, reused, c))
	}
	if x.body.hasBytes() {
		x.startSending(c)
	} else {
		c.dc.armIdle() // the response is read below, on this goroutine
	}

	resp, err := x.readHeader(c)
	if err != nil {
		var f *failure
		if c.heldErr != nil { // the request's write, made by the read
			f = x.classify(c.heldErr, phaseSend, reused, c)
		} else {
			f = x.headerFailure(c, err, reused)
		}
		x.stop.Stop()
		c.close()
		return fail(f)
	}
	x.headAt, x.headReads = time.Now(), c.reads
	a.header = x.headAt.Sub(start)
	a.status = resp.StatusCode
	if x.rec != nil {
		x.rec.headRecv = uint32(min(c.nread, math.MaxUint32))
	}
	x.plain = h.wire != nil && plainHead(resp)
	if x.st != nil {
		// $upstream_http_NAME: the last server's header, as it came.
		x.st.UpstreamHeader = resp.Header
	}
	return c, resp, nil
}

// readHeader reads the response header, relaying interim 1xx responses
// other than 100 and 101 to the client as they come. A head that net/http
// refuses for its Transfer-Encoding is read again by RFC 9112's rules
// (otherCodings); a chunked body is read by chunkedBody.
func (x *exchange) readHeader(c *conn) (*http.Response, error) {
	if w := x.h.wire; w != nil {
		// The Wire bounds the head itself: what its protocol carries
		// around it (FastCGI's records, the application's error stream)
		// does not count.
		return w.ReadResponse(c.br, x.r)
	}
	c.limit = maxHeaderBytes
	defer func() { c.limit = -1 }()
	for {
		c.recordHead()
		resp, err := http.ReadResponse(c.br, x.r)
		head := c.recordedHead()
		if err != nil && !isIOError(err) && !errors.Is(err, errHeaderTooBig) {
			resp, err = otherCodings(head, c.br, x.r, err)
		} else if err == nil && resp.ProtoMinor == 0 {
			// net/http drops an HTTP/1.0 response's Transfer-Encoding and
			// reads the body to the close, chunk sizes and all, which
			// would reach the client and the cache as content; NGINX
			// undoes the chunks. Read such a head again by the field (the
			// connection closes after it, as RFC 9112 section 6.1 asks).
			if tr, terr := otherCodings(head, c.br, x.r, nil); tr != nil || terr != nil {
				resp, err = tr, terr
			}
		} else if err == nil && resp.Body != http.NoBody && slices.Equal(resp.TransferEncoding, []string{"chunked"}) {
			// Nothing of the body has been read: its chunks are read as
			// NGINX reads them (chunkedBody) rather than by net/http.
			resp.Body = newChunkedBody(c.br, resp)
		}
		if err == nil {
			err = checkHead(resp, head)
		}
		if err != nil {
			return nil, err
		}
		switch {
		case resp.StatusCode == http.StatusSwitchingProtocols:
			if len(x.r.Header["Upgrade"]) == 0 {
				return nil, errors.New("upstream switched protocols without an upgrade request")
			}
			return resp, nil
		case resp.StatusCode >= 100 && resp.StatusCode < 200:
			x.interim(resp)
			continue
		}
		return resp, nil
	}
}

// checkHead refuses what http.ReadResponse lets through and NGINX answers
// with 502: a status below 100 (three digits are all it asks; net/http's
// and http1's WriteHeader panic on such a code), a field name that is not
// a token (it keeps "Content-Length : 2" under a name of its own, which
// the framing then ignores), and a line folded onto the one before it
// (obs-fold, which it joins). head is the response's head as read.
func checkHead(resp *http.Response, head []byte) error {
	if resp.StatusCode < 100 {
		return fmt.Errorf("status %03d", resp.StatusCode)
	}
	for k := range resp.Header {
		if !header.IsToken(k) {
			return fmt.Errorf("field name %q", k)
		}
	}
	if bytes.Contains(head, []byte("\n ")) || bytes.Contains(head, []byte("\n\t")) {
		return errors.New("folded field line")
	}
	return nil
}

// interim relays a 1xx response (103 Early Hints, 102 Processing) with
// its fields, less the hidden and hop-by-hop ones. A 100 Continue is not
// relayed: it answers the proxy's own sending of the body, and the
// client's Expect is the server's to answer.
func (x *exchange) interim(resp *http.Response) {
	if resp.StatusCode == http.StatusContinue {
		return
	}
	fields := make(http.Header, len(resp.Header))
	x.h.copyHeader(fields, resp.Header, false, x.r.ProtoMajor >= 2)
	if fields["Content-Type"] == nil {
		delete(fields, "Content-Type") // copyHeader's mark, for a final response
	}
	header.WriteInterim(x.w, resp.StatusCode, fields)
}

// respond relays the upstream's response to the client.
func (x *exchange) respond(p *peer, c *conn, resp *http.Response) {
	h := x.h
	a := &x.attempts[len(x.attempts)-1]
	if resp.StatusCode == http.StatusSwitchingProtocols && h.wire == nil {
		defer x.up.release(p, false, time.Now())
		x.switchProtocols(c, resp, a)
		return
	}
	if h.intercept != nil && h.intercept(x.r, resp.StatusCode) {
		defer x.up.release(p, false, time.Now())
		x.interceptResponse(c, resp, a)
		return
	}
	x.noteUpstreamType(resp)

	x.accelSettings(resp)
	flush := h.bufferingOff
	if v := x.accelField(resp, "X-Accel-Buffering"); len(v) > 0 && !h.ignoreAccelBuf {
		switch strings.ToLower(v[0]) {
		case "yes":
			flush = false
		case "no":
			flush = true
		}
	}
	if flush {
		if h.onUnbuffered != nil {
			h.onUnbuffered(x.w, x.r)
		}
		// Unbuffered, NGINX ends the try only once the client has taken
		// the body (ngx_http_upstream_process_non_buffered_request
		// finalizes with no busy buffers left): a write to a slow client
		// counts in $upstream_response_time even for an answer that came
		// whole with its head, so its end reads the clock.
		x.headReads = -1
		// Nor does NGINX pace an unbuffered answer: its
		// ngx_http_upstream_send_response sets r->limit_rate to 0, over
		// limit_rate, "set $limit_rate" and X-Accel-Limit-Rate alike,
		// and $limit_rate reads 0 from then on. A header-only request
		// (a HEAD, a post action) it finalizes before that, so
		// $limit_rate keeps the rate there. (A relayed 204 is not
		// header-only to NGINX: the upstream's status line skips the
		// header filter's check.)
		if x.r.Method != http.MethodHead && (x.st == nil || !x.st.HeaderOnly) {
			x.st.Set(pace.StateName, "0")
		}
	}
	if x.st != nil && x.st.HeaderOnly {
		// Only the header is wanted (an auth_request check): it goes at
		// once, not when the buffer is full or the body has ended, which
		// an upstream that streams its body would put off for ever.
		flush = true
	}
	if !flush && h.onHead != nil {
		// The header goes to the client's writer only when the buffer
		// fills or the body ends (relay); a cache learns now what it
		// needs to know of it.
		h.onHead(x.w, x.r, resp.StatusCode, resp.Header)
	}
	// The names as the upstream wrote them, for a writer that sends them
	// so; read before limit_rate's pacing wraps a Wire's body.
	if h.wire == nil {
		// c.head is the head http.ReadResponse read (recordHead).
		passSpellings(x.w, c.head, resp.Header)
	} else if !x.plain {
		// A plain head has no names to spell: PHP's usual answer
		// costs no type assertion.
		if sb, ok := resp.Body.(Spelt); ok {
			header.SpellFields(x.w, sb.Spellings())
		}
	}
	// waits: where the buffered relay passes on what it has (a chunked
	// body's whole chunks, a Wire's Pieces), asked before limit_rate's
	// pacing wraps the body. Kept as the interface, not as its method
	// value, which would be made on the heap on every request.
	var waits Pieces
	if pb, ok := resp.Body.(Pieces); ok && !flush {
		waits = pb
	}
	if h.limitRate > 0 && !flush {
		// proxy_limit_rate: the upstream's body is read at the rate,
		// which a buffered response only has in NGINX.
		resp.Body = pacedBody{pace.NewReader(x.ctx, resp.Body, h.limitRate), resp.Body}
	}
	rc := http.NewResponseController(x.w)
	// Read here: once the reading ahead has started, the exchange's send
	// state is its goroutine's (upstreamEnded).
	sending := x.sending
	if sending {
		// The upload goes on while the response comes back; without this
		// net/http would drain the request body before the header goes out.
		_ = rc.EnableFullDuplex()
	}
	var ahead *ahead
	ended := false // upstreamEnded has run, or the reading ahead will run it
	defer func() {
		// A writer that panicked (a filter cutting the response, as
		// ESI's replay does with http.ErrAbortHandler) skipped the
		// upstream's end. The reading ahead ends here, before the
		// exchange is recycled, as for a client that has gone; without
		// it, the request stops counting at the server (max_conns).
		switch {
		case ahead != nil:
			if ahead.stop() {
				c.abort()
			}
			ahead.close()
		case !ended:
			x.up.release(p, false, time.Now())
		}
	}()
	var startAhead func(base int64) io.Reader
	if !flush && (h.aheadMemory > 0 || h.aheadFileMax > 0) {
		startAhead = func(base int64) io.Reader {
			// The upstream's end is seen to on the goroutine that reads it:
			// its connection goes back to the pool, or is closed, as soon as
			// the body is in, however long the client takes.
			ended = true
			ahead = newAhead(resp.Body, base, h.aheadMemory, h.aheadFileMax, h.aheadTemp, h.relayPool, waits, func(n int64, err error) {
				x.upstreamEnded(p, c, resp, n, err, nil)
			})
			if waits != nil {
				// A controller of its own: the goroutine's closure would
				// put rc on the heap for every request, ahead or not.
				idle := http.NewResponseController(x.w)
				ahead.idle = func() { _ = idle.Flush() }
			}
			return ahead
		}
	}
	res := x.relay(rc, resp, flush, waits, startAhead)
	if sending && !x.sendFinished() {
		// The upload may outlast the response: let the client have all of
		// the response before the upstream's end waits for the upload.
		_ = rc.Flush()
	}
	if ahead != nil {
		x.endAhead(ahead, c, &res)
		ahead = nil
	} else {
		if res.clientErr != nil && h.ignoreClientAbort {
			// *_ignore_client_abort: the client has gone, but the
			// upstream's answer is still read to its end (the application
			// finishes its work), then dropped; the connection may serve
			// another request.
			n, err := io.Copy(io.Discard, resp.Body)
			res.n += n
			res.clientErr, res.upErr = nil, err
		}
		x.upstreamEnded(p, c, resp, res.n, res.upErr, res.clientErr)
		ended = true
	}
	if x.st != nil && len(resp.Trailer) > 0 {
		// Read once the body has ended ($upstream_trailer_NAME).
		x.st.MakeRare().UpstreamTrailer = resp.Trailer
	}
	if res.upErr != nil {
		x.bodyFailed(p, rc, res)
	}
}

// endAhead waits for the reading ahead of a relayed body to end: at once
// when the client had all of it; when the client has gone, once the
// upstream is read to its end (*_ignore_client_abort) or its connection
// is shut. res then has the upstream's side of the outcome.
func (x *exchange) endAhead(a *ahead, c *conn, res *relayed) {
	gone := res.clientErr != nil && !x.h.ignoreClientAbort
	switch {
	case gone:
		if a.stop() {
			c.abort() // a read waiting on the upstream ends
		}
	case res.clientErr != nil:
		a.dropRest()
		res.clientErr = nil
	}
	a.close()
	if a.tempErr != nil && !gone {
		x.logFailure(slog.LevelError, "writing a temporary file for the response failed", c.peer.addr, a.tempErr)
		res.logged = true
	}
	res.n = a.n
	if !gone && a.end != io.EOF {
		res.upErr = a.end
	}
}

// upstreamEnded sees to the end of the upstream's side of a response:
// its timing and length, the upload sent with it, and its connection,
// kept for another request or closed. The handler calls it once the
// body is relayed, or the reading ahead once the body is read.
func (x *exchange) upstreamEnded(p *peer, c *conn, resp *http.Response, n int64, upErr, clientErr error) {
	a := &x.attempts[len(x.attempts)-1]
	// The end of the try, for its connection and peer too. A response
	// that came whole with its head (a PHP page in FastCGI records)
	// needed no read of the connection since: it ends when the head was
	// read, as NGINX's $upstream_response_time then equals its
	// $upstream_header_time (both from the time it cached when the one
	// read woke it), and the clock is not read again. A read since
	// (bytes or not: an end of file after a wait) reads it, as does an
	// unbuffered try (headReads -1, see respond).
	now := x.headAt
	if c.reads != x.headReads {
		now = time.Now()
	}
	a.total = now.Sub(x.tryStart)
	a.length = n
	if rl, ok := resp.Body.(ReceivedLength); ok {
		a.length = rl.ReceivedLength()
	}
	sent := x.waitSending(c, false) && x.sendErr == nil
	stopped := x.stop.Stop()
	a.count(c) // before the connection may serve another request
	ended := upErr == nil || upErr == io.EOF
	if ended && clientErr == nil && sent && stopped && x.keepalive(resp) && c.br.Buffered() == 0 {
		x.up.putIdle(c, now)
	} else {
		c.close()
	}
	// The server counts the request as active (least_conn, max_conns)
	// until its response has ended.
	x.up.release(p, false, now)
}

// bodyFailed handles an upstream body that broke off (closed early, an
// error, a read timeout) or was malformed. A malformed body that relay
// still held gets a 502, as nothing has gone to the client. Otherwise the
// header has gone, as NGINX sends it once read, so the client gets every
// byte received and then a broken connection, the only way left to say
// that the body is incomplete: a short Content-Length body, a chunked one
// without its last chunk, an HTTP/2 stream reset. An HTTP/1.0 client of a
// body without Content-Length cannot be told; it gets what NGINX gives
// it, the bytes received and a close. The response's status stays the
// upstream's, as $status and $upstream_status say in NGINX's access log,
// and OnFailure is not told. A client that has gone is told nothing.
func (x *exchange) bodyFailed(p *peer, rc *http.ResponseController, res relayed) {
	f := x.classify(res.upErr, phaseBody, false, nil)
	if x.ctx.Err() != nil {
		if !res.committed {
			x.logFailure(slog.LevelInfo, f.message(), p.addr, res.upErr)
			x.errorResponse(StatusClientClosedRequest)
		}
		return
	}
	if !res.logged {
		x.logFailure(slog.LevelError, f.message(), p.addr, res.upErr, slog.Int64("bytes", res.n))
	}
	if !res.committed {
		x.upstreamFailed(f.kind, f.status())
		return
	}
	// The response writer may still hold the last bytes received; the
	// abort below would drop them.
	_ = rc.Flush()
	// net/http turns this panic into a broken connection, as for
	// httputil.ReverseProxy; http1 does the same.
	if x.ctx.Value(http.ServerContextKey) != nil {
		panic(http.ErrAbortHandler)
	}
}

// accelField is the upstream's field name, an X-Accel-* one: none when
// the head is known to have none (exchange.plain).
func (x *exchange) accelField(resp *http.Response, name string) []string {
	if x.plain {
		return nil
	}
	return resp.Header[name]
}

// keepalive reports whether the connection may serve another request.
func (x *exchange) keepalive(resp *http.Response) bool {
	if x.h.wire != nil {
		return x.up.Keepalive > 0 && !resp.Close
	}
	// After a length announced without its body (reqBody.unsent), the
	// upstream would read the next request as that body.
	return x.up.Keepalive > 0 && x.h.http11 && !x.sentClose && !x.body.unsent && !resp.Close && resp.ProtoAtLeast(1, 1)
}

// accelSettings applies an upstream's X-Accel-Limit-Rate: the client's
// rate for this response (bytes per second), which a rate-limiting writer
// in front reads ($limit_rate, package throttle), a value that is not a
// number ignored, as in NGINX; and its X-Accel-Charset, the charset the
// server's charset filter names (vars.Rare.AccelCharset).
func (x *exchange) accelSettings(resp *http.Response) {
	if x.st == nil || x.plain {
		return
	}
	if v := resp.Header["X-Accel-Limit-Rate"]; len(v) > 0 && !x.h.ignoreAccelLimit {
		if n, err := strconv.ParseUint(v[0], 10, 63); err == nil {
			x.st.Set(pace.StateName, strconv.FormatUint(n, 10))
		}
	}
	if v := resp.Header["X-Accel-Charset"]; len(v) > 0 && v[0] != "" && !x.h.ignoreAccelCharset {
		x.st.MakeRare().AccelCharset = v[0]
	}
}

// interceptResponse answers with the server's own response for the
// upstream's status (an error_page), as NGINX's *_intercept_errors does:
// the upstream's body is not relayed, and the connection is not kept,
// unless a Wire read the whole answer with its head (http.NoBody, Close
// false): a memcached miss, after which NGINX keeps the connection.
func (x *exchange) interceptResponse(c *conn, resp *http.Response, a *attempt) {
	x.dropResponse(c, resp, a)
	x.errorResponse(resp.StatusCode)
}

// dropResponse ends try a without relaying resp (an intercepted status,
// or one that sends the request to the next server): its connection is
// closed, unless a Wire read the whole answer with its head (http.NoBody,
// Close false): a memcached miss, after which NGINX keeps the connection
// whether the 404 is intercepted or goes on to the next server
// (memcached_next_upstream not_found).
func (x *exchange) dropResponse(c *conn, resp *http.Response, a *attempt) {
	sent := x.waitSending(c, false) && x.sendErr == nil
	stopped := x.stop.Stop()
	a.total = time.Since(x.tryStart)
	a.count(c) // before the connection may serve another request
	if x.h.wire != nil && resp.Body == http.NoBody && sent && stopped && x.keepalive(resp) && c.br.Buffered() == 0 {
		x.up.putIdle(c, time.Now())
	} else {
		c.close()
	}
}

// pacedBody is a response body read through a pace.Reader.
type pacedBody struct {
	io.Reader
	io.Closer
}
