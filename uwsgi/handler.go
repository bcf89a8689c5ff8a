package uwsgi

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// DefaultTimeout is NGINX's default uwsgi_connect_timeout,
// uwsgi_send_timeout and uwsgi_read_timeout.
const DefaultTimeout = 60 * time.Second

// Handler is a net/http handler that passes every request to one
// application server over a new connection, streaming the request body
// to it and its answer back. It is the uwsgi gateway without the server's
// upstream groups (which the server gets from the proxy package with
// Wire): NGINX's status mapping (502 when the application cannot be
// reached or answers garbage, 504 when it is too slow) and its timeouts.
type Handler struct {
	// Network and Address are what to dial: "tcp" and "127.0.0.1:3031",
	// or "unix" and "/run/app.sock".
	Network, Address string
	// Wire encodes the requests; the zero Wire sends CGIVars.
	Wire Wire
	// ConnectTimeout bounds the dial; SendTimeout is the longest a write
	// may wait, ReadTimeout a read once the request is sent. 0 means
	// DefaultTimeout.
	ConnectTimeout, SendTimeout, ReadTimeout time.Duration
	// Logger receives the failures; nil means slog.Default().
	Logger *slog.Logger
}

// ServeHTTP passes r to the application and relays its answer.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	log := h.Logger
	if log == nil {
		log = slog.Default()
	}
	ctx := r.Context()
	resp, err := h.roundTrip(ctx, w, r)
	if err != nil {
		status := http.StatusBadGateway
		var ne net.Error
		switch {
		case errors.Is(err, ErrTooBig):
			status = http.StatusInternalServerError // the request's fault
		case errors.As(err, &ne) && ne.Timeout():
			status = http.StatusGatewayTimeout
		}
		log.LogAttrs(ctx, slog.LevelError, err.Error(), slog.String("upstream", "uwsgi://"+h.Address))
		// A client that left gets nothing; one whose body was cut short
		// (which cancels ctx too) gets its answer.
		var se stepError
		if ctx.Err() == nil || errors.As(err, &se) && se.cutClient {
			http.Error(w, http.StatusText(status), status)
		}
		return
	}
	defer resp.Body.Close()
	dst := w.Header()
	for k, vv := range resp.Header {
		if !hiddenHeader(k) {
			dst[k] = vv
		}
	}
	if _, ok := resp.Header["Content-Type"]; !ok {
		dst["Content-Type"] = nil // none sent: none sniffed
	}
	if resp.ContentLength < 0 {
		delete(dst, "Content-Length")
	}
	w.WriteHeader(resp.StatusCode)
	n, err := io.Copy(w, resp.Body)
	if err == nil && r.Method != http.MethodHead && resp.ContentLength > n {
		err = errPremature // closed before its Content-Length
	}
	if err != nil && ctx.Err() == nil {
		log.LogAttrs(ctx, slog.LevelError, err.Error()+" while reading upstream",
			slog.String("upstream", "uwsgi://"+h.Address))
		// The header is out: cutting the connection tells the client.
		panic(http.ErrAbortHandler)
	}
}

// hiddenHeader says which of the answer's headers a Handler does not
// pass: the hop-by-hop ones and HiddenHeaders.
func hiddenHeader(k string) bool {
	switch k {
	case "Connection", "Keep-Alive", "Transfer-Encoding", "Upgrade", "Te", "Trailer":
		return true
	}
	return slices.Contains(HiddenHeaders, k)
}

func timeoutOr(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultTimeout
	}
	return d
}

// roundTrip dials, sends the request while awaiting the answer (so that
// an application that answers before reading the whole body is heard) and
// returns the response, whose Body closes the connection.
func (h *Handler) roundTrip(ctx context.Context, w http.ResponseWriter, r *http.Request) (*http.Response, error) {
	length := r.ContentLength
	var body io.Reader = r.Body
	if length < 0 {
		// uwsgi frames the body by CONTENT_LENGTH alone: one of unknown
		// length is read whole first.
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		length, body = int64(len(b)), bytes.NewReader(b)
		r = r.Clone(ctx)
		r.ContentLength = length // for CONTENT_LENGTH
	}
	if length == 0 {
		body = nil
	}
	// Encoded before dialling: a request the packet cannot carry
	// (ErrTooBig) costs the application nothing.
	head, err := h.Wire.AppendHead(nil, r, length)
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, timeoutOr(h.ConnectTimeout))
	var d net.Dialer
	conn, err := d.DialContext(dctx, h.Network, h.Address)
	cancel()
	if err != nil {
		return nil, stepError{step: "connecting to", err: err}
	}
	tc := &timedConn{Conn: conn, read: timeoutOr(h.ReadTimeout), write: timeoutOr(h.SendTimeout)}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	sent := make(chan error, 1)
	var client *clientBody
	if body == r.Body {
		client = &clientBody{Reader: body}
		body = client
	}
	go func() { sent <- tc.send(&h.Wire, head, body) }()

	resp, err := h.Wire.ReadResponse(bufio.NewReaderSize(tc, max(h.Wire.MaxHeaderSize, DefaultMaxHeaderSize)), r)
	if err != nil {
		conn.Close()
		stop()
		// A sender still waiting for the client's body would hold the
		// error answer back: its read is cut short (a later one refused),
		// and the unread rest of the body means this connection carries
		// no other request. Only a read in progress is cut: once the body
		// is read whole, net/http watches the connection for a close, and
		// a deadline would read as the client leaving.
		cutClient := false
		if client != nil {
			reading, whole := client.stop()
			if reading {
				cutClient = http.NewResponseController(w).SetReadDeadline(time.Now()) == nil
			}
			if !whole {
				w.Header().Set("Connection", "close")
			}
		}
		serr := <-sent
		// A failed send explains a failed read (the application closed,
		// or a write timed out) better than the read does, unless the
		// stop above is what failed it.
		var ne net.Error
		if serr != nil && !cutClient && !errors.Is(serr, errSendStopped) && (errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne)) {
			return nil, stepError{"sending request to", serr, cutClient}
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = errPremature
		}
		return nil, stepError{"reading response header from", err, cutClient}
	}
	resp.Body = &connBody{ReadCloser: resp.Body, conn: conn, sent: sent, stop: stop}
	return resp, nil
}

// timedConn applies NGINX's timeouts: each write must progress within the
// send timeout; reads wait without a limit until the request is sent,
// then each must progress within the read timeout.
type timedConn struct {
	net.Conn
	read, write time.Duration

	mu   sync.Mutex
	sent bool
}

func (c *timedConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	if c.sent {
		c.Conn.SetReadDeadline(time.Now().Add(c.read))
	}
	c.mu.Unlock()
	return c.Conn.Read(p)
}

func (c *timedConn) Write(p []byte) (int, error) {
	c.Conn.SetWriteDeadline(time.Now().Add(c.write))
	return c.Conn.Write(p)
}

// send writes the encoded head and the body through the Wire, then
// starts the read timeout.
func (c *timedConn) send(wire *Wire, head []byte, body io.Reader) error {
	bw := bufio.NewWriter(c)
	_, err := bw.Write(head)
	if err == nil && body != nil {
		buf := make([]byte, 32<<10)
		for err == nil {
			// What is buffered goes out before a read that may wait for
			// the client: the application may answer from the head alone.
			if bw.Buffered() > 0 {
				if err = bw.Flush(); err != nil {
					break
				}
			}
			n, rerr := body.Read(buf)
			if n > 0 {
				err = wire.WriteBody(bw, buf[:n])
			}
			if rerr == io.EOF {
				break
			}
			if rerr != nil && err == nil {
				err = rerr
			}
		}
	}
	if err == nil {
		err = wire.EndBody(bw)
	}
	if err == nil {
		err = bw.Flush()
	}
	c.mu.Lock()
	c.sent = true
	c.Conn.SetReadDeadline(time.Now().Add(c.read))
	c.mu.Unlock()
	return err
}

// connBody closes the connection and waits for the sender when the
// response is closed. A sender still waiting for the client's body ends
// with its next piece (its write then fails on the closed connection), as
// net/http would wait for that body anyway before the next request.
type connBody struct {
	io.ReadCloser
	conn net.Conn
	sent chan error
	stop func() bool
	once sync.Once
}

func (b *connBody) Close() error {
	b.once.Do(func() {
		b.stop()
		b.conn.Close()
		<-b.sent
	})
	return nil
}

// clientBody is the client's request body as the sender reads it. stop
// ends the sending: a read that starts later fails at once, and one in
// progress is reported so that the caller cuts it with a deadline. The
// flags share a lock because a read that started between a check and the
// cut would otherwise wait for the client's body without end.
type clientBody struct {
	io.Reader
	mu      sync.Mutex
	reading bool
	whole   bool // the body was read to its end
	stopped bool
}

var errSendStopped = errors.New("request body not sent: the upstream exchange failed")

func (c *clientBody) Read(p []byte) (int, error) {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return 0, errSendStopped
	}
	c.reading = true
	c.mu.Unlock()
	n, err := c.Reader.Read(p)
	c.mu.Lock()
	c.reading = false
	c.whole = c.whole || err == io.EOF
	c.mu.Unlock()
	return n, err
}

// stop refuses further reads and says whether one is in progress and
// whether the body was read whole (else its unread rest means the client's
// connection carries no other request).
func (c *clientBody) stop() (reading, whole bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	return c.reading, c.whole
}

// stepError names the step of the exchange that failed, as NGINX's error
// log lines do ("... while reading response header from upstream").
type stepError struct {
	step string
	err  error
	// cutClient says that the read of the client's body was cut short.
	cutClient bool
}

func (e stepError) Error() string {
	var ne net.Error
	switch {
	case errors.As(e.err, &ne) && ne.Timeout():
		return "upstream timed out while " + e.step + " upstream"
	case e.step == "connecting to":
		return "connect() failed (" + e.err.Error() + ") while connecting to upstream"
	}
	return e.err.Error() + " while " + e.step + " upstream"
}
func (e stepError) Unwrap() error { return e.err }

var errPremature = errors.New("upstream prematurely closed connection")
