package uwsgi

import (
	"net/http"

	"github.com/mosaic-edge/mosaic/internal/gateway"
)

// DefaultMaxHeaderSize is the default limit on a response head, NGINX's
// uwsgi_buffer_size default (one memory page).
const DefaultMaxHeaderSize = gateway.DefaultMaxHeaderSize

// Wire encodes requests and decodes answers for one uwsgi_pass. Its
// methods are the ones the proxy package's Options.Wire asks for, so the
// server's upstream groups, timeouts and body handling carry uwsgi as
// they carry HTTP; Handler uses them over a connection of its own.
type Wire struct {
	// Stream holds MaxHeaderSize (uwsgi_buffer_size) and DropBody
	// (uwsgi_pass_request_body off), and reads the answer. First, so
	// that the method an interface call reaches through it is a jump
	// without a change of receiver.
	gateway.Stream
	// Modifier1 and Modifier2 go in the packet header (uwsgi_modifier1,
	// uwsgi_modifier2); 0 and 0 is a WSGI request.
	Modifier1, Modifier2 byte
	// Vars appends the variables of r to dst; nil means CGIVars.
	Vars func(dst []Var, r *http.Request) []Var
	// Extra follows the variables inside the packet (uwsgi_string).
	Extra []byte
}

// AppendHead appends the packet header and the variables of r to dst. A
// request whose variables do not fit in MaxVarsSize bytes fails with
// ErrTooBig.
func (w *Wire) AppendHead(dst []byte, r *http.Request, _ int64) ([]byte, error) {
	var vars []Var
	if w.Vars != nil {
		vars = w.Vars(nil, r)
	} else {
		vars = CGIVars(nil, r)
	}
	return AppendRequest(dst, w.Modifier1, w.Modifier2, vars, w.Extra)
}

// HiddenHeaders are the answer's headers NGINX's uwsgi module keeps from
// the client by default: the X-Accel-* instructions. Unlike FastCGI, a
// Status header is passed on.
var HiddenHeaders = hidden()

func hidden() []string {
	var h []string
	for _, k := range gateway.HiddenHeaders {
		if k != "Status" {
			h = append(h, k)
		}
	}
	return h
}

// CGIVars appends to dst the variables NGINX's uwsgi_params sends,
// computed from r alone (for a Handler used outside the server), then the
// request's header lines as HTTP_* variables.
func CGIVars(dst []Var, r *http.Request) []Var {
	return cgiParams.Append(dst, r)
}

var cgiParams = gateway.NewParams(gateway.CGIParams("QUERY_STRING", "REQUEST_METHOD", "CONTENT_TYPE",
	"CONTENT_LENGTH", "REQUEST_URI", "PATH_INFO", "SERVER_PROTOCOL", "REQUEST_SCHEME", "HTTPS",
	"REMOTE_ADDR", "REMOTE_PORT", "SERVER_PORT", "SERVER_NAME"), true)
