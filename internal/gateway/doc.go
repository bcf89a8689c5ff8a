// Package gateway holds what the CGI-style application gateways (FastCGI,
// uwsgi) share, whatever their wire format: the parameters sent with a
// request (configured ones, with NGINX's if_not_empty, then the request's
// header lines as HTTP_* variables) and the reading of a CGI response head,
// where a Status header gives the status and a Location alone means a
// redirect.
//
// The exchange itself (connections, balancing, timeouts, error responses,
// body streaming) is the proxy's: a gateway implements proxy.Wire with
// these pieces, and modules/gatewaymod wires the directives both share.
package gateway
