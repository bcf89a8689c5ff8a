package proxy

import "net/http"

// NextUpstream is proxy_next_upstream: the outcomes of a try after which
// the request goes on to the next server. Its zero value is NGINX's
// default, NextError|NextTimeout.
type NextUpstream uint16

// The conditions of proxy_next_upstream, named after its parameters.
const (
	NextError         NextUpstream = 1 << iota // error: connection failed or broke, or closed early
	NextTimeout                                // timeout: connect, send or read timed out
	NextInvalidHeader                          // invalid_header: unparseable, empty or too big header
	NextHTTP500                                // http_500
	NextHTTP502                                // http_502
	NextHTTP503                                // http_503
	NextHTTP504                                // http_504
	NextHTTP403                                // http_403: not counted as a failure of the server
	NextHTTP404                                // http_404: not counted as a failure of the server
	NextHTTP429                                // http_429
	// NextNonIdempotent lets a POST, LOCK or PATCH that was sent go on to
	// another server too.
	NextNonIdempotent
	// NextOff never tries another server; it overrides the others.
	NextOff
)

// DefaultNextUpstream is NGINX's proxy_next_upstream: error timeout.
const DefaultNextUpstream = NextError | NextTimeout

// statusCondition returns the condition naming an upstream's response
// status, or 0.
func statusCondition(status int) NextUpstream {
	switch status {
	case http.StatusInternalServerError:
		return NextHTTP500
	case http.StatusBadGateway:
		return NextHTTP502
	case http.StatusServiceUnavailable:
		return NextHTTP503
	case http.StatusGatewayTimeout:
		return NextHTTP504
	case http.StatusForbidden:
		return NextHTTP403
	case http.StatusNotFound:
		return NextHTTP404
	case http.StatusTooManyRequests:
		return NextHTTP429
	}
	return 0
}
