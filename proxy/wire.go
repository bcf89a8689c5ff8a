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
	// WriteHead writes what precedes the request body into bw; length is
	// the body's length, 0 when there is none.
	WriteHead(bw *bufio.Writer, r *http.Request, length int64) error
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
