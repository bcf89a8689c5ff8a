package http1

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/reason"
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
	// br is the read buffer, from readerPool, held only while there is
	// something to read (see fill); nil while the connection waits.
	br *bufio.Reader
	// raw reads the socket of a plain connection (nil over TLS): fill
	// waits on it for data without holding a buffer, and reads into one
	// only once data has come. rawFD is its descriptor during that read.
	raw   syscall.RawConn
	rawFD int
	// rawWait and rawOnce are the functions fillRaw and tryRaw hand to
	// raw.Read, made once per connection rather than per wait; rawErr is
	// their read's result.
	rawWait, rawOnce func(fd uintptr) bool
	rawErr           error
	rawIO            // writes of a plain connection (writeRaw)
	state            atomic.Int32
	requests         int
	headLen          int // the last request header's size on the wire, blank line included
	// accepted is when the connection was accepted: its handshake and its
	// first request's header are timed from it.
	accepted time.Time
	// reqStart is when the current request's first byte came: NGINX
	// begins a request there, and $request_time counts from it.
	reqStart time.Time
	// inBytes counts the bytes read from the connection (consumed).
	inBytes   atomic.Int64
	pipelined bool // the next request had begun to arrive when the last one ended
	hijacked  bool // the handler or another protocol (TLSNextProto) has the connection
	unread    bool // the client may have sent more than was read
	// lingerCut says a discard of a body's rest read bytes past
	// lingering_time: the connection closes at once, with a reset, as
	// NGINX's leaves those bytes unread.
	lingerCut bool
	lim       *Limits // the limits in force for the current request
	// tlsState is the connection's TLS state once its handshake is done
	// (nil on a plain connection): every request's r.TLS.
	tlsState *tls.ConnectionState

	// The deadlines the connection armed itself (see deadline.go).
	rd, wd armed
	// lastWrite is when the last response's last write began, the time
	// the wait for the next request is armed from (a write that blocked
	// shortens that wait by as long; a sendfile, or a response with
	// nothing left to send when its handler returns, leaves it zero: the
	// wait then counts from its start).
	lastWrite time.Time
	rdTouched atomic.Bool // another setter has moved the read deadline

	head *[]byte     // the request header being read, from headPool
	mem  *respMem    // from respPool while the connection is busy
	iov  [6][]byte   // backing of bufs
	bufs net.Buffers // one writev
	num  [24]byte    // chunk sizes
	wmu  sync.Mutex  // orders a 100 Continue before the final header
	one  [1]byte     // the byte a watch read
	has  atomic.Bool // one holds a byte that the next read returns

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

	// writeTimedOut says a write of a response ran past its deadline
	// (send_timeout): the connection closes without lingering, as NGINX
	// closes one whose client timed out (c->timedout) at once.
	writeTimedOut bool
	// bodyTimedOut says a read of the request body ran past the time
	// allowed between two reads (client_body_timeout, BodyTimedOut): the
	// connection closes without lingering too. Set from whichever
	// goroutine reads the body.
	bodyTimedOut atomic.Bool
	// headTimedOut says the client stopped in the middle of a header
	// past client_header_timeout (NGINX's c->timedout there too).
	headTimedOut bool
	// locReset is reset_timedout_connection as the location serving the
	// request set it (SetResetTimedOut), resetDefault until one does and
	// again once the next request is awaited: NGINX reads it from the
	// request's location when it frees the request
	// (ngx_http_free_request), the default server's for a request refused
	// or timed out in its header, before any location.
	locReset resetSetting
	// locLinger and locLingerEach are lingering_time and
	// lingering_timeout as the location serving the request set them
	// (SetLingering), zero until one does and again once the next
	// request is awaited: NGINX discards a body's rest
	// after the response, and lingers at the close, by the request's
	// location (ngx_http_finalize_connection,
	// ngx_http_set_lingering_close), not the default server's.
	locLinger, locLingerEach time.Duration

	// idleSince is the sweep tick (plus one) at which the connection
	// began to wait for a request, 0 while it does not, idleAsked once
	// the sweeper asked it to park (idle.go).
	idleSince atomic.Int64
	// idleFrom is when the current wait for a request began; busy says
	// the last wait was shorter than busyGap.
	idleFrom time.Time
	busy     bool
	// waitUntil is the read deadline of the wait in progress (for a
	// request or for the rest of a header), which a parked connection's
	// timer keeps; zero for none.
	waitUntil time.Time
	// midHead says the connection parked in the middle of a request
	// header: c.head holds what has come, headStart where its current
	// line begins, headBufs where NGINX's buffers would hold it.
	midHead   bool
	headStart int
	headBufs  headBuffers
	// whole is where headBuffered found the end of a header that begins
	// the read buffer, for headAtOnce to take without searching again;
	// its n is 0 when there is none to take.
	whole headEnd
	// stat is the state c is counted in (stats.go).
	stat int8
	// refusedLine is the request line of a header being parsed, for
	// Server.Refused should the request be refused.
	refusedLine string
	lineWhole   bool // refusedLine came with its line end
	// refusedLen is the size of the header lines that came whole before
	// the one refused: NGINX's $request_length of a refused request,
	// which counts the lines it parsed.
	refusedLen int
	// refusedHeader and refusedHost are what NGINX had read of the
	// fields of a header being refused (see Refusal).
	refusedHeader http.Header
	refusedHost   string
	refusedAtEnd  bool
	// fields are the header lines of the request being served, after
	// its request line, as received (RequestLines). The connection holds
	// them, not the request's exchange, which every request allocates:
	// one request is served at a time.
	fields string
	// line is the request line of the request being served, as
	// received, where its parts joined by a space each do not give it
	// back (RequestLine); "" otherwise.
	line string
	// Parking (park_linux.go): the connection waits in the process's
	// epoll set with no goroutine; parkState says so, parkFD and parkSeq
	// name it there, parkTimer ends the wait at the keep-alive deadline.
	parkState atomic.Int32
	parkFD    int32
	parkSeq   uint32
	parkTimer *time.Timer
	// drained says the last read of the socket (connReader) came back
	// with less than it asked for: the socket held nothing more then, and
	// whatever comes after is an event to the parking set (awaitRequest).
	drained bool
}

func newConn(s *Server, rwc net.Conn) *conn {
	c := &conn{srv: s, rwc: rwc, lim: s.current(), rawFD: -1, accepted: time.Now()}
	c.shard = &s.watch.shards[watchShardOf.Add(1)%uint32(len(s.watch.shards))]
	c.cond.L = &c.shard.mu
	if a := rwc.RemoteAddr(); a != nil {
		c.remoteAddr = a.String()
		if a.Network() == "unix" {
			// A Unix-domain peer has no address (Go says "@" or ""):
			// NGINX's $remote_addr for it is "unix:".
			c.remoteAddr = "unix:"
		}
	}
	// A reader from the start, so that one is there for whoever reads
	// the connection first; the first wait for a request gives it back.
	c.br = readerPool.Get().(*bufio.Reader)
	c.br.Reset(connReader{c})
	c.initRaw()
	return c
}

// initRaw sets up the reads and writes straight on the socket of a plain
// connection; it does nothing for any other.
func (c *conn) initRaw() {
	if c.raw = rawConn(c.rwc); c.raw != nil {
		c.initRawWrite()
		c.rawWait = func(fd uintptr) bool {
			c.rawErr = c.readRaw(fd)
			return !wouldBlock(c.rawErr)
		}
		c.rawOnce = func(fd uintptr) bool {
			c.rawErr = c.readRaw(fd)
			return true
		}
	}
}

// connReader reads the connection for the buffered reader, first handing
// out a byte that a watch (or fill) read alone.
type connReader struct{ c *conn }

func (r connReader) Read(p []byte) (int, error) {
	c := r.c
	if c.has.Load() && len(p) > 0 {
		p[0] = c.one[0]
		c.has.Store(false)
		c.inBytes.Add(1)
		c.drained = false // the watch's read took one byte of more, maybe
		return 1, nil
	}
	var n int
	var err error
	if c.rawFD >= 0 {
		n, err = readFD(c.rawFD, p)
	} else {
		n, err = c.rwc.Read(p)
	}
	c.drained = n > 0 && n < len(p)
	if n > 0 {
		c.inBytes.Add(int64(n))
	}
	return n, err
}

// consumed is how many bytes of the connection the parser and the bodies
// have taken: those read less those still buffered. It is called by the
// goroutine that reads the connection at the time.
func (c *conn) consumed() int64 {
	n := c.inBytes.Load()
	if c.br != nil {
		n -= int64(c.br.Buffered())
	}
	return n
}

// Idle connections. An edge server holds many more connections waiting
// for a request (keep-alive, or a client still sending its header) than
// serving one, so a waiting connection holds no buffer, as NGINX frees
// its header buffer on a keep-alive connection: the read buffer (4 KB)
// and the header's (1 KB or more) come from pools when data arrives and
// go back when the connection waits again.
var (
	readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4<<10) }}
	headPool   = sync.Pool{New: func() any { b := make([]byte, 0, 1<<10); return &b }}
)

// fill makes sure the read buffer holds at least one byte, waiting for
// the client without a buffer if it has to. It releases the buffer
// while it waits on a plain connection; over TLS, the record layer
// cannot be asked whether a read would block, so there the buffer is
// released only between requests (awaitRequest) and kept while a header
// trickles in.
func (c *conn) fill() error {
	if c.br != nil {
		if c.br.Buffered() > 0 {
			return nil
		}
		if c.raw != nil && !c.has.Load() {
			return c.fillRaw() // readRaw reads into the empty buffer, or gives it back
		}
	} else if !c.has.Load() {
		if c.raw != nil {
			return c.fillRaw()
		}
		// One byte into the connection's own, and the rest through a
		// buffer taken after it.
		n, err := c.rwc.Read(c.one[:])
		if n == 0 {
			if err == nil {
				err = io.ErrNoProgress
			}
			return err
		}
		c.has.Store(true)
	}
	if c.br == nil {
		c.br = readerPool.Get().(*bufio.Reader)
		c.br.Reset(connReader{c})
	}
	_, err := c.br.Peek(1)
	return err
}

// fillRaw waits on the socket with no buffer and reads into one only when
// data has come: the first attempt reads at once (no more system calls
// than a plain read), and one that would block gives its buffer back
// before the goroutine parks. The read deadline applies as to any read.
func (c *conn) fillRaw() error {
	return c.rawRead(c.rawWait)
}

// tryRaw is fillRaw's first attempt alone: EAGAIN says nothing has come.
func (c *conn) tryRaw() error {
	return c.rawRead(c.rawOnce)
}

// rawRead runs the raw read f. A wait that ends before f has read (a
// deadline already past, a closed socket) gives back the empty buffer
// that readRaw would have read into.
func (c *conn) rawRead(f func(uintptr) bool) error {
	if err := c.raw.Read(f); err != nil {
		c.releaseReader()
		return err
	}
	return c.rawErr
}

// wouldBlock reports whether err says the socket has nothing yet
// (EAGAIN). The raw reads return the bare errno, which one comparison
// finds; errors.Is first asks reflection whether its target is
// comparable, about 140 instructions a call, and a kept connection's
// read that finds nothing after a response asked it twice.
func wouldBlock(err error) bool {
	return err == syscall.EAGAIN || err != nil && errors.Is(err, syscall.EAGAIN)
}

// readRaw reads the socket fd into the connection's read buffer, empty,
// or one from the pool, which it keeps unless the read would block
// (EAGAIN). The buffer the last request emptied is read into at once, not
// given back and taken again: a request that has already come costs the
// pool nothing, one still to come one round trip, as before.
func (c *conn) readRaw(fd uintptr) error {
	br := c.br
	if br == nil {
		br = readerPool.Get().(*bufio.Reader)
	}
	c.rawFD = int(fd)
	br.Reset(connReader{c})
	_, err := br.Peek(1)
	c.rawFD = -1
	if wouldBlock(err) {
		c.br = nil
		br.Reset(nil)
		readerPool.Put(br)
		return err
	}
	c.br = br
	return err
}

// releaseReader gives the read buffer back; nothing may be buffered.
func (c *conn) releaseReader() {
	if c.br != nil {
		c.br.Reset(nil)
		readerPool.Put(c.br)
		c.br = nil
	}
}

// releaseHead gives the header buffer back once the header is parsed (its
// text is copied) or refused. One that a large header grew is dropped.
func (c *conn) releaseHead() {
	if c.head != nil && cap(*c.head) <= 8<<10 {
		*c.head = (*c.head)[:0]
		headPool.Put(c.head)
	}
	c.head = nil
}

func (c *conn) closeIfIdle() {
	if c.state.CompareAndSwap(stateIdle, stateClosed) {
		// A parked connection needs a goroutine to end it; it is taken
		// out of the epoll set before its descriptor is closed.
		c.wake()
		closeAtOnce(c.rwc)
		_ = c.rwc.Close()
	}
}

// serverMark is the http.ServerContextKey value of http1's requests:
// handlers look for a server there before they abort a response with
// panic(http.ErrAbortHandler) (a body cut off upstream must not end as if
// complete), and find one.
var serverMark = &http.Server{}

func (c *conn) serve() {
	// Before the connection's context is made: a connection handed to
	// another protocol gets its context there.
	if tc, ok := c.rwc.(*tls.Conn); ok {
		c.armHandshake(tc)
		if c.srv.PlainHTTP && c.plainFirst(transport(tc)) {
			c.becomePlain(transport(tc))
		} else if !c.handshake(tc) {
			c.end()
			return
		}
	}
	s := c.srv
	ctx := context.WithValue(context.Background(), http.ServerContextKey, serverMark)
	ctx = context.WithValue(ctx, http.LocalAddrContextKey, &localAddr{Addr: c.rwc.LocalAddr()})
	if s.ConnContext != nil {
		ctx = s.ConnContext(ctx, c.rwc)
	}
	c.baseCtx = ctx
	c.loop(false)
}

// localAddr is the connection's address in its context
// (http.LocalAddrContextKey). Its text, which $server_addr and
// $server_port read for every request that uses them (FastCGI sends both),
// is made once per connection rather than twice per request.
type localAddr struct {
	net.Addr
	text atomic.Pointer[string]
}

func (a *localAddr) String() string {
	if s := a.text.Load(); s != nil {
		return *s
	}
	s := a.Addr.String()
	a.text.Store(&s)
	return s
}

// end is the end of a connection's goroutine, whichever it is.
func (c *conn) end() {
	// Shutdown waits for requests, not for a lingering close.
	c.srv.removeConn(c)
	if !c.hijacked {
		c.close()
	}
}

// handOver gives a connection that is to park to the epoll set, or to a
// fresh goroutine where there is none.
func (c *conn) handOver() {
	if !c.park() {
		go c.loop(true)
	}
}

// loop serves requests until the connection ends or parks (idle.go):
// then the epoll set, or a fresh goroutine, has it. waited says this
// goroutine was started for a parked connection, whose wait is armed.
func (c *conn) loop(waited bool) {
	parked := false
	defer func() {
		if !parked {
			c.end()
		}
	}()
	for {
		// A connection parked in the middle of a header resumes reading
		// it; any other waits for a request first.
		if !c.midHead {
			ok, park, at := c.awaitRequest(waited)
			if park {
				parked = true
				c.handOver()
				return
			}
			if !ok {
				return
			}
			if !c.state.CompareAndSwap(stateIdle, stateActive) {
				return // closed by Shutdown while the request arrived
			}
			if c.requests == 0 && c.tlsState == nil && c.lim.PriorKnowledge && c.srv.PriorKnowledge != nil && c.sawPreface() {
				c.handToHTTP2()
				return
			}
			if at.IsZero() {
				at = time.Now()
			}
			c.reqStart = at
			c.setStat(statReading)
		}
		waited = false
		keep, park := c.serveOne()
		if park {
			parked = true
			c.handOver()
			return
		}
		if !keep || c.hijacked {
			return
		}
		c.setStat(statWaiting)
		c.state.Store(stateIdle)
		if c.srv.closing.Load() {
			return
		}
	}
}

// awaitRequest waits for the first byte of the next request: for the
// first request within the header timeout, for later ones within the
// keep-alive timeout. A request already buffered (pipelined) is served
// at once. It reports whether a request has come, or that the
// connection is to park (idle.go). waited says the wait's deadline is
// armed already: the connection was parked.
//
// A connection that waits holds no buffer (fill). A busy connection (its
// last request came within busyGap) waits on its goroutine, and parks if
// the wait lasts; any other parks as soon as a read finds nothing, so
// that the stack its handler grew is given back at once.
//
// at is the clock's reading when the wait for a kept connection's next
// request ended, zero where none was made: the request starts then, so
// that one reading serves the busy test and $request_time's start (the
// loop takes it for reqStart with nothing between that waits).
func (c *conn) awaitRequest(waited bool) (ok, park bool, at time.Time) {
	c.lim = c.srv.current()
	// The last request's location no longer lingers or resets: a next
	// request refused before any location closes by the server's values,
	// as NGINX's refused request has the default server's configuration.
	c.locLinger, c.locLingerEach = 0, 0
	c.locReset = resetDefault
	if c.br != nil && c.br.Buffered() > 0 {
		return true, false, at
	}
	if c.raw == nil || waited {
		// (A plain connection's empty buffer is readRaw's to keep or give
		// back.)
		c.releaseReader()
	}
	if waited {
		err := c.waitIdle()
		at = c.woke(err, c.idleFrom)
		return c.firstByte(err), false, at
	}
	wait, now := c.lim.KeepAliveTimeout, c.lastWrite
	if now.IsZero() {
		now = time.Now()
	}
	if c.requests == 0 {
		// From the accept: NGINX arms its timer there and the TLS
		// handshake does not re-arm it, so the handshake and the first
		// header share one client_header_timeout.
		wait, now = c.lim.HeaderTimeout, c.accepted
	} else if !(c.drained && c.raw != nil && !c.busy) && c.srv.Stats.othersOpen() {
		// The client has only just been sent its response (at now): a
		// read now would mostly find nothing (EAGAIN), a system call for
		// nothing. Letting the other connections that are ready run
		// first, as an event loop does, gives the next request time to
		// arrive. With no other connection open there is nobody to let
		// run (the yield comes straight back, about 1,000 instructions
		// for nothing: fastcgi README, *The scheduler's parks*), and a
		// connection that parks without a read (drained, below) has no
		// read to delay.
		runtime.Gosched()
	}
	c.armRead(now, wait)
	c.idleFrom, c.waitUntil = now, c.armedDeadline()
	if c.raw == nil {
		// Over TLS the record layer may hold read-ahead: no parking.
		return c.firstByte(c.fill()), false, at
	}
	if c.requests > 0 && !c.busy && !c.has.Load() {
		if c.drained {
			// The last read emptied the socket: a read now would find
			// nothing unless the client has written since, and the epoll
			// set that the connection parks in is level-triggered, so it
			// reports at once whatever has come, an end of file included,
			// as NGINX reads only when its last read left the socket
			// ready. (The busy wait below reads first: Go's poller keeps
			// no RDHUP, so a FIN that came with the request would go
			// unseen, and RawConn.Read clears the readiness that came
			// before it, so a request would wait too, both until the idle
			// sweeper parked the connection: http1 README.)
			c.drained = false
			c.releaseReader()
			c.releaseResp()
			return false, true, at
		}
		err := c.tryRaw()
		if wouldBlock(err) {
			c.releaseResp()
			return false, true, at
		}
		c.busy = err == nil
		return c.firstByte(err), false, at
	}
	err := c.waitIdle()
	if errors.Is(err, errPark) {
		c.releaseResp()
		return false, true, at
	}
	at = c.woke(err, now)
	return c.firstByte(err), false, at
}

// woke sets busy once a wait for a request that began at since has ended
// with err, and returns the clock's reading it took, zero where it took
// none. Only the waits between requests tell a busy connection: a first
// request comes at once from any client.
func (c *conn) woke(err error, since time.Time) time.Time {
	if c.requests == 0 || err != nil {
		c.busy = false
		return time.Time{}
	}
	now := time.Now()
	c.busy = now.Sub(since) < busyGap
	return now
}

// http2Preface starts every HTTP/2 connection (RFC 9113 §3.4).
const http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// sawPreface reports whether the connection starts with HTTP/2's
// preface. As NGINX does, it waits for more bytes (within the header's
// deadline) only while those that came match the preface.
func (c *conn) sawPreface() bool {
	for n := 1; n <= len(http2Preface); n++ {
		b, err := c.br.Peek(n)
		if err != nil || b[n-1] != http2Preface[n-1] {
			return false
		}
	}
	return true
}

// handToHTTP2 gives the connection, its preface and whatever followed it
// unread, to Server.PriorKnowledge; it is no longer this server's.
func (c *conn) handToHTTP2() {
	read, _ := c.br.Peek(c.br.Buffered())
	pc := &replayConn{Conn: c.rwc, buf: bytes.Clone(read)}
	c.releaseReader()
	c.hijacked = true
	c.srv.removeConn(c)
	_ = c.rwc.SetDeadline(time.Time{}) // the deadlines are the other server's to set
	c.srv.PriorKnowledge(pc)
}

// replayConn is a connection whose first reads return buf.
type replayConn struct {
	net.Conn
	buf []byte
	// idleEnd is when the connection, idle, closes (see IdleUntil).
	idleEnd idleDeadline
}

func (c *replayConn) Write(p []byte) (int, error) {
	if c.idleEnd.passed() {
		return writeOnce(c.Conn, p) // the idle close's GOAWAY
	}
	return c.Conn.Write(p)
}

func (c *replayConn) Read(p []byte) (int, error) {
	if len(c.buf) > 0 {
		n := copy(p, c.buf)
		c.buf = c.buf[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// NetConn returns the connection underneath, as tls.Conn's does.
func (c *replayConn) NetConn() net.Conn { return c.Conn }

// busyGap is the longest wait for a request after which a connection
// still counts as busy (see awaitRequest).
const busyGap = 50 * time.Millisecond

// firstByte reports whether the wait for a request ended with data; a
// first request that never came is logged as NGINX logs it.
func (c *conn) firstByte(err error) bool {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		closeAtOnce(c.rwc)
		if c.requests == 0 {
			c.timedOut("waiting for request")
		}
	}
	return err == nil
}

// serveOne reads one request and runs the handler for it. It reports
// whether the connection may serve another, or that it is to park in the
// middle of the header (readHead).
func (c *conn) serveOne() (keep, park bool) {
	lim := c.lim
	if c.requests > 0 && lim.HeaderTimeout > 0 && !c.midHead && !c.headBuffered() {
		// The rest of the header must arrive within client_header_timeout.
		c.waitUntil = time.Now().Add(lim.HeaderTimeout)
		c.setRead(c.waitUntil)
	}
	x, req, err := c.readRequest()
	if x != nil {
		defer x.ctx.cancel()
	}
	if errors.Is(err, errPark) {
		c.releaseResp()
		return false, true
	}
	if err != nil {
		c.refuse(err)
		return false, false
	}
	c.requests++
	c.setStat(statWriting)

	w := &x.w
	*w = response{c: c, req: req, header: c.responseHeader(), cl: -1, sendTimeout: lim.WriteTimeout,
		reqHeadLen: int64(c.headLen), pipelined: c.pipelined, start: c.reqStart}
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
	c.fields, c.line = "", "" // a waiting connection keeps no request's header
	c.stopWatch()
	x.ctx.cancel()
	if w.hijacked {
		return false, false
	}
	if b != nil {
		b.closeForHandler()
		c.unread = !b.eof
	}
	if panicked {
		return false, false
	}
	w.finish()
	if w.closeAfter || c.gone || w.err != nil {
		c.writeTimedOut = errors.Is(w.err, os.ErrDeadlineExceeded)
		return false, false
	}
	if b != nil && !b.finish() {
		return false, false
	}
	c.unread = false
	// The next request is pipelined if it has begun to arrive already
	// ($pipe), as NGINX tells at the same point.
	c.pipelined = c.br != nil && c.br.Buffered() > 0
	return true, false
}

// respMem is what a connection's responses reuse: the header map,
// cleared for each request, the header being written and its fields.
// A connection that goes idle on a fresh goroutine gives it back to
// respPool (see awaitRequest); one under load keeps it.
type respMem struct {
	header http.Header
	hdr    []byte
	fields []header.Field // sorted for output
	// headNames are the header map's keys when the head was collected,
	// while they are few (response.headKeys says whether they are all).
	headNames [4]string
	// spell holds the names to send in place of the header map's keys
	// that differ from them in case alone (SpellFields); nil for none,
	// the usual case.
	spell []string
}

var respPool = sync.Pool{New: func() any { return new(respMem) }}

// responseHeader returns the connection's response header map, emptied.
// One map serves every response on the connection: a handler may not use
// its ResponseWriter, the header included, once it has returned (the
// net/http rule), and a map with its slots already allocated saves two
// allocations per request.
func (c *conn) responseHeader() http.Header {
	if c.mem == nil {
		c.mem = respPool.Get().(*respMem)
	}
	m := c.mem
	m.spell = nil
	if m.header == nil || len(m.header) > 32 {
		// A map one response grew large is not kept for the rest.
		m.header = make(http.Header, 8)
	} else {
		clear(m.header)
	}
	return m.header
}

// releaseResp gives the response memory back to the pool.
func (c *conn) releaseResp() {
	if c.mem != nil {
		respPool.Put(c.mem)
		c.mem = nil
	}
}

// close closes the connection, lingering first (see Server.Linger) when
// the client may still be sending.
func (c *conn) close() {
	closeQuietIfTimedOut(c.rwc)
	closeBounded(c.rwc)
	lim := c.lim
	// The watch's byte (has) is a request the client began: the rest of
	// it is still to come, as with bytes in the buffer, or in the socket
	// that nothing read (a request pipelined while the handler ran, the
	// watch not yet begun): NGINX lingers when its read event says bytes
	// came (read->ready).
	// After a send timeout NGINX finalizes the request as timed out and
	// closes at once, whatever the client still sends: unread bytes then
	// make the kernel reset the connection, as NGINX's close does.
	// A body read that timed out is finalized the same way (408, nothing
	// sent); a read a handler cut short with a past deadline (the proxy's,
	// when its upstream fails) is not, and lingers as NGINX's does.
	timedOut := c.writeTimedOut || c.bodyTimedOut.Load() || c.headTimedOut
	reset := lim.ResetTimedOut
	if c.locReset != resetDefault && !c.headTimedOut {
		reset = c.locReset == resetOn
	}
	if timedOut && reset || c.lingerCut {
		resetOnClose(c.rwc)
	}
	linger := !timedOut && !c.lingerCut && (lim.Linger == LingerAlways && c.requests > 0 ||
		lim.Linger == LingerOn && (c.unread || c.has.Load() || c.br != nil && c.br.Buffered() > 0 ||
			!c.gone && bytesWaiting(c.rwc)))
	if !linger || c.gone || closeWrite(c.rwc) != nil {
		_ = c.rwc.Close()
		return
	}
	l := c.lingerFrom(time.Now())
	buf := make([]byte, 4<<10)
	for {
		if !l.arm() {
			// Bytes came past lingering_time: NGINX closes without
			// reading them (ngx_http_lingering_close_handler), and the
			// kernel resets for what is left unread.
			resetOnClose(c.rwc)
			break
		}
		// A read that times out closes with a FIN: NGINX's lingering
		// close never counts its timer as the client's timeout.
		if _, err := c.rwc.Read(buf); err != nil {
			break
		}
	}
	_ = c.rwc.Close()
}

// lingering is a wait for what a client still sends, as NGINX's
// lingering_close and its discard of a body's rest after the response
// wait: lingering_timeout for each read, lingering_time in all.
type lingering struct {
	c *conn
	// end is when lingering_time runs out, in whole seconds of the Unix
	// clock as NGINX keeps it (ngx_time() + lingering_time / 1000).
	end   int64
	each  time.Duration
	armed bool
}

// lingerFrom starts a lingering wait on c at now.
func (c *conn) lingerFrom(now time.Time) *lingering {
	total, each := c.lim.LingerTime, c.lim.LingerTimeout
	if c.locLinger > 0 {
		total = c.locLinger
	}
	if c.locLingerEach > 0 {
		each = c.locLingerEach
	}
	if total <= 0 {
		total = 30 * time.Second
	}
	if each <= 0 {
		each = 5 * time.Second
	}
	return &lingering{c: c, end: now.Unix() + int64(total/time.Second), each: each}
}

// arm sets the read deadline for the next read as NGINX sets its timer:
// lingering_timeout, or the whole seconds left of lingering_time if
// fewer. It reports false, setting nothing, when lingering_time is over:
// bytes came after it (each read but the first follows bytes), and NGINX
// then closes without reading them. The first wait is a whole
// lingering_timeout, as NGINX's first timer. A read that fails for this
// deadline is NGINX's timer going off, the client's timeout, whether or
// not lingering_time shortened it.
func (l *lingering) arm() bool {
	now := time.Now()
	wait := l.each
	if l.armed {
		left := time.Duration(l.end-now.Unix()) * time.Second
		if left <= 0 {
			return false
		}
		wait = min(wait, left)
	}
	l.armed = true
	l.c.setRead(now.Add(wait))
	return true
}

// headBuffered reports whether a whole request header is already in the
// read buffer, so that no read has to wait for it.
func (c *conn) headBuffered() bool {
	buf, _ := c.br.Peek(c.br.Buffered())
	// Empty lines before the request line are skipped, as readHead skips
	// them: they end no header, and a client must not escape the header
	// timeout by sending some before a header it then trickles in.
	for {
		if len(buf) > 0 && buf[0] == '\n' {
			buf = buf[1:]
		} else if len(buf) > 1 && buf[0] == '\r' && buf[1] == '\n' {
			buf = buf[2:]
		} else {
			break
		}
	}
	skipped := len(buf) < c.br.Buffered()
	e := wholeHead(buf)
	if !skipped {
		// Nothing is read before readHead looks again (serveOne).
		c.whole = e
	}
	return e.n > 0
}

// headEnd is where a request header that a buffer begins with ends (see
// wholeHead).
type headEnd struct {
	line int // the request line's LF
	end  int // where the empty line that ends the header begins
	n    int // where that line ends; 0 when the buffer holds no whole header
}

// wholeHead finds the end of a request header that buf begins with. The
// first line is taken for the request line, empty or not.
func wholeHead(buf []byte) headEnd {
	// From line end to line end: a byte at a time, this was 2% of the
	// instructions of a small response.
	line := -1
	for at := 0; ; {
		i := bytes.IndexByte(buf[at:], '\n')
		if i < 0 {
			return headEnd{}
		}
		if line < 0 {
			line = i
		}
		at += i + 1
		switch rest := buf[at:]; {
		case len(rest) > 0 && rest[0] == '\n':
			return headEnd{line, at, at + 1}
		case len(rest) > 1 && rest[0] == '\r' && rest[1] == '\n':
			return headEnd{line, at, at + 2}
		}
	}
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

// exchange holds what serving one request allocates besides its header
// and the header's text, in one object: the response, the request's
// context, the parse's URL and header values, and the http.Request.
type exchange struct {
	w   response
	ctx requestCtx
	mem reqMem
	req http.Request
}

// Exchange is the memory this server uses for one request, which a
// Record holds.
type Exchange struct{ x exchange }

// Record is a server's own record of one request (Server.NewRecord),
// made when the request's header is whole, holding the request's
// Exchange so that both cost one allocation.
type Record interface {
	// Exchange returns the record's Exchange, zero.
	Exchange() *Exchange
	// Context returns the request's context, derived from the one the
	// server made for it (cancelled when the client goes away or the
	// handler returns).
	Context(context.Context) context.Context
}

// newExchange returns the memory for a request whose header is whole,
// in a new record when the server makes them, with the record.
func (c *conn) newExchange() (*exchange, Record) {
	var x *exchange
	var rec Record
	if c.srv.NewRecord != nil {
		rec = c.srv.NewRecord()
		x = &rec.Exchange().x
	} else {
		x = new(exchange)
	}
	x.ctx.Context = c.baseCtx
	return x, rec
}

// readRequest reads and parses the next request header. The exchange is
// nil when no header came whole.
func (c *conn) readRequest() (*exchange, *http.Request, error) {
	buf, err := c.readHead()
	if errors.Is(err, errPark) {
		return nil, nil, err // the header so far stays for the resumption
	}
	if err != nil && c.head != nil {
		so := string(*c.head)
		c.refusedLine, c.lineWhole = requestLine(so)
		c.refusedHeader, c.refusedHost = knownFields(so[:strings.LastIndexByte(so, '\n')+1], capOf(c.lim, c.tlsState))
	}
	head := string(buf) // every header value shares this copy
	c.releaseHead()
	if err != nil {
		return nil, nil, err
	}
	x, rec := c.newExchange()
	var r http.Request
	if err := parseHead(head, &r, &x.mem, capOf(c.lim, c.tlsState)); err != nil {
		c.refusedLine, c.lineWhole = requestLine(head)
		c.refusedLen = len(head)
		c.refusedHeader, c.refusedHost = r.Header, r.Host
		return x, nil, err
	}
	c.fields, c.line = fieldsOf(head), spacedLine(head, &r)
	r.RemoteAddr = c.remoteAddr
	r.TLS = c.tlsState
	r.Body = http.NoBody
	if r.ContentLength != 0 {
		r.Body = newBody(c, &r)
	}
	x.ctx.plainNames = !x.mem.oddNames
	var ctx context.Context = &x.ctx
	if rec != nil {
		ctx = rec.Context(ctx)
	}
	// WithContext is the only way to give a request its context, and it
	// makes a copy; inlined here, its copy stays on the stack and lands
	// in the exchange, which the request's URL and values already share:
	// one allocation a request fewer, with the same lifetime.
	x.req = *r.WithContext(ctx)
	req := &x.req
	if b, ok := req.Body.(*body); ok {
		b.req = req
	}
	return x, req, nil
}

// errLineTooLong, errFieldTooLong and errHeadTooLarge end a request
// whose header breaks the limits.
var (
	errLineTooLong  = &requestError{status: http.StatusRequestURITooLong, msg: "request line too long"}
	errFieldTooLong = &requestError{status: StatusHeaderTooLarge, msg: "header field too long"}
	errHeadTooLarge = &requestError{status: StatusHeaderTooLarge, msg: "request header too large"}
)

// headBuffers follows where NGINX would hold a header as it is read
// (ngx_http_alloc_large_header_buffer), so as to take what it takes: the
// header goes into a first buffer (client_header_buffer_size), and when
// a buffer is full in the middle of a line, that line's part moves to
// the start of a large buffer (large_client_header_buffers), where the
// header goes on; when it is full at a line's end, the next line starts
// a large buffer. A line part as long as a large buffer cannot move, nor
// any once all the large buffers are taken: the request line is then
// refused with 414, a field with 494. A header that fits the first
// buffer is taken whatever the large buffers' size, and lines pack whole
// into buffers: with "large_client_header_buffers 2 1k" three fields of
// 900 bytes fit (one in the first buffer with the request line), four
// of 600 do not.
type headBuffers struct {
	first, size, number int // the first buffer's size, the large ones', how many
	limit               int // where, in the header, the buffer being filled ends
	taken               int // the large buffers taken
	// skipped is where the empty lines before the request line leave
	// the first buffer's next byte: NGINX starts the buffer over when
	// they fill it.
	skipped int
}

func newHeadBuffers(lim *Limits) headBuffers {
	hb := headBuffers{first: lim.HeaderBufferBytes, size: lim.MaxLineBytes}
	if hb.first <= 0 {
		hb.first = 1 << 10
	}
	if hb.size <= 0 {
		hb.size = 8 << 10
	}
	maxHead := lim.MaxHeaderBytes
	if maxHead <= 0 {
		maxHead = 32 << 10
	}
	hb.number = max(maxHead/hb.size, 1)
	hb.limit = hb.first
	return hb
}

// skip accounts for an empty line of n bytes before the request line.
func (hb *headBuffers) skip(n int) {
	hb.skipped = (hb.skipped + n) % hb.first
	hb.limit = hb.first - hb.skipped
}

// hold accounts for n bytes of header (empty lines before the request
// line left out) whose current line begins at start, and tells how a
// header that does not fit is refused.
func (hb *headBuffers) hold(start, n int) error {
	for n > hb.limit {
		part := hb.limit - start // the line's bytes in the full buffer
		if part >= hb.size || hb.taken == hb.number {
			switch {
			case start == 0:
				return errLineTooLong
			case part >= hb.size:
				return errFieldTooLong
			}
			return errHeadTooLarge
		}
		hb.taken++
		hb.limit = start + hb.size
	}
	return nil
}

// readHead reads the request line and header fields up to the empty line
// that ends them, skipping empty lines before the request line. The
// result is valid until releaseHead, or, for a header already whole in
// the read buffer, until the connection is read again: that one is
// returned where it lies (headAtOnce), not copied into a header buffer
// from the pool (readRequest copies it into its string at once). Otherwise it takes what is
// buffered line by line and waits for more through fill, so that a
// header that trickles in holds only the header buffer while it waits
// (see fill). It holds no more of a header than NGINX's buffers would
// (headBuffers), and a byte.
func (c *conn) readHead() ([]byte, error) {
	if !c.midHead {
		c.headBufs = newHeadBuffers(c.lim)
		if head := c.headAtOnce(); head != nil {
			return head, nil
		}
	}
	if c.head == nil {
		c.head = headPool.Get().(*[]byte)
	}
	acc := (*c.head)[:0]
	start := 0 // where the current line begins in acc
	// began: the request has begun even with acc empty: empty lines were
	// skipped, or the read resumes one that parked (NGINX begins the
	// request at its first byte, and logs it when the read fails).
	began := c.midHead
	if c.midHead {
		// Resumed after parking: the header so far is in c.head.
		acc, start, c.midHead = *c.head, c.headStart, false
	}
	hb := &c.headBufs
	defer func() { *c.head = acc }()
	for {
		if err := c.fillHead(); err != nil {
			switch {
			case errors.Is(err, errPark):
				c.midHead, c.headStart = true, start
				return nil, err
			case errors.Is(err, os.ErrDeadlineExceeded):
				// Something came (awaitRequest waited for it), if only
				// empty lines: NGINX logs that as a request line.
				if start == 0 {
					return nil, errLineTimeout
				}
				return nil, errHeaderTimeout
			case len(acc) == 0 && !began:
				return nil, err
			case errors.Is(err, io.EOF):
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		buf, _ := c.br.Peek(min(c.br.Buffered(), hb.limit-len(acc)+1))
		end := bytes.IndexByte(buf, '\n')
		if end >= 0 {
			buf = buf[:end+1]
		}
		acc = append(acc, buf...)
		_, _ = c.br.Discard(len(buf))
		line := acc[start:]
		empty := end >= 0 && (len(line) == 1 || len(line) == 2 && line[0] == '\r')
		if !empty || start > 0 {
			// An empty line before the request line is skipped instead.
			if err := hb.hold(start, len(acc)); err != nil {
				c.refusedLen = start
				return nil, err
			}
		}
		if end < 0 {
			continue // the line goes on in what is still to come
		}
		if empty {
			if start == 0 {
				hb.skip(len(line))
				acc = acc[:0] // an empty line before the request line
				began = true
				continue
			}
			c.headLen = len(acc)
			return acc[:start], nil
		}
		if start == 0 && bytes.Count(acc, []byte(" ")) < 2 {
			// A request line without a version: HTTP/0.9's, which has no
			// header to wait for. NGINX answers it; mosaic refuses it at
			// once rather than hold the connection until the header
			// timeout.
			c.headLen = len(acc)
			return acc, nil
		}
		start = len(acc)
	}
}

// headAtOnce takes a header that is already whole in the read buffer, the
// common case, in one piece where readHead's loop would take it a line at
// a time, when the loop would take it the same way: a fresh read, no empty
// line before the request line, a request line with a version, and the
// whole within the first header buffer, so that no line can overflow one.
// It returns the header up to its empty line, in the read buffer (valid
// until the next read), the whole header discarded from it; nil when the
// loop is to read it.
func (c *conn) headAtOnce() []byte {
	e := c.whole
	c.whole = headEnd{}
	if c.br == nil || c.br.Buffered() == 0 {
		return nil
	}
	buf, _ := c.br.Peek(c.br.Buffered())
	if buf[0] == '\n' || buf[0] == '\r' {
		return nil
	}
	if e.n == 0 || e.n > len(buf) {
		// Not searched since the last read (a first request, or one whose
		// wait had no header timeout to arm).
		e = wholeHead(buf)
	}
	if e.n == 0 || e.n > c.headBufs.limit {
		return nil
	}
	if bytes.Count(buf[:e.line], []byte(" ")) < 2 {
		return nil // HTTP/0.9's line: the loop takes it alone
	}
	_, _ = c.br.Discard(e.n)
	c.headLen = e.n
	return buf[:e.end]
}

// fillHead is fill for a header being read: on a plain connection with
// nothing buffered it waits as an idle connection does, and so parks when
// the header trickles in slowly (errPark; readHead keeps what has come).
func (c *conn) fillHead() error {
	if c.raw == nil || c.br != nil && c.br.Buffered() > 0 || c.has.Load() {
		return c.fill()
	}
	return c.waitIdle()
}

// A header not whole within HeaderTimeout (client_header_timeout) ends
// the connection without an answer, as NGINX 1.22 ends it: its
// documentation speaks of a 408, which goes to the access log, but the
// client gets nothing, only the end of the connection (checked against
// Debian's nginx: a partial request line or header, and nothing at all,
// are each met with the connection's close, the first two logged at info
// as "client timed out ... while reading client request line/headers",
// the last "while waiting for request").
type timeoutError struct{ while string }

func (e *timeoutError) Error() string { return "client timed out while " + e.while }

var (
	errLineTimeout   = &timeoutError{"reading client request line"}
	errHeaderTimeout = &timeoutError{"reading client request headers"}
)

// timedOut logs a header timeout as NGINX does, at info.
func (c *conn) timedOut(while string) {
	c.srv.logger().Info("client timed out", "client", c.remoteAddr, "while", while)
}

// refuse answers a request that cannot be served and closes. A client
// that went away or timed out before sending a whole header gets nothing;
// its request is reported all the same, as NGINX logs it.
func (c *conn) refuse(err error) {
	line, whole, reqLen := c.refusedLine, c.lineWhole, c.refusedLen
	c.refusedLine, c.lineWhole, c.refusedLen = "", false, 0
	// NGINX knows the method of a request line it read whole and valid,
	// and none of one it refused or did not get whole: $request_method is
	// then empty. Its parser has taken a method in once a space ended it,
	// though, whatever comes after: a HEAD's page is its header alone.
	req := &http.Request{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{}}
	parsed := whole && !errors.Is(err, errLineTooLong)
	if parsed {
		_, lineErr := parseLine(line, req)
		parsed = lineErr == nil
	}
	if !parsed {
		req.Method, req.RequestURI = "", ""
		req.Proto, req.ProtoMajor, req.ProtoMinor = "HTTP/1.1", 1, 1
		// NGINX counts no line it did not parse, and reads no field
		// after it.
		reqLen = 0
		c.refusedHeader, c.refusedHost = nil, ""
	}
	method := req.Method
	if method == "" && strings.HasPrefix(line, "HEAD ") {
		req.Method = http.MethodHead
	}
	var te *timeoutError
	if errors.As(err, &te) {
		c.headTimedOut = true
		c.timedOut(te.while)
		c.report(http.StatusRequestTimeout, line, method, nil)
		return
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
		// The client closed (or reset) the connection in the middle of
		// its header: NGINX still finalizes the request it began at the
		// first byte, with 400 and nothing sent, so the access log has
		// its line. A reset is a failed recv() to NGINX.
		msg := "client prematurely closed connection"
		if errors.Is(err, syscall.ECONNRESET) {
			msg = "recv() failed (104: Connection reset by peer)"
		}
		c.srv.logger().Info(msg, "client", c.remoteAddr, "while", "reading client request headers")
		c.report(http.StatusBadRequest, line, method, nil)
		return
	}
	var re *requestError
	if !errors.As(err, &re) {
		return
	}
	c.unread = true // the rest of what the client sent is not read
	c.srv.logger().Info("client sent invalid request", "client", c.remoteAddr, "error", re.msg)
	w := &response{c: c, req: req, header: c.responseHeader(), cl: -1, sendTimeout: c.lim.WriteTimeout,
		reqHeadLen: int64(reqLen), start: c.reqStart, closeAfter: true}
	c.refusedAtEnd = re.atEnd
	c.report(re.status, line, method, w)
	if !w.wroteHeader {
		status := re.status
		if status == StatusHeaderTooLarge {
			status = http.StatusBadRequest
		}
		page := refusalPage(re.status)
		w.header["Content-Type"] = []string{"text/html"}
		w.header["Content-Length"] = []string{strconv.Itoa(len(page))}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, page)
	}
	w.finish()
	// An answer that ran past its send timeout has the client timed out,
	// as a served request's (serveOne): NGINX frees the refused request
	// as timed out, and resets under reset_timedout_connection.
	c.writeTimedOut = errors.Is(w.err, os.ErrDeadlineExceeded)
}

// report tells Server.Refused of a request that ended before its
// handler; method is that of a valid request line, answer the response
// it may write, nil for a request that gets none.
func (c *conn) report(status int, line, method string, answer *response) {
	fields, host, atEnd := c.refusedHeader, c.refusedHost, c.refusedAtEnd
	c.refusedHeader, c.refusedHost, c.refusedAtEnd = nil, "", false
	f := c.srv.Refused
	if f == nil {
		return
	}
	rf := &Refusal{Status: status, Line: line, Method: method, Header: fields, Host: host, AtEnd: atEnd,
		TLS: c.tlsState, Start: c.reqStart, RemoteAddr: c.remoteAddr, Context: c.baseCtx}
	if answer != nil {
		rf.Answer = answer
	}
	defer func() {
		// The callback may run a whole handler chain (error_page): a panic
		// there ends this connection, as a handler's does, not the process.
		if v := recover(); v != nil {
			c.srv.logger().Error(fmt.Sprintf("panic serving refused request of %s: %v\n%s", c.remoteAddr, v, debug.Stack()))
		}
	}()
	f(rf)
}

// requestLine is the first line of a header read so far, without its
// line end: what NGINX logs as $request for a request it refused; whole
// says the line end had come.
func requestLine(head string) (line string, whole bool) {
	if i := strings.IndexByte(head, '\n'); i >= 0 {
		head, whole = head[:i], true
	}
	return strings.TrimSuffix(head, "\r"), whole
}

// refusalPage is NGINX's page for code (its own 494 and 497 included,
// which go out as 400).
func refusalPage(code int) string {
	page, _ := reason.Page(code)
	return page
}

// writeRefusal sends the error page for code (NGINX's 497) on nc, a
// connection that is not HTTP's yet (plain HTTP on a TLS port), and says
// that the connection closes.
func writeRefusal(nc net.Conn, code int) {
	page := refusalPage(code)
	msg := fmt.Sprintf("%sContent-Type: text/html\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		statusLine(http.StatusBadRequest), len(page), page)
	_ = nc.SetWriteDeadline(time.Now().Add(5 * time.Second)) // the connection closes after
	_, _ = io.WriteString(nc, msg)
}
