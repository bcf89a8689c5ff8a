// Package scgi speaks SCGI to an application server, as NGINX's scgi_pass
// does: a request is one netstring ("LENGTH:" then LENGTH bytes then ",")
// holding the CGI-style variables as NUL-terminated names and values,
// CONTENT_LENGTH first, followed by the request body as it is; the
// application answers with a CGI response (a "Status:" header, or a
// "Location:" alone for a redirect, or an HTTP/1.x status line) and the
// body up to the end of the connection or its Content-Length. There is
// no keepalive: each request has a connection of its own.
//
// AppendRequest encodes the netstring and ReadRequest decodes one (for an
// application server or a test). Wire is the encoder and decoder that
// proxy.Options.Wire takes, so that a proxy.Handler speaks SCGI with the
// proxy's upstream groups, timeouts and error responses; the server's
// scgi_* directives are wired in modules/scgimod.
package scgi
