// Package fastcgi is a FastCGI client for the responder role, as NGINX's
// fastcgi_pass speaks it: a request is a BEGIN_REQUEST record (with the
// keep-connection flag for fastcgi_keep_conn), the parameters as
// name-value pairs in PARAMS records, and the body in STDIN records; the
// application answers with a CGI response (header lines, a Status header
// for the status) in STDOUT records, diagnostics in STDERR records, and an
// END_REQUEST record.
//
// Client encodes requests and decodes responses on a connection that the
// caller owns. It implements proxy.Wire, so a proxy.Handler with
// Options.Wire set to a Client is a FastCGI gateway with the proxy's
// upstream groups, keepalive pool, timeouts and error responses; that is
// how the server's fastcgi_* directives (modules/fastcgimod) use it, and
// how a Go program serves PHP through php-fpm (see the example).
//
// The record reader is also usable alone (ReadRecord), for a FastCGI
// application or a test.
package fastcgi
