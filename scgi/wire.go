package scgi

import (
	"net/http"
	"slices"

	"github.com/mosaic-edge/mosaic/internal/gateway"
)

// DefaultMaxHeaderSize is the default limit on a response head, NGINX's
// scgi_buffer_size default (one memory page).
const DefaultMaxHeaderSize = gateway.DefaultMaxHeaderSize

// Wire encodes requests and decodes answers for one scgi_pass. Its
// methods are the ones proxy.Options.Wire asks for, so the server's
// upstream groups, timeouts and body handling carry SCGI as they carry
// HTTP.
type Wire struct {
	// Stream holds MaxHeaderSize (scgi_buffer_size) and DropBody
	// (scgi_pass_request_body off), and reads the answer. First, so
	// that the method an interface call reaches through it is a jump
	// without a change of receiver.
	gateway.Stream
	// Vars appends the variables of r to dst (CONTENT_LENGTH, which comes
	// first, excepted); nil means CGIVars.
	Vars func(dst []Var, r *http.Request) []Var
}

// AppendHead appends the netstring of r, whose body is length bytes, to
// dst. A variable with a NUL byte fails with ErrNUL.
func (w *Wire) AppendHead(dst []byte, r *http.Request, length int64) ([]byte, error) {
	var vars []Var
	if w.Vars != nil {
		vars = w.Vars(nil, r)
	} else {
		vars = CGIVars(nil, r)
	}
	return AppendRequest(dst, length, vars)
}

// HiddenHeaders are the answer's headers NGINX's SCGI module keeps from
// the client by default: the CGI Status, which became the status line,
// and the X-Accel-* instructions.
var HiddenHeaders = gateway.HiddenHeaders

// CGIVars appends to dst the variables of Debian's scgi_params computed
// from r alone (for a Wire used outside the server; DOCUMENT_ROOT, which
// needs a root, is left out), then the request's header lines as HTTP_*
// variables.
func CGIVars(dst []Var, r *http.Request) []Var {
	return cgiParams.Append(dst, r)
}

var cgiParams = gateway.NewParams(slices.Concat(
	gateway.CGIParams("REQUEST_METHOD", "REQUEST_URI", "QUERY_STRING", "CONTENT_TYPE", "DOCUMENT_URI"),
	[]gateway.Param{{Name: "SCGI", Literal: "1"}},
	gateway.CGIParams("SERVER_PROTOCOL", "REQUEST_SCHEME", "HTTPS", "REMOTE_ADDR", "REMOTE_PORT",
		"SERVER_PORT", "SERVER_NAME"),
), true)
