package proxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mosaic-edge/mosaic/internal/gateway"
	"github.com/mosaic-edge/mosaic/internal/rawsock"
)

// maxHeaderBytes bounds an upstream response header; more is answered
// with 502 ("upstream sent too big header").
const maxHeaderBytes = 64 << 10

// errHeaderTooBig is the gateways' own (a Wire's ReadResponse returns it
// for a head over its limit), so that the log says so for them too.
var errHeaderTooBig = gateway.ErrHeaderTooBig

var (
	readerPool sync.Pool // *bufio.Reader
	writerPool sync.Pool // *bufio.Writer
)

// conn is one connection to an upstream server. A request owns it from
// dial or pool checkout until it goes back to the pool or is closed.
type conn struct {
	dc   *deadlineConn
	nc   net.Conn // dc, or a TLS client over dc
	br   *bufio.Reader
	bw   *bufio.Writer
	peer *peer
	id   connID // what it was opened for; the idle pool matches it

	requests  int       // requests begun on this connection
	opened    time.Time // when it was made, for keepalive_time
	idleSince time.Time // when it last went into the pool
	nread     int64     // bytes read since the current request began
	reads     int       // calls of Read, each a wait the clock may have moved in
	limit     int       // bytes the response header may still take; -1: no limit
	// nsent counts the bytes written through bw since the current
	// request began ($upstream_bytes_sent); the body's goroutine adds
	// to it while the response is read.
	nsent atomic.Int64
	// rc is the socket under dc, nil if there is none; probe is probeFD,
	// made once; silent is its answer.
	rc       syscall.RawConn
	probe    func(fd uintptr)
	abortFn  func() // abort, made once: the function a request's end runs
	probeBuf [1]byte
	silent   bool
	// head copies what is read while recording: the response head, read
	// again when net/http refuses its Transfer-Encoding (see coding.go).
	head      []byte
	recording bool
	// sr is dc's socket where it writes and then reads in one wait, nil
	// otherwise. holding makes the next Write, a request's last, held
	// for the first Read to make (hold); held is that write, and
	// heldErr what failed it.
	sr      writeReader
	holding bool
	held    []byte
	heldErr error
}

// writeReader is a socket that writes a request and reads its answer
// without a read that finds nothing (rawsock.Conn.WriteRead).
type writeReader interface {
	WriteRead(w, p []byte) (wn, rn int, err error)
}

func newConn(dc *deadlineConn, nc net.Conn, p *peer, id connID) *conn {
	c := &conn{dc: dc, nc: nc, peer: p, id: id, limit: -1, opened: time.Now()}
	c.probe, c.abortFn = c.probeFD, c.abort
	if sc, ok := dc.Conn.(syscall.Conn); ok {
		c.rc, _ = sc.SyscallConn()
	}
	if nc == net.Conn(dc) { // TLS reads records, not the answer's bytes
		c.sr, _ = dc.Conn.(writeReader)
	}
	if v, ok := readerPool.Get().(*bufio.Reader); ok {
		v.Reset(c)
		c.br = v
	} else {
		c.br = bufio.NewReader(c)
	}
	if v, ok := writerPool.Get().(*bufio.Writer); ok {
		v.Reset(c)
		c.bw = v
	} else {
		c.bw = bufio.NewWriter(c)
	}
	return c
}

// Read is what c.br reads through: it counts bytes, so that a failure can
// tell a stale keepalive connection (nothing read) from a broken response,
// and enforces the header size limit.
func (c *conn) Read(p []byte) (int, error) {
	if c.limit >= 0 {
		if c.limit == 0 {
			return 0, errHeaderTooBig
		}
		if len(p) > c.limit {
			p = p[:c.limit]
		}
	}
	var n int
	var err error
	if c.held != nil {
		n, err = c.sendAndRead(p)
	} else {
		n, err = c.nc.Read(p)
	}
	c.nread += int64(n)
	c.reads++
	if c.recording {
		c.head = append(c.head, p[:n]...)
	}
	if c.limit >= 0 {
		c.limit -= n
	}
	return n, err
}

// Write is what c.bw writes through: it counts the bytes sent, after TLS
// has been taken off as NGINX counts them.
func (c *conn) Write(p []byte) (int, error) {
	if c.holding {
		c.holding = false
		c.held = p
		return len(p), nil
	}
	n, err := c.nc.Write(p)
	c.nsent.Add(int64(n))
	return n, err
}

// begin prepares c for a request with the handler's timeouts. Reads wait
// without a deadline until the request is sent (see deadlineConn.arm):
// a request whose body goes out while the response may already be read
// (streamed) has its reads untimed until then, while without one the
// read deadline that the previous request left stays in place until
// arm, before any read, renews it.
//
// now is a time just read. A request without a body is written at once,
// by the caller: its first write takes now for the time its deadline is
// set from rather than reading the clock again.
func (c *conn) begin(read, send time.Duration, streamed bool, now time.Time) {
	c.dc.read, c.dc.send = read, send
	c.dc.armed.Store(false)
	if streamed || read <= 0 {
		c.dc.untimeReads()
	}
	c.dc.clock = time.Time{}
	if !streamed {
		c.dc.clock = now
	}
	c.nread = 0
	c.heldErr = nil
	c.nsent.Store(0)
	c.requests++
}

// flush writes what c.bw holds, the whole request, whose answer is read
// next on this goroutine. Where the socket can (c.sr), the write is held
// for the first Read to make with its wait (sendAndRead): NGINX, told by
// its event loop when the answer comes, makes no read before it, and
// Go's poller needs one unless the write is made within the read. The
// bytes held stay in c.bw's buffer, which nothing writes to before the
// answer is read. An error of the held write is the send's: c.heldErr.
func (c *conn) flush() error {
	c.holding = c.sr != nil
	err := c.bw.Flush()
	c.holding = false
	return err
}

// sendAndRead writes the held request and reads the first of its answer
// into p, in one wait where the socket took the request whole, or else
// after writing the rest the ordinary way.
func (c *conn) sendAndRead(p []byte) (int, error) {
	w := c.held
	c.held = nil
	wn, n, err := c.dc.writeRead(c.sr, w, p)
	c.nsent.Add(int64(wn))
	if wn == len(w) {
		return n, err
	}
	if err == nil {
		n, err = c.dc.Write(w[wn:])
		c.nsent.Add(int64(n))
	}
	if err != nil {
		c.heldErr = err
		return 0, err
	}
	return c.dc.Read(p)
}

// alive reports whether an idle connection is still open and silent: the
// server has not closed it and sent nothing unasked. The check reads the
// TCP socket without blocking, after what TLS holds already.
func (c *conn) alive() bool {
	if c.br.Buffered() > 0 {
		return false
	}
	if tc, ok := c.nc.(*tls.Conn); ok && !c.tlsSilent(tc) {
		return false
	}
	if c.rc == nil {
		return true // not a socket (a test's pipe): its use will tell
	}
	// One read that cannot wait: a deadline in the past would not do, as
	// the poller then fails the read before trying it.
	c.silent = false
	if c.rc.Control(c.probe) != nil {
		return false
	}
	return c.silent
}

// tlsSilent reports whether tc holds nothing to read: TLS reads the socket
// by the segment, so a record that came with the response's last one (a
// stray answer, a close_notify) waits in tc, where the socket's probe
// cannot see it. A read with a deadline already past returns such a
// record without touching the socket, and otherwise times out, which
// leaves tc usable. The read goes around deadlineConn's timing, whose
// deadline it must not move.
func (c *conn) tlsSilent(tc *tls.Conn) bool {
	c.dc.armed.Store(false)
	c.dc.untimeReads()
	_ = c.dc.Conn.SetReadDeadline(time.Unix(1, 0))
	n, err := tc.Read(c.probeBuf[:])
	_ = c.dc.Conn.SetReadDeadline(time.Time{})
	return n == 0 && isTimeout(err)
}

// abort closes the socket under c so that any goroutine blocked on it
// returns; c's buffers stay in place until close.
func (c *conn) abort() {
	_ = c.dc.Conn.Close()
}

// close closes the connection and recycles its buffers. Only the owner
// calls it, once no other goroutine uses c.
func (c *conn) close() {
	c.abort()
	c.held = nil // c.bw's buffer, which goes back to the pool
	if c.br != nil {
		c.br.Reset(nil)
		readerPool.Put(c.br)
		c.bw.Reset(nil)
		writerPool.Put(c.bw)
		c.br, c.bw = nil, nil
	}
}

// deadlineConn turns the proxy's timeouts into socket deadlines: each Read
// may wait ReadTimeout for data and each Write SendTimeout for progress, so
// the limits apply between successive operations, not to the whole
// response, as NGINX's proxy_read_timeout and proxy_send_timeout do.
//
// A deadline is moved only when it was set for another timeout or longer
// ago than a tenth of it, as http1's are (http1/deadline.go): setting one
// modifies a runtime timer, which several times per request is a few
// percent of a small response's CPU. A wait still gets 0.9 to 1 times its
// timeout, as with NGINX's timers, which are approximate too.
type deadlineConn struct {
	net.Conn
	read, send time.Duration
	armed      atomic.Bool // reads are timed: the request has been sent
	// clock, when set, is a time just read, which the next Write takes
	// for now (see conn.begin).
	clock time.Time
	// rd is the read deadline as set last, by Read or arm (which the body's
	// goroutine may call while a Read waits); wd the write deadline, which
	// only the goroutine writing at the time uses.
	mu sync.Mutex
	rd deadline
	wd deadline
}

// deadline is a deadline the connection set: timeout from at; the zero
// deadline is none.
type deadline struct {
	timeout time.Duration
	at      time.Time
}

// fresh reports whether the deadline is for timeout and recent enough to
// stand for one set now.
func (l deadline) fresh(now time.Time, timeout time.Duration) bool {
	return l.timeout == timeout && now.Sub(l.at) < timeout/10
}

func (d *deadlineConn) Read(p []byte) (int, error) {
	if d.read > 0 && d.armed.Load() {
		if err := d.timeReads(time.Now()); err != nil {
			return 0, err
		}
	}
	return d.Conn.Read(p)
}

func (d *deadlineConn) Write(p []byte) (int, error) {
	if d.send > 0 {
		now := d.clock
		if now.IsZero() {
			now = time.Now()
		} else {
			d.clock = time.Time{}
		}
		if !d.wd.fresh(now, d.send) {
			if err := d.Conn.SetWriteDeadline(now.Add(d.send)); err != nil {
				return 0, err
			}
			d.wd = deadline{d.send, now}
		}
	}
	return d.Conn.Write(p)
}

// writeRead writes w and reads into p through sr, its socket, in one
// wait, the read timed as Read times it. The write does not wait, so it
// takes no deadline. The clock begin left for the request's first write
// is taken by the read instead, whose deadline it dates (as NGINX arms
// its read timer with its event loop's time, read before the request
// was made, not after the send): one clock read fewer a request. No later
// Write (the rest of w, an upgraded connection's tunnel) takes that time.
func (d *deadlineConn) writeRead(sr writeReader, w, p []byte) (int, int, error) {
	now := d.clock
	d.clock = time.Time{}
	if d.read > 0 && d.armed.Load() {
		if now.IsZero() {
			now = time.Now()
		}
		if err := d.timeReads(now); err != nil {
			return 0, 0, err
		}
	}
	return sr.WriteRead(w, p)
}

// arm starts the read timeout once the request is sent; a read already
// waiting (a body sent while the response may come) picks up the new
// deadline.
func (d *deadlineConn) arm() {
	d.armed.Store(true)
	d.refreshReads()
}

// armIdle is arm where no read is waiting: the next Read sets the
// deadline, which a clock read and a lock here would only repeat.
func (d *deadlineConn) armIdle() {
	d.armed.Store(true)
}

// timeReads sets the read deadline to the read timeout from now, a time
// just read, unless the one in place is fresh.
func (d *deadlineConn) timeReads(now time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.rd.fresh(now, d.read) {
		return nil
	}
	if err := d.Conn.SetReadDeadline(now.Add(d.read)); err != nil {
		return err
	}
	d.rd = deadline{d.read, now}
	return nil
}

// refreshReads moves the read deadline to the read timeout from now, as
// timeReads, when reads are timed at all.
func (d *deadlineConn) refreshReads() {
	if d.read > 0 {
		_ = d.timeReads(time.Now())
	}
}

// untimeReads lifts the read deadline, if one is set.
func (d *deadlineConn) untimeReads() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.rd != (deadline{}) {
		_ = d.Conn.SetReadDeadline(time.Time{})
		d.rd = deadline{}
	}
}

// dialAddr returns the network and address to dial for a peer's address,
// which is "unix:/path" for a Unix-domain socket (as $upstream_addr shows
// it) or host:port.
func dialAddr(addr string) (network, address string) {
	if hasPrefixFold(addr, "unix:") {
		return "unix", addr[len("unix:"):]
	}
	return "tcp", addr
}

// dial opens a new connection to p for id within the connect timeout,
// which also covers the TLS handshake.
func (h *Handler) dial(ctx context.Context, p *peer, id connID) (*conn, error) {
	network, address := dialAddr(p.addr)
	d := h.dialer(network, id.sock)
	raw, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	dc := &deadlineConn{Conn: rawsock.Wrap(raw), send: h.sendTimeout}
	var nc net.Conn = dc
	if id.tls != nil {
		tc := tls.Client(dc, id.tls.config(id.name))
		hctx, cancel := context.WithTimeout(ctx, h.connectTimeout)
		err := tc.HandshakeContext(hctx)
		cancel()
		if err != nil {
			_ = raw.Close()
			return nil, fmt.Errorf("TLS handshake: %w", err)
		}
		nc = tc
	}
	return newConn(dc, nc, p, id), nil
}
