package server

import (
	"fmt"
	"math"
	"strconv"
)

// NGINX's HTTP/2 tuning directives. Two of them shape Go's HTTP/2 server
// (the address's default server's value, as NGINX takes an HTTP/2
// connection's settings from it): http2_max_concurrent_streams and
// http2_body_preread_size. The others size NGINX's own buffers and
// tables or its server push, which Go's server does not have: they are
// read with NGINX's checks and ignored with a notice.

// h2Defaults are NGINX's defaults of the two that apply.
const (
	h2DefaultStreams = 128
	h2DefaultPreread = 64 << 10
	h2MaxWindow      = 1<<31 - 1 // NGX_HTTP_V2_MAX_WINDOW
	// h2ReadFrameSize is the largest frame a client may send: the initial
	// SETTINGS_MAX_FRAME_SIZE (RFC 9113 §6.5.2), which clients use unless
	// told more, and the smallest Go's server takes.
	h2ReadFrameSize = 1 << 14
	// h2ConnWindow is a connection's receive window: what a client may
	// send on all its streams together before handlers read. Go's
	// default, set here so that it stays the bound: 1 MiB a connection
	// whatever the streams and http2_body_preread_size, where NGINX opens
	// the connection to 2^31-1 and holds a preread buffer per stream
	// (128 × 64k by default).
	h2ConnWindow = 1 << 20
)

func h2Directives(ctx Context) []Directive {
	num := func(c *Cmd) (int, error) {
		n, err := strconv.Atoi(c.Args[0])
		if err != nil || n < 0 || c.Args[0][0] == '+' {
			return 0, c.Errorf("%q directive invalid number", c.Name)
		}
		return n, nil
	}
	ignored := func(why string) string { return fmt.Sprintf("ignoring %%q directive: %s", why) }
	return []Directive{
		{Name: "http2_max_concurrent_streams", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			n, err := num(c)
			if err != nil {
				return err
			}
			return Put(c, &c.Loc().(*sslLoc).h2Streams, n)
		}},
		{Name: "http2_body_preread_size", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			n, err := c.Size(c.Args[0])
			if err != nil {
				return err
			}
			if n > h2MaxWindow {
				return c.Errorf("%q: the maximum body preread buffer size is %d", c.Name, h2MaxWindow)
			}
			return Put(c, &c.Loc().(*sslLoc).h2Preread, int(n))
		}},
		{Name: "http2_recv_buffer_size", Context: CtxHTTP, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			n, err := c.Size(c.Args[0])
			if err != nil {
				return err
			}
			if n <= 2*16 {
				return c.Errorf("%q: the http2 receive buffer size should be > %d", c.Name, 2*16)
			}
			c.Notice(fmt.Sprintf(ignored("Go's HTTP/2 server reads with buffers of its own"), c.Name))
			return nil
		}},
		{Name: "http2_pool_size", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			n, err := c.Size(c.Args[0])
			if err != nil {
				return err
			}
			switch {
			case n < 112: // NGX_MIN_POOL_SIZE on 64-bit systems
				return c.Errorf("%q: the pool size must be no less than 112", c.Name)
			case n%16 != 0:
				return c.Errorf("%q: the pool size must be a multiple of 16", c.Name)
			}
			c.Notice(fmt.Sprintf(ignored("it sizes NGINX's memory pools"), c.Name))
			return nil
		}},
		{Name: "http2_streams_index_size", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			n, err := num(c)
			if err != nil {
				return err
			}
			if n == 0 || n&(n-1) != 0 {
				return c.Errorf("%q: the streams index size must be a power of two", c.Name)
			}
			c.Notice(fmt.Sprintf(ignored("it sizes NGINX's stream table"), c.Name))
			return nil
		}},
		{Name: "http2_chunk_size", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			n, err := c.Size(c.Args[0])
			if err != nil {
				return err
			}
			if n == 0 {
				return c.Errorf("%q: the http2 chunk size cannot be zero", c.Name)
			}
			c.Notice(fmt.Sprintf(ignored("Go's HTTP/2 server frames responses by the client's maximum frame size"), c.Name))
			return nil
		}},
		{Name: "http2_max_concurrent_pushes", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			if _, err := num(c); err != nil {
				return err
			}
			c.Notice(fmt.Sprintf(ignored("Go's HTTP/2 server does not push"), c.Name))
			return nil
		}},
		{Name: "http2_push_preload", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			on, err := c.Flag()
			if err != nil {
				return err
			}
			if on {
				c.Notice(fmt.Sprintf(ignored("Go's HTTP/2 server does not push"), c.Name))
			}
			return nil
		}},
		{Name: "http2_push", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			if c.Args[0] != "off" {
				c.Notice(fmt.Sprintf(ignored("Go's HTTP/2 server does not push"), c.Name))
			}
			return nil
		}},
	}
}

// h2Settings are the HTTP/2 settings of srv, which a connection takes
// from the server that SNI chose (the default server without a name), as
// NGINX reads them there. A field may be as large as HTTP/1's first
// buffer, or the large buffers together: HTTP/2's fields are not laid
// out in buffers.
func h2Settings(srv *VServer, g *addrGroup) h2Params {
	cl := LocConf[*coreLoc](srv.level, coreModule)
	sl := sslOf(srv)
	streams, preread := sl.h2Streams.Or(h2DefaultStreams), sl.h2Preread.Or(h2DefaultPreread)
	if streams == 0 {
		// NGINX advertises 0 and refuses every stream; Go reads 0 as its
		// default, so the smallest count it takes stands for it.
		streams = 1
	}
	return h2Params{streams: streams, preread: min(preread, math.MaxInt32),
		maxHeader: h2HeaderList(cl, g), idle: cl.keepalive.V, write: cl.sendTimeout.V}
}

// h2FieldOverhead is what Go's HTTP/2 server counts for each field of a
// header list beside its name and value (RFC 9113's SETTINGS_MAX_HEADER_LIST_SIZE
// unit), where NGINX counts the name and value alone.
const h2FieldOverhead = 32

// h2HeaderList is the header list size Go's HTTP/2 server is given
// (MaxHeaderBytes) for cl's server on the address of g: NGINX's limit on
// the names and values together (large_client_header_buffers' number ×
// size, or the first buffer when larger), plus Go's 32 bytes for each
// field that the largest max_headers of g's servers lets through (the
// server :authority chooses counts them) and for the pseudo-header
// fields, so that Go's count does not refuse (431) what NGINX serves;
// admitH2 then applies NGINX's own sum, and max_headers its count. The
// fields allowed for are bounded, so that a large max_headers does not
// make the list unbounded.
func h2HeaderList(cl *coreLoc, g *addrGroup) int {
	const pseudo, most = 8, 10000
	fields := cl.maxHeaders.V
	for _, s := range g.servers {
		fields = max(fields, LocConf[*coreLoc](s.level, coreModule).maxHeaders.V)
	}
	return max(cl.headerBufs.V.Number*cl.headerBufs.V.Size, int(cl.headerBuffer.V)) +
		h2FieldOverhead*(min(max(fields, 0), most)+pseudo)
}
