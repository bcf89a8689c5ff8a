// Package uwsgi speaks the uwsgi protocol to an application server, as
// NGINX's uwsgi_pass does: a request is a 4-byte packet header (modifier1,
// the size of the variables block as a little-endian 16-bit number,
// modifier2), the CGI-style variables each as a 16-bit length and bytes,
// then the request body as it is, with no framing; the application
// answers with an HTTP/1.x response head (its status line optional, a
// CGI "Status:" header taking its place) and the body up to the end of
// the connection or its Content-Length.
//
// AppendRequest encodes the packet, ReadRequest decodes one (for an
// application server or a test), ReadResponse reads the answer's head.
// Client sends a request over a new connection and returns the response
// with its body streamed from the connection; Handler is a net/http
// handler built on it. The server's uwsgi_* directives are wired in
// modules/uwsgimod.
package uwsgi
