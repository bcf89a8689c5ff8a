package memcached

import (
	"bufio"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
)

// Wire speaks memcached for one memcached_pass: its methods are the ones
// the proxy package's Options.Wire asks for, so that the server's upstream
// groups, balancers, keepalive pools, timeouts and next-upstream rules
// carry a get as they carry an HTTP request.
type Wire struct {
	// Key returns the key of r ($memcached_key); an empty one is an error
	// (NGINX's "the $memcached_key variable is not set"), answered 500.
	Key func(r *http.Request) string
	// GzipFlag is memcached_gzip_flag: a value whose flags share a bit
	// with it is sent with "Content-Encoding: gzip". 0 leaves the flags
	// unread.
	GzipFlag uint64
	// ContentType returns the Content-Type of a hit for r (the location's
	// types and default_type); nil or "" sends none.
	ContentType func(r *http.Request) string
	// MaxLineSize limits the answer's first line (memcached_buffer_size);
	// 0 means DefaultMaxLineSize.
	MaxLineSize int
	// Logger receives the invalid trailers; nil means slog.Default().
	Logger *slog.Logger
}

// ErrNoKey is a request without a key.
var ErrNoKey = errors.New(`the "$memcached_key" variable is not set`)

// AppendHead appends "get <key>\r\n" for r.
func (w *Wire) AppendHead(dst []byte, r *http.Request, _ int64) ([]byte, error) {
	key := w.Key(r)
	if key == "" {
		return nil, ErrNoKey
	}
	return AppendGet(dst, key), nil
}

// WriteBody drops the request body: a get has none, and NGINX discards
// the client's.
func (w *Wire) WriteBody(*bufio.Writer, []byte) error { return nil }

// EndBody writes nothing: the get line is the whole request.
func (w *Wire) EndBody(*bufio.Writer) error { return nil }

// ReadResponse reads memcached's answer to the get of r's key. A hit is a
// 200 with the value's length and the location's type (and
// "Content-Encoding: gzip" as GzipFlag says); its connection may be
// reused once the value and its trailer have been read whole. A miss is a
// 404 without a body on a connection that may be reused at once. For a
// HEAD, a hit's value is left unread and the connection closed. Any
// other answer is an *InvalidError, and a first line over MaxLineSize is
// ErrLineTooLong: an invalid header for the proxy (502).
func (w *Wire) ReadResponse(br *bufio.Reader, r *http.Request) (*http.Response, error) {
	max := w.MaxLineSize
	if max <= 0 {
		max = DefaultMaxLineSize
	}
	line, err := ReadLine(br, max)
	if err != nil {
		return nil, err
	}
	key := EscapeKey(nil, w.Key(r))
	a, err := ParseAnswer(line, key, w.GzipFlag)
	if err != nil {
		return nil, err
	}
	resp := &http.Response{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{}, Request: r}
	if !a.Found {
		w.logger().Info("key was not found by memcached", "key", string(key))
		resp.StatusCode, resp.Status = http.StatusNotFound, "404 Not Found"
		resp.Body = http.NoBody
		return resp, nil
	}
	resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
	resp.ContentLength = a.Length
	resp.Header["Content-Length"] = []string{strconv.FormatInt(a.Length, 10)}
	if w.ContentType != nil {
		if t := w.ContentType(r); t != "" {
			resp.Header["Content-Type"] = []string{t}
		}
	}
	if a.Gzip {
		resp.Header["Content-Encoding"] = []string{"gzip"}
	}
	// Not reusable until the trailer has been read, as NGINX keeps the
	// connection only then.
	resp.Close = true
	if r.Method == http.MethodHead {
		// NGINX sends the header alone and closes the connection with
		// the value unread, however large it is.
		resp.Body = http.NoBody
		return resp, nil
	}
	resp.Body = &valueBody{br: br, left: a.Length, end: func(err error) {
		if err != nil {
			w.logger().Error(err.Error(), "key", string(key))
			return
		}
		resp.Close = false
	}}
	return resp, nil
}

func (w *Wire) logger() *slog.Logger {
	if w.Logger != nil {
		return w.Logger
	}
	return slog.Default()
}
