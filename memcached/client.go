package memcached

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// ErrNotFound is a miss: memcached answered END.
var ErrNotFound = errors.New("memcached: key not found")

// Client fetches values from one memcached server with gets, over
// connections it keeps for the next get once an answer has been read
// whole. Its zero value is not usable: Address must be set.
type Client struct {
	// Network and Address name the server: "tcp", "127.0.0.1:11211" or
	// "unix", "/run/memcached.sock". An empty Network is "tcp".
	Network, Address string
	// ConnectTimeout, SendTimeout and ReadTimeout bound each step of a
	// get, as memcached_connect_timeout, _send_timeout and _read_timeout
	// do (the read timeout between two reads); 0 means 60s each.
	ConnectTimeout, SendTimeout, ReadTimeout time.Duration
	// MaxLineSize limits the answer's first line; 0 means
	// DefaultMaxLineSize.
	MaxLineSize int
	// GzipFlag is the flag bit that marks a gzip-compressed value
	// (Item.Gzip); 0 leaves the flags unread, as NGINX does.
	GzipFlag uint64
	// MaxIdle is the number of idle connections kept; 0 keeps none.
	MaxIdle int

	mu   sync.Mutex
	idle []net.Conn
}

// Item is a value being read from memcached.
type Item struct {
	Key    string // as asked for
	Length int64
	Gzip   bool // the flags share a bit with Client.GzipFlag
	// Body reads the value; it ends with io.EOF after Length bytes (the
	// trailer checked) or fails with the connection's error. Close it.
	Body io.ReadCloser
}

// Get fetches key: an Item whose Body streams the value, ErrNotFound for
// a miss, an *InvalidError or ErrLineTooLong for an answer that is not
// memcached's, a net.Error (Timeout) or another I/O error when the server
// cannot be reached or stops answering. An empty key is ErrNoKey.
func (c *Client) Get(ctx context.Context, key string) (*Item, error) {
	if key == "" {
		return nil, ErrNoKey
	}
	conn, err := c.conn(ctx)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	fail := func(err error) (*Item, error) {
		stop()
		conn.Close()
		return nil, err
	}
	_ = conn.SetWriteDeadline(time.Now().Add(orDefault(c.SendTimeout)))
	if _, err := conn.Write(AppendGet(nil, key)); err != nil {
		return fail(fmt.Errorf("memcached: send: %w", err))
	}
	_ = conn.SetWriteDeadline(time.Time{})
	tr := &timeoutReader{ctx: ctx, conn: conn, timeout: orDefault(c.ReadTimeout)}
	br := bufio.NewReader(tr)
	max := c.MaxLineSize
	if max <= 0 {
		max = DefaultMaxLineSize
	}
	line, err := ReadLine(br, max)
	if err != nil {
		return fail(fmt.Errorf("memcached: read: %w", err))
	}
	a, err := ParseAnswer(line, EscapeKey(nil, key), c.GzipFlag)
	if err != nil {
		return fail(err)
	}
	if !a.Found {
		if stop() && br.Buffered() == 0 {
			c.put(conn)
		} else {
			conn.Close()
		}
		return nil, ErrNotFound
	}
	it := &Item{Key: key, Length: a.Length, Gzip: a.Gzip}
	b := &itemBody{c: c, conn: conn, br: br, stop: stop}
	b.valueBody = valueBody{br: br, left: a.Length, end: func(err error) { b.whole = err == nil }}
	it.Body = b
	return it, nil
}

// itemBody is an Item's Body: the value, then the connection back to the
// client's idle ones when it was read whole.
type itemBody struct {
	valueBody
	c      *Client
	conn   net.Conn
	br     *bufio.Reader
	stop   func() bool
	whole  bool
	closed bool
}

func (b *itemBody) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	if b.stop() && b.whole && b.br.Buffered() == 0 {
		b.c.put(b.conn)
		return nil
	}
	return b.conn.Close()
}

// Close closes the idle connections.
func (c *Client) Close() error {
	c.mu.Lock()
	idle := c.idle
	c.idle = nil
	c.mu.Unlock()
	for _, conn := range idle {
		conn.Close()
	}
	return nil
}

// conn returns an idle connection that is still usable, or a new one.
func (c *Client) conn(ctx context.Context) (net.Conn, error) {
	for {
		c.mu.Lock()
		n := len(c.idle)
		if n == 0 {
			c.mu.Unlock()
			break
		}
		conn := c.idle[n-1]
		c.idle = c.idle[:n-1]
		c.mu.Unlock()
		if idleAlive(conn) {
			return conn, nil
		}
		conn.Close()
	}
	network := c.Network
	if network == "" {
		network = "tcp"
	}
	d := net.Dialer{Timeout: orDefault(c.ConnectTimeout)}
	conn, err := d.DialContext(ctx, network, c.Address)
	if err != nil {
		return nil, fmt.Errorf("memcached: connect: %w", err)
	}
	return conn, nil
}

func (c *Client) put(conn net.Conn) {
	_ = conn.SetDeadline(time.Time{})
	c.mu.Lock()
	if len(c.idle) < c.MaxIdle {
		c.idle = append(c.idle, conn)
		conn = nil
	}
	c.mu.Unlock()
	if conn != nil {
		conn.Close()
	}
}

// timeoutReader sets the read deadline before each read, so that the
// timeout runs between two reads, as NGINX's read timeout does.
type timeoutReader struct {
	ctx     context.Context
	conn    net.Conn
	timeout time.Duration
}

func (r *timeoutReader) Read(p []byte) (int, error) {
	_ = r.conn.SetReadDeadline(time.Now().Add(r.timeout))
	// Checked after the deadline is set: a cancellation from now on sets
	// its own deadline, which this one cannot undo.
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.conn.Read(p)
}

func orDefault(d time.Duration) time.Duration {
	if d <= 0 {
		return 60 * time.Second
	}
	return d
}
