// Package proxyproto reads the PROXY protocol header (versions 1 and 2,
// as HAProxy specifies them) that a load balancer sends at the start of a
// connection to name the client it accepted, as NGINX's "listen ...
// proxy_protocol" does: the header must come first, a connection whose
// first bytes are not a valid header is refused, and what follows the
// header is the connection's own data (HTTP, or a TLS handshake).
//
// It imports nothing of the server: Listener wraps any net.Listener.
package proxyproto

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// Header is what a PROXY header says. A header that names no addresses
// ("PROXY UNKNOWN", a version 2 LOCAL command, another family or
// transport) is valid but gives none: Parse returns a nil *Header for it.
type Header struct {
	SrcAddr, DstAddr string // as sent (version 1) or formatted (version 2)
	SrcPort, DstPort uint16
	Version          int // 1 or 2
}

// MaxHeader bounds a header's size: a version 1 header is at most 107
// bytes (HAProxy's limit, and NGINX's); a version 2 header may carry TLVs,
// which are skipped, up to this total.
const MaxHeader = 4096

var v2sig = []byte("\r\n\r\n\x00\r\nQUIT\n")

// ErrIncomplete says that b holds the start of a header, not all of it.
var ErrIncomplete = errors.New("proxyproto: incomplete header")

// Parse reads the header at the start of b. It returns the header (nil
// for one without addresses), the bytes it took, or an error: ErrIncomplete
// when more bytes are needed, another error when b cannot start a valid
// header.
func Parse(b []byte) (*Header, int, error) {
	if len(b) > 0 && b[0] == v2sig[0] {
		n := min(len(b), len(v2sig))
		if !bytes.Equal(b[:n], v2sig[:n]) {
			return nil, 0, brokenHeader(b)
		}
		return parseV2(b)
	}
	return parseV1(b)
}

func brokenHeader(b []byte) error {
	if len(b) > 107 {
		b = b[:107]
	}
	return fmt.Errorf("broken header: %q", b)
}

func parseV1(b []byte) (*Header, int, error) {
	const prefix = "PROXY "
	n := min(len(b), len(prefix))
	if string(b[:n]) != prefix[:n] {
		return nil, 0, brokenHeader(b)
	}
	end := bytes.Index(b, []byte("\r\n"))
	if end < 0 {
		if len(b) >= 107 || bytes.IndexByte(b, '\n') >= 0 {
			return nil, 0, brokenHeader(b)
		}
		return nil, 0, ErrIncomplete
	}
	if end+2 > 107 {
		return nil, 0, brokenHeader(b)
	}
	line := string(b[len(prefix):end])
	taken := end + 2
	if len(line) >= 7 && line[:7] == "UNKNOWN" {
		return nil, taken, nil // the rest of the line is ignored
	}
	if len(line) < 5 || line[:3] != "TCP" || (line[3] != '4' && line[3] != '6') || line[4] != ' ' {
		return nil, 0, brokenHeader(b[:taken])
	}
	f := splitSpaces(line[5:])
	if len(f) != 4 || !addrText(f[0]) || !addrText(f[1]) {
		return nil, 0, brokenHeader(b[:taken])
	}
	sp, ok1 := port(f[2])
	dp, ok2 := port(f[3])
	if !ok1 || !ok2 {
		return nil, 0, brokenHeader(b[:taken])
	}
	return &Header{SrcAddr: f[0], DstAddr: f[1], SrcPort: sp, DstPort: dp, Version: 1}, taken, nil
}

// splitSpaces splits at single spaces, keeping empty fields, so that
// doubled spaces make a broken header as in NGINX.
func splitSpaces(s string) []string {
	var out []string
	for {
		i := bytes.IndexByte([]byte(s), ' ')
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i])
		s = s[i+1:]
	}
}

// addrText checks an address of a version 1 header as NGINX does: hex
// digits, '.' and ':' only (NGINX does not parse it further).
func addrText(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == ':' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func port(s string) (uint16, bool) {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 16)
	return uint16(n), err == nil
}

func parseV2(b []byte) (*Header, int, error) {
	if len(b) < 16 {
		return nil, 0, ErrIncomplete
	}
	if b[12]>>4 != 2 {
		return nil, 0, fmt.Errorf("unknown PROXY protocol version: %d", b[12]>>4)
	}
	size := 16 + (int(b[14])<<8 | int(b[15]))
	if size > MaxHeader {
		return nil, 0, errors.New("header is too large")
	}
	if len(b) < size {
		return nil, 0, ErrIncomplete
	}
	body := b[16:size]
	command, family, transport := b[12]&0x0f, b[13]>>4, b[13]&0x0f
	if command != 1 || transport != 1 {
		return nil, size, nil // LOCAL, or not a stream: no addresses
	}
	h := &Header{Version: 2}
	switch family {
	case 1:
		if len(body) < 12 {
			return nil, 0, brokenHeader(b[:size])
		}
		h.SrcAddr = netip.AddrFrom4([4]byte(body[0:4])).String()
		h.DstAddr = netip.AddrFrom4([4]byte(body[4:8])).String()
		h.SrcPort, h.DstPort = be16(body[8:]), be16(body[10:])
	case 2:
		if len(body) < 36 {
			return nil, 0, brokenHeader(b[:size])
		}
		h.SrcAddr = netip.AddrFrom16([16]byte(body[0:16])).String()
		h.DstAddr = netip.AddrFrom16([16]byte(body[16:32])).String()
		h.SrcPort, h.DstPort = be16(body[32:]), be16(body[34:])
	default:
		return nil, size, nil // AF_UNIX or unspecified: no addresses
	}
	return h, size, nil
}

func be16(b []byte) uint16 { return uint16(b[0])<<8 | uint16(b[1]) }

// Listener wraps a net.Listener whose connections start with a PROXY
// header, while Enabled says so (it is read for each connection
// accepted, so a reload may turn it on or off for a kept socket).
type Listener struct {
	net.Listener
	Enabled *atomic.Bool
	// OnError, when set, is told why a connection's header was refused
	// (the connection is then closed by its reader).
	OnError func(c net.Conn, err error)
}

// Accept returns the next connection, as a *Conn when the header is
// expected.
func (l *Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil || l.Enabled == nil || !l.Enabled.Load() {
		return c, err
	}
	return &Conn{Conn: c, onError: l.OnError}, nil
}

// Conn reads a PROXY header before its first bytes of data. The header is
// read by the first Read, within whatever read deadline the connection's
// user set (NGINX reads it within client_header_timeout too).
type Conn struct {
	net.Conn
	onError func(net.Conn, error)

	once   sync.Once
	header atomic.Pointer[Header]
	err    error
	rest   []byte // bytes read past the header
}

// NewConn wraps c, whose first bytes are a PROXY header.
func NewConn(c net.Conn) *Conn { return &Conn{Conn: c} }

// Header returns what the header said; nil before it was read, for a
// header without addresses, or after a broken one.
func (c *Conn) Header() *Header { return c.header.Load() }

func (c *Conn) readHeader() {
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, len(buf))
		}
		n, err := c.Conn.Read(buf[len(buf):min(cap(buf), MaxHeader)])
		buf = buf[:len(buf)+n]
		if n > 0 {
			h, taken, perr := Parse(buf)
			if perr == nil {
				if h != nil {
					c.header.Store(h)
				}
				if taken < len(buf) {
					c.rest = append([]byte(nil), buf[taken:]...)
				}
				return
			}
			if !errors.Is(perr, ErrIncomplete) {
				c.fail(perr)
				return
			}
			if len(buf) >= MaxHeader {
				c.fail(errors.New("header is too large"))
				return
			}
		}
		if err != nil {
			if len(buf) > 0 {
				c.fail(brokenHeader(buf))
			} else {
				c.err = err
			}
			return
		}
	}
}

func (c *Conn) fail(err error) {
	c.err = err
	if c.onError != nil {
		c.onError(c.Conn, err)
	}
}

// Read returns the connection's data after the header.
func (c *Conn) Read(b []byte) (int, error) {
	c.once.Do(c.readHeader)
	if c.err != nil {
		return 0, c.err
	}
	if len(c.rest) > 0 {
		n := copy(b, c.rest)
		c.rest = c.rest[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}

// PeekByte returns the first byte of the connection's data after the
// header without taking it: the next Read returns it too. A TLS listener
// looks at it to tell a TLS client from one that speaks plain HTTP.
func (c *Conn) PeekByte() (byte, error) {
	c.once.Do(c.readHeader)
	if c.err != nil {
		return 0, c.err
	}
	if len(c.rest) == 0 {
		b := make([]byte, 1)
		if _, err := io.ReadFull(c.Conn, b); err != nil {
			return 0, err
		}
		c.rest = b
	}
	return c.rest[0], nil
}

// NetConn returns the wrapped connection.
func (c *Conn) NetConn() net.Conn { return c.Conn }
