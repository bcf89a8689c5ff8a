package http1

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"net/textproto"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mosaic-edge/mosaic/internal/chunked"
	"github.com/mosaic-edge/mosaic/internal/header"
)

var errBodyClosed = errors.New("http: invalid Read on closed Body")

// body is a request body: length-delimited (remain bytes left) or chunked.
type body struct {
	c      *conn
	w      *response
	req    *http.Request
	remain int64           // bytes left of a length-delimited body
	chunks *chunked.Reader // the chunked decoder, for a chunked body
	expect bool            // a 100 Continue is owed before the first read
	// unread is what the response's header needs to know, whichever
	// goroutine reads the body: the bytes left of a length-delimited body
	// that has not been read yet (-1 chunked), whether the client still
	// waits for 100 Continue, and whether a read failed.
	unread    atomic.Int64
	expecting atomic.Bool
	failed    atomic.Bool
	eof       bool
	start     int64        // the connection's consumed bytes where the body begins
	read      atomic.Int64 // the body's bytes taken from the connection, framing included
	err       error        // a read error, returned again by later reads
	closed    bool         // the handler returned
	// mu serialises reads, and the end of the handler's use of the body
	// with a read still running in another goroutine.
	mu sync.Mutex
}

// bytesRead is how much of the connection the body has taken so far, as
// NGINX counts a body in $request_length: with a chunked body's framing.
// It does not wait for a read under way in another goroutine.
func (b *body) bytesRead() int64 { return b.read.Load() }

func newBody(c *conn, r *http.Request) *body {
	b := &body{c: c, remain: r.ContentLength, start: c.consumed()}
	if r.ContentLength < 0 {
		b.chunks = chunked.NewReader(c.br)
		if tr := r.Header["Trailer"]; len(tr) > 0 {
			r.Trailer = http.Header{}
			for _, v := range tr {
				for _, k := range strings.Split(v, ",") {
					if k = strings.TrimSpace(k); k != "" {
						r.Trailer[textproto.CanonicalMIMEHeaderKey(k)] = nil
					}
				}
			}
		}
	}
	b.expect = r.ProtoMinor > 0 && header.HasToken(r.Header["Expect"], "100-continue")
	b.expecting.Store(b.expect)
	b.unread.Store(r.ContentLength)
	return b
}

func (b *body) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, errBodyClosed
	}
	return b.readLocked(p)
}

// readLocked is Read past the check that the handler still owns the body;
// b.mu is held.
func (b *body) readLocked(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.eof {
		return 0, io.EOF
	}
	if b.expect {
		b.expect = false
		b.w.sendContinue()
	}
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var err error
	if b.chunks == nil {
		if int64(len(p)) > b.remain {
			p = p[:b.remain]
		}
		n, err = b.c.br.Read(p)
		b.remain -= int64(n)
		b.unread.Store(b.remain)
		if b.remain == 0 {
			err = io.EOF
		} else if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
	} else {
		n, err = b.chunks.Read(p)
		if err == io.EOF {
			err = b.readTrailer()
		}
	}
	b.read.Store(b.c.consumed() - b.start)
	switch {
	case err == io.EOF:
		b.eof = true
		b.unread.Store(0)
		b.c.bodyRead()
	case err != nil:
		b.err = err
		b.failed.Store(true)
	}
	return n, err
}

// readTrailer reads the trailer section after the last chunk, keeping
// the fields the request declared in its Trailer header.
func (b *body) readTrailer() error {
	max := b.c.lim.MaxHeaderBytes
	if max <= 0 {
		max = 32 << 10
	}
	size := 0
	for {
		line, err := b.c.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return errors.New("http: trailer line too long")
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		if size += len(line); size > max {
			return errors.New("http: trailer too large")
		}
		s, _ := header.CutLine(string(line))
		if s == "" {
			return io.EOF
		}
		name, value, ok := strings.Cut(s, ":")
		if !ok || !header.IsToken(name) {
			return errors.New("http: malformed trailer line")
		}
		value = header.TrimOWS(value)
		if !validValue(value) {
			return errors.New("http: invalid trailer value")
		}
		name = textproto.CanonicalMIMEHeaderKey(name)
		if vs, declared := b.req.Trailer[name]; declared {
			b.req.Trailer[name] = append(vs, value)
		}
	}
}

func (b *body) Close() error { return nil }

// LimitBody fails a chunked body's read with *http.MaxBytesError once a
// chunk's size line announces more than max bytes in all
// (client_max_body_size): NGINX answers 413 then, before the chunk's
// data, where a limit on the bytes read would wait for them. A
// length-delimited body's limit is its Content-Length's business.
func (b *body) LimitBody(max int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.chunks != nil {
		b.chunks.Limit(max)
	}
}

// arrived reports whether the whole of a chunked body that nothing has
// read yet is in the connection's buffer, its last chunk and trailer
// included: it came with the head, as NGINX's first read of a body finds
// it whole (see response.BodyArrived).
func (b *body) arrived() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.chunks == nil || b.closed || b.read.Load() != 0 || b.expect {
		return false
	}
	buf, _ := b.c.br.Peek(b.c.br.Buffered())
	return chunked.Complete(buf)
}

// keepable reports whether the connection can outlive what is left of
// the body: not if a client waiting for 100 Continue may or may not send
// it, nor if more is left than is worth reading to drop it, nor once a
// read failed (bad framing, a chunk over the limit: where the next
// request would start is unknown). The response then says
// "Connection: close", as NGINX's 400 or 413 does.
func (b *body) keepable() bool {
	return !b.expecting.Load() && !b.failed.Load() && b.unread.Load() <= maxDrain
}

// closeForHandler ends the handler's use of the body. A read that a
// goroutine of the handler's left running is woken (it fails, and the
// connection closes after the response), so that nothing reads the
// connection beside the server from here on.
func (b *body) closeForHandler() {
	if !b.mu.TryLock() {
		b.c.setRead(aLongTimeAgo)
		b.mu.Lock()
	}
	b.closed = true
	b.mu.Unlock()
}

// finish reads and drops what the handler left of the body, up to
// maxDrain, so that the connection can serve the next request. It
// reports whether the connection may stay open.
func (b *body) finish() bool {
	if b.eof {
		return true
	}
	if b.err != nil || !b.keepable() {
		return false
	}
	// NGINX discards the rest after the response
	// (ngx_http_discarded_request_body_handler) waiting lingering_timeout
	// for each read and lingering_time in all; a client that stops within
	// it has timed out, and its connection closes as one whose body timed
	// out (reset under reset_timedout_connection), not after
	// keepalive_timeout. Bytes that come after lingering_time make NGINX
	// close without reading them, a reset whatever
	// reset_timedout_connection says.
	l := b.c.lingerFrom(time.Now())
	// The body stays closed to the handler while it drains: a goroutine
	// the handler left reading gets errBodyClosed, not the bytes.
	n, err := io.CopyN(io.Discard, drainReader{b, l}, maxDrain+1)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		b.c.bodyTimedOut.Store(true)
	case errors.Is(err, errLingerOver):
		b.c.lingerCut = true
	}
	return n <= maxDrain && err == io.EOF
}

// errLingerOver is a drain's read after lingering_time ran out.
var errLingerOver = errors.New("lingering_time is over")

// drainReader reads a body closed to its handler, for finish, each read
// within the lingering wait l.
type drainReader struct {
	b *body
	l *lingering
}

func (d drainReader) Read(p []byte) (int, error) {
	d.b.mu.Lock()
	defer d.b.mu.Unlock()
	if !d.l.arm() {
		return 0, errLingerOver
	}
	return d.b.readLocked(p)
}
