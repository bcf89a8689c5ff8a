package uwsgi

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"

	"github.com/mosaic-edge/mosaic/internal/gateway"
	"github.com/mosaic-edge/mosaic/internal/reqrule"
)

// DefaultMaxHeaderSize is the default limit on a response head, NGINX's
// uwsgi_buffer_size default (one memory page).
const DefaultMaxHeaderSize = 4096

// Wire encodes requests and decodes answers for one uwsgi_pass. Its
// methods are the ones the proxy package's Options.Wire asks for, so the
// server's upstream groups, timeouts and body handling carry uwsgi as
// they carry HTTP; Handler uses them over a connection of its own.
type Wire struct {
	// Modifier1 and Modifier2 go in the packet header (uwsgi_modifier1,
	// uwsgi_modifier2); 0 and 0 is a WSGI request.
	Modifier1, Modifier2 byte
	// Vars appends the variables of r to dst; nil means CGIVars.
	Vars func(dst []Var, r *http.Request) []Var
	// Extra follows the variables inside the packet (uwsgi_string).
	Extra []byte
	// MaxHeaderSize limits the response head (uwsgi_buffer_size); 0
	// means DefaultMaxHeaderSize.
	MaxHeaderSize int
	// DropBody sends the request without its body ("uwsgi_pass_request_body
	// off"); the variables still say what the client sent.
	DropBody bool
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

// WriteBody writes a piece of the request body: uwsgi sends it as it is.
func (w *Wire) WriteBody(bw *bufio.Writer, p []byte) error {
	if w.DropBody {
		return nil
	}
	_, err := bw.Write(p)
	return err
}

// EndBody writes nothing: the application reads CONTENT_LENGTH bytes.
func (w *Wire) EndBody(*bufio.Writer) error { return nil }

// ReadResponse reads the answer's head from br as NGINX reads a uwsgi
// application's: an optional "HTTP/x.y NNN text" status line, then header
// lines; without a status line the CGI Status header gives the status,
// else a Location makes it 302, else it is 200. The Body reads the rest
// of br: Content-Length bytes when the header gives a length (none for a
// HEAD request or a 204 or 304), else up to the end of the connection,
// which is never reused (Close is true).
func (w *Wire) ReadResponse(br *bufio.Reader, r *http.Request) (*http.Response, error) {
	max := w.MaxHeaderSize
	if max <= 0 {
		max = DefaultMaxHeaderSize
	}
	resp, err := gateway.ReadHeader(br, true, max)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF // closed before the end of the head
		}
		return nil, err
	}
	n := resp.ContentLength
	if r.Method == http.MethodHead || resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusNotModified {
		n = 0
	}
	var body io.Reader = br
	if n >= 0 {
		body = io.LimitReader(br, n)
	}
	resp.Body = io.NopCloser(body)
	resp.Request = r
	resp.Close = true
	return resp, nil
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

var cgiParams = gateway.NewParams([]gateway.Param{
	{Name: "QUERY_STRING", Value: func(r *http.Request) string { return r.URL.RawQuery }},
	{Name: "REQUEST_METHOD", Value: func(r *http.Request) string { return r.Method }},
	{Name: "CONTENT_TYPE", Value: func(r *http.Request) string { return r.Header.Get("Content-Type") }},
	{Name: "CONTENT_LENGTH", Value: func(r *http.Request) string {
		if r.ContentLength <= 0 {
			return ""
		}
		return strconv.FormatInt(r.ContentLength, 10)
	}},
	{Name: "REQUEST_URI", Value: func(r *http.Request) string {
		if r.RequestURI != "" {
			return reqrule.OriginForm(r.RequestURI) // $request_uri
		}
		return r.URL.RequestURI()
	}},
	{Name: "PATH_INFO", Value: func(r *http.Request) string { return r.URL.Path }},
	{Name: "SERVER_PROTOCOL", Value: func(r *http.Request) string { return r.Proto }},
	{Name: "REQUEST_SCHEME", Value: func(r *http.Request) string {
		if r.TLS != nil {
			return "https"
		}
		return "http"
	}},
	{Name: "HTTPS", IfNotEmpty: true, Value: func(r *http.Request) string {
		if r.TLS != nil {
			return "on"
		}
		return ""
	}},
	{Name: "REMOTE_ADDR", Value: func(r *http.Request) string { h, _ := splitHostPort(r.RemoteAddr); return h }},
	{Name: "REMOTE_PORT", Value: func(r *http.Request) string { _, p := splitHostPort(r.RemoteAddr); return p }},
	{Name: "SERVER_PORT", Value: func(r *http.Request) string {
		if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
			_, p := splitHostPort(a.String())
			return p
		}
		return ""
	}},
	{Name: "SERVER_NAME", Value: func(r *http.Request) string {
		if h, _ := splitHostPort(r.Host); h != "" {
			return h
		}
		return r.Host
	}},
}, true)

func splitHostPort(addr string) (host, port string) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", ""
	}
	return host, port
}
