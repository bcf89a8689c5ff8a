package proxy

import (
	"bufio"
	"net/http"
)

// Wire is a protocol other than HTTP/1.x spoken to the upstream, such as
// FastCGI or uwsgi: with Options.Wire set, the Handler encodes the request
// and decodes the response head through it, and keeps doing everything
// around the bytes (balancing, retries, keepalive, timeouts, the error
// responses, body streaming and relaying). Its methods use only standard
// types, so a package implements it without importing this one.
type Wire interface {
	// AppendHead appends what precedes the request body to dst; length
	// is the body's length, 0 when there is none. It is called once per
	// request, before any server is connected to, and what it made is
	// sent on every try, as NGINX builds a request once before it picks a
	// server. An error says the protocol cannot carry the request (NGINX's
	// "uwsgi request is too big"): the request's fault, not a server's, so
	// the Handler logs the error's text and answers 500, and no server is
	// tried nor charged.
	AppendHead(dst []byte, r *http.Request, length int64) ([]byte, error)
	// WriteBody writes a piece of the request body, framed as the
	// protocol frames it.
	WriteBody(bw *bufio.Writer, p []byte) error
	// EndBody writes what ends the request, after the whole body; it is
	// called for a request without a body too.
	EndBody(bw *bufio.Writer) error
	// ReadResponse reads the response head from br and returns a Response
	// whose Body reads the rest of the response from br, ending with
	// io.EOF. Close must be false only when the connection may carry
	// another request. An I/O error is the upstream's failure ("error" or
	// "timeout"); any other error is an invalid header (502, no other
	// server tried).
	ReadResponse(br *bufio.Reader, r *http.Request) (*http.Response, error)
}

// ReceivedLength is what a Wire's response body may implement when the
// protocol frames the body with bytes of its own that NGINX counts in
// $upstream_response_length (memcached's "\r\nEND\r\n" after the value):
// it returns the bytes the body has read from the connection, framing
// included. Without it the bytes relayed are counted.
type ReceivedLength interface {
	ReceivedLength() int64
}

// Pieces is what a Wire's response body may implement when NGINX passes
// the body on in pieces as they come, buffering on (FastCGI's records
// under fastcgi_keep_conn on; an HTTP upstream's chunks are the
// Handler's own): Waits reports whether the body stands at a piece's end
// with nothing more of it on the connection, where NGINX's event pipe
// writes what it has to the client. It is asked on the goroutine that
// reads the body, after each read.
type Pieces interface {
	Waits() bool
}

// PlainHead is what a Wire's response body may implement when the Wire
// notes, while it parses the head, whether it holds fields the Handler
// acts on: Plain reports that the head has no Connection field, no
// field whose name starts with "X-Accel-" and no name to spell (Spelt).
// The Handler then relays such a head (a PHP script's usual) without
// looking each of them up, nor asking for its spellings.
type PlainHead interface {
	Plain() bool
}

// plainHead reports whether resp's head is known to be plain (PlainHead).
func plainHead(resp *http.Response) bool {
	p, ok := resp.Body.(PlainHead)
	return ok && p.Plain()
}

// Spelt is what a Wire's response body may implement when the Wire notes,
// while it parses the head, the field names the application wrote
// otherwise than the Header's canonical keys ("x-thing" for "X-Thing"):
// Spellings returns them as header.Speller takes them, nil for none, and
// the Handler has the client's writer send them so, as NGINX relays a
// FastCGI, uwsgi or SCGI application's names as written.
type Spelt interface {
	Spellings() []string
}
