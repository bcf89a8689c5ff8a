// Package gateway holds what the CGI-style application gateways (FastCGI,
// uwsgi, SCGI) share, whatever their wire format: the parameters sent with
// a request (configured ones, with NGINX's if_not_empty, then the request's
// header lines as HTTP_* variables; CGIParams computes Debian's *_params
// from a request alone), the reading of a CGI response head, where a
// Status header gives the status and a Location alone means a redirect,
// and (ReadResponse) the whole answer of the protocols without keepalive
// whose body runs to its Content-Length or the connection's end.
//
// The exchange itself (connections, balancing, timeouts, error responses,
// body streaming) is the proxy's: a gateway implements proxy.Wire with
// these pieces, and modules/gatewaymod wires the directives they share.
package gateway
