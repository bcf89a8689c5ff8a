package gateway

import (
	"bufio"
	"net/http"
)

// DefaultMaxHeaderSize is the default limit on a response head, NGINX's
// scgi_buffer_size and uwsgi_buffer_size default (one memory page).
const DefaultMaxHeaderSize = 4096

// Stream is the part of an SCGI or uwsgi wire (scgi.Wire, uwsgi.Wire,
// which embed it) that the two protocols share: the request body goes as
// it is, with no end mark (the application reads CONTENT_LENGTH bytes),
// and the answer is read by ReadResponse.
type Stream struct {
	// MaxHeaderSize limits the response head (scgi_buffer_size,
	// uwsgi_buffer_size); 0 means DefaultMaxHeaderSize.
	MaxHeaderSize int
	// DropBody sends the request without its body
	// ("scgi_pass_request_body off", "uwsgi_pass_request_body off"); the
	// variables still say what the client sent, as NGINX's do.
	DropBody bool
}

// WriteBody writes a piece of the request body as it is.
func (s *Stream) WriteBody(bw *bufio.Writer, p []byte) error {
	if s.DropBody {
		return nil
	}
	_, err := bw.Write(p)
	return err
}

// EndBody writes nothing: the application reads CONTENT_LENGTH bytes.
func (s *Stream) EndBody(*bufio.Writer) error { return nil }

// ReadResponse reads the answer as NGINX reads an SCGI or uwsgi
// application's (the function ReadResponse): an optional status line,
// CGI header lines, a body up to its Content-Length or the end of the
// connection, which is never reused.
func (s *Stream) ReadResponse(br *bufio.Reader, r *http.Request) (*http.Response, error) {
	max := s.MaxHeaderSize
	if max <= 0 {
		max = DefaultMaxHeaderSize
	}
	return ReadResponse(br, r, max)
}
