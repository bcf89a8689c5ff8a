package fastcgi

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/mosaic-edge/mosaic/internal/gateway"
)

// Client encodes FastCGI requests and decodes their responses. Its methods
// are those of proxy.Wire. The zero value sends no parameters; a Client
// is safe for concurrent use once set up.
type Client struct {
	// Params appends the parameters of r to dst, each name and value
	// encoded with AppendPair: CGI/1.1's variables (SCRIPT_FILENAME,
	// QUERY_STRING, ...) and the request's header lines as HTTP_*. nil
	// sends none.
	Params func(dst []byte, r *http.Request) []byte
	// KeepConn asks the application to keep the connection open after the
	// response (fastcgi_keep_conn on); without it the application closes
	// it, and the Response says so.
	KeepConn bool
	// Stderr receives what the application writes to its error stream,
	// one call per record, trailing line ends removed. nil logs it to
	// slog.Default at the error level, as NGINX logs "FastCGI sent in
	// stderr".
	Stderr func(r *http.Request, text string)
	// MaxHeader bounds the response head; 0 means 64 KiB.
	MaxHeader int
	// DropBody sends no request body, only its end
	// (fastcgi_pass_request_body off); CONTENT_LENGTH is what the
	// parameters say.
	DropBody bool
	// CatchStderr are strings that, found in the application's error
	// stream, make its response invalid (fastcgi_catch_stderr): an error
	// the gateway answers with 502.
	CatchStderr []string
	// Warn receives the client's own warnings about an answer it could
	// still relay (NGINX's "upstream sent more data than specified in
	// "Content-Length" header"). nil logs them to slog.Default at the
	// warning level.
	Warn func(r *http.Request, text string)
	// Error receives the client's own errors about an answer it still
	// relays, cut short (NGINX's "upstream prematurely closed FastCGI
	// stdout" for a body short of its Content-Length). nil logs them to
	// slog.Default at the error level.
	Error func(r *http.Request, text string)
}

// ErrCaught is returned for a response whose error stream holds one of
// Client.CatchStderr.
var ErrCaught = errors.New("FastCGI error stream matched fastcgi_catch_stderr")

// ErrTooBig is returned by AppendHead for parameters over one record.
var ErrTooBig = errors.New("fastcgi request record is too big")

// headPool holds the readers response heads are parsed from.
var headPool sync.Pool

// The BEGIN_REQUEST records, with and without the keep-connection flag.
var (
	beginClose = AppendRecord(nil, TypeBeginRequest, []byte{0, roleResponder, 0, 0, 0, 0, 0, 0})
	beginKeep  = AppendRecord(nil, TypeBeginRequest, []byte{0, roleResponder, flagKeepConn, 0, 0, 0, 0, 0})
)

// AppendHead appends the BEGIN_REQUEST record and the parameters to dst.
// The parameters go in one PARAMS record, as NGINX sends them; those that
// do not fit its 65,535 bytes fail with ErrTooBig, NGINX's 500 "fastcgi
// request record is too big", rather than being split over records, which
// the FastCGI spec allows but an application behind NGINX never sees.
func (c *Client) AppendHead(dst []byte, r *http.Request, _ int64) ([]byte, error) {
	if c.KeepConn {
		dst = append(dst, beginKeep...)
	} else {
		dst = append(dst, beginClose...)
	}
	if c.Params == nil {
		return append(dst, paramsEnd[maxPad:]...), nil
	}
	// The pairs are encoded in place, after room for the record's header,
	// which is written once their length is known.
	start := len(dst)
	dst = c.Params(append(dst, zeros[:headerLen]...), r)
	n := len(dst) - start - headerLen
	if n > maxRecord {
		return dst[:start], fmt.Errorf("%w: %d bytes of parameters", ErrTooBig, n)
	}
	// (Appended to an empty slice at start, the header overwrites the
	// room left for it.)
	appendHeader(dst[start:start], TypeParams, n)
	if n == 0 {
		return dst, nil // no pairs: that record ends the stream
	}
	return append(dst, paramsEnd[maxPad-int(dst[start+6]):]...), nil
}

// maxPad is the most padding a record has.
const maxPad = 7

// paramsEnd is what follows the pairs: room for their record's padding,
// then the empty PARAMS record that ends the stream, both appended in one
// copy of the padding's bytes and the record (its header built once).
var paramsEnd = AppendRecord(make([]byte, maxPad), TypeParams, nil)

// stdinEnd is the empty STDIN record that ends the request, built once.
var stdinEnd = AppendRecord(nil, TypeStdin, nil)

// WriteBody writes a piece of the body as STDIN records.
func (c *Client) WriteBody(bw *bufio.Writer, p []byte) error {
	if len(p) == 0 || c.DropBody {
		return nil
	}
	return writeRecords(bw, TypeStdin, p)
}

// EndBody writes the empty STDIN record that ends the request.
func (c *Client) EndBody(bw *bufio.Writer) error {
	_, err := bw.Write(stdinEnd)
	return err
}

// ReadResponse reads the CGI head from the STDOUT records that br
// delivers. The Response's Body reads the rest of STDOUT and ends with
// io.EOF at the END_REQUEST record; Close is false only when KeepConn
// was asked for and the END_REQUEST record has been read.
func (c *Client) ReadResponse(br *bufio.Reader, r *http.Request) (*http.Response, error) {
	s := &stdout{src: br, client: c}
	resp := &s.head.Response
	resp.Request = r // for the log lines of STDERR records before the head's end
	ok, err := s.headInPlace()
	if err == nil && !ok {
		if hb, ok := headPool.Get().(*bufio.Reader); ok {
			hb.Reset(s)
			s.hb = hb
		} else {
			s.hb = bufio.NewReaderSize(s, 4096)
		}
		err = gateway.ReadHeaderInto(&s.head, s.hb, false, c.MaxHeader)
	}
	if err != nil {
		switch {
		case errors.Is(err, io.EOF) && s.done:
			// END_REQUEST inside the head: NGINX's invalid header,
			// logged as the record it did not expect.
			err = &gateway.ProtocolError{Err: ErrUnexpectedRecord, Detail: fmt.Sprintf(": %d", TypeEndRequest)}
		case errors.Is(err, io.EOF):
			// The connection closed inside the head.
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	resp.Close = true
	s.body = true
	s.limit = resp.ContentLength
	resp.Body = s
	return resp, nil
}

// headInPlace parses the head where it lies in src's buffer when the
// first STDOUT record's content there holds all of it, php-fpm's usual
// answer: the body is then read from src, with no reader of the head's
// (hb) copying the record's content first. ok is false, with the content
// not read, when the head goes on past what src holds of the record (or
// past the record): ReadResponse reads it through hb then.
func (s *stdout) headInPlace() (ok bool, err error) {
	for s.left == 0 && !s.done {
		if err := s.next(); err != nil {
			return false, err
		}
	}
	b, _ := s.src.Peek(min(s.src.Buffered(), int(s.left)))
	if len(b) == 0 {
		return false, nil
	}
	n, ok, err := gateway.ParseHeadInto(&s.head, b, false, s.client.MaxHeader)
	if err != nil || !ok {
		return false, err
	}
	// A head that ends the record is taken with the record's padding,
	// which must be there too: reading it could fail, and the failure
	// is the body's, as hb's reading of the record makes it.
	if n == int(s.left) && s.src.Buffered() < n+int(s.pad) {
		return false, nil
	}
	// (Both in the buffer: discarding them cannot fail.)
	s.src.Discard(n)
	if s.left -= int32(n); s.left == 0 {
		s.src.Discard(int(s.pad))
	}
	return true, nil
}

// stdout reads the STDOUT stream of one response out of its records,
// logging STDERR records on the way. Read, through hb, serves the head;
// the Body reads hb's buffered rest, then the records.
//
// Every response allocates one, so it keeps to the 320-byte size class
// (TestStdoutSize): the request is the Response's, the record's lengths
// are kept at the protocol's widths (16 and 8 bits; int32 for the
// arithmetic) and share a word with the flags.
type stdout struct {
	src    *bufio.Reader
	hb     *bufio.Reader
	client *Client
	head   gateway.Head // the Response, allocated with its body reader
	left   int32        // content bytes left in the current STDOUT record
	pad    uint8        // padding after it
	done   bool
	ended  bool  // the body ended short at the end of STDOUT
	body   bool  // the head has been read: reads go through hb
	limit  int64 // body bytes the head's Content-Length leaves; -1: none
}

// warnTooLong is NGINX's warning for a body longer than its length.
const warnTooLong = `upstream sent more data than specified in "Content-Length" header`

// Read returns STDOUT content. Before the head is parsed it is hb's
// source; afterwards (Body) it drains hb first, and ends the body at the
// head's Content-Length.
//
// An application may write more than the length it stated (a PHP script
// that sets Content-Length and then prints a notice). The client's
// response must not carry more than the stated length, and its writer
// refuses a piece that crosses it, so the body ends there, as NGINX ends
// it, with the warning NGINX logs (see dropRest).
func (s *stdout) Read(p []byte) (int, error) {
	if !s.body || s.limit < 0 {
		return s.content(p)
	}
	if s.limit == 0 {
		return 0, s.dropRest()
	}
	if int64(len(p)) > s.limit {
		p = p[:s.limit]
	}
	n, err := s.content(p)
	s.limit -= int64(n)
	if err == io.EOF && s.short() {
		// The body ends before its length: the client's connection is
		// cut after what it got (the proxy's writer sees the length
		// unmet), and the error is NGINX's, said once.
		cause := ErrRequestEnded
		if s.ended {
			cause = ErrStdoutEnded
		}
		s.log(s.client.Error, slog.LevelError, cause.Error()+" while reading upstream")
		s.limit = -1
	}
	return n, err
}

// dropRest ends the body at its length. When the rest of the answer, up
// to END_REQUEST, has arrived already (the usual case: it comes with the
// body's last bytes), it is read and dropped, and the kept connection is
// left at the end of the answer for the next request. Otherwise the body
// ends at once and the connection is not kept (resp.Close stays true), as
// NGINX then closes it: waiting for an application that goes on writing
// would hold the client's response, which ends here. The warning is given
// for content seen past the length.
func (s *stdout) dropRest() error {
	whole := s.restBuffered()
	extra := s.left > 0 || s.hb != nil && s.hb.Buffered() > 0
	if whole {
		var buf [4096]byte
		for {
			n, err := s.content(buf[:])
			extra = extra || n > 0
			if err != nil {
				if err != io.EOF {
					return err
				}
				break
			}
		}
	}
	if extra {
		s.warn(warnTooLong)
	}
	s.limit = -1 // the end, said once
	return io.EOF
}

// Waits reports whether the body stands where NGINX, with
// fastcgi_keep_conn on, passes what it has to the client: the current
// STDOUT record's content is all read and the connection holds at most its
// padding and the next record's header, so the next read waits for the
// application. NGINX's input filter then wants a record's content whole
// before it goes on (its pipe's minimal length), and its event pipe
// writes to the client whenever the application has nothing more to
// read. Without keep_conn NGINX holds the body until its buffer fills or
// the answer ends: Waits is false (proxy.Pieces).
func (s *stdout) Waits() bool {
	return s.client.KeepConn && s.body && (s.hb == nil || s.hb.Buffered() == 0) &&
		s.left == 0 && !s.done && s.src.Buffered() <= int(s.pad)+headerLen
}

// restBuffered reports whether src holds the rest of the answer up to
// and with END_REQUEST, so that reading it cannot wait.
func (s *stdout) restBuffered() bool {
	if s.done {
		return true
	}
	b, _ := s.src.Peek(s.src.Buffered())
	i := int(s.left) + int(s.pad)
	for i+headerLen <= len(b) {
		h, err := parseHeader(b[i : i+headerLen])
		if err != nil {
			return true // reading it fails at once, without waiting
		}
		i += headerLen + int(h.ContentLength) + int(h.PaddingLength)
		if i > len(b) {
			return false
		}
		if h.Type == TypeEndRequest {
			return true
		}
	}
	return false
}

func (s *stdout) warn(text string) { s.log(s.client.Warn, slog.LevelWarn, text) }

// log gives text to hook, or to slog.Default at level without one.
func (s *stdout) log(hook func(*http.Request, string), level slog.Level, text string) {
	r := s.head.Response.Request
	if hook != nil {
		hook(r, text)
	} else {
		slog.Log(context.Background(), level, text, "request", r.Method+" "+r.URL.RequestURI())
	}
}

// content returns STDOUT content, through hb once the head is parsed.
func (s *stdout) content(p []byte) (int, error) {
	if s.body && s.hb != nil {
		if s.hb.Buffered() > 0 {
			return s.hb.Read(p)
		}
		// The head's reader is done with: the next response takes it.
		s.hb.Reset(nil)
		headPool.Put(s.hb)
		s.hb = nil
	}
	return s.read(p)
}

func (s *stdout) read(p []byte) (int, error) {
	if s.ended {
		return 0, io.EOF
	}
	for s.left == 0 {
		if s.done {
			if s.body {
				// The whole response is read: the connection can carry
				// another request if the application was asked to keep it.
				s.head.Response.Close = !s.client.KeepConn
			}
			return 0, io.EOF
		}
		if err := s.next(); err != nil {
			return 0, err
		}
	}
	if len(p) > int(s.left) {
		p = p[:s.left]
	}
	n, err := s.src.Read(p)
	s.left -= int32(n)
	if s.left == 0 && err == nil {
		_, err = s.src.Discard(int(s.pad))
	}
	if err != nil {
		err = unexpected(err)
	}
	return n, err
}

// next reads record headers until one starts STDOUT content or the
// request ends.
func (s *stdout) next() error {
	for {
		h, err := readHeader(s.src)
		if err != nil {
			return unexpected(err)
		}
		if h.RequestID != requestID {
			return requestIDError(h.RequestID)
		}
		n, pad := int(h.ContentLength), int(h.PaddingLength)
		switch h.Type {
		case TypeStdout:
			if n == 0 && !s.body {
				// The end of STDOUT inside the head: NGINX's invalid
				// header, a 502.
				return &gateway.ProtocolError{Err: ErrStdoutEnded}
			}
			if n == 0 && s.short() {
				// The end of STDOUT before the body's length: the body
				// ends there, short, as NGINX cuts it, rather than being
				// filled from records that break the protocol. The
				// connection, not read to END_REQUEST, is not kept.
				s.ended = true
				return io.EOF
			}
			if n == 0 {
				// The end of STDOUT; END_REQUEST follows. STDOUT after
				// it is relayed all the same, as NGINX does where no
				// length is left to fill.
				if _, err := s.src.Discard(pad); err != nil {
					return unexpected(err)
				}
				continue
			}
			// (The record's header holds them in 16 and 8 bits.)
			s.left, s.pad = int32(n), uint8(pad)
			return nil
		case TypeStderr:
			if err := s.stderr(n, pad); err != nil {
				return err
			}
		case TypeEndRequest:
			// The application's exit status and the protocol status
			// (REQUEST_COMPLETE, or a refusal NGINX does not act on
			// either) are not used.
			if n < 8 {
				return fmt.Errorf("%w: END_REQUEST of %d bytes", ErrRecord, n)
			}
			if _, err := s.src.Discard(n + pad); err != nil {
				return unexpected(err)
			}
			s.done = true
			return nil
		default:
			return &gateway.ProtocolError{Err: ErrRecord, Detail: fmt.Sprintf(": %d", h.Type)}
		}
	}
}

// short reports whether the body read so far falls short of the head's
// Content-Length. A 204, a 304 and the answer to HEAD have no body to
// fall short of it, as in NGINX.
func (s *stdout) short() bool {
	resp := &s.head.Response
	return s.body && s.limit > 0 && resp.StatusCode != http.StatusNoContent &&
		resp.StatusCode != http.StatusNotModified && (resp.Request == nil || resp.Request.Method != http.MethodHead)
}

func (s *stdout) stderr(n, pad int) error {
	buf := make([]byte, n+pad)
	if _, err := io.ReadFull(s.src, buf); err != nil {
		return unexpected(err)
	}
	text := strings.TrimRight(string(buf[:n]), "\r\n .")
	if text == "" {
		return nil
	}
	if s.client.Stderr != nil {
		s.client.Stderr(s.head.Response.Request, text)
	} else {
		r := s.head.Response.Request
		slog.Error("FastCGI sent in stderr: \""+text+"\"", "request", r.Method+" "+r.URL.RequestURI())
	}
	for _, catch := range s.client.CatchStderr {
		if strings.Contains(string(buf[:n]), catch) {
			return fmt.Errorf("%w: %q", ErrCaught, catch)
		}
	}
	return nil
}

// Close is a no-op: the connection belongs to the caller.
func (s *stdout) Close() error { return nil }

// Plain tells the proxy that the head has no Connection, no X-Accel-*
// field and no name to spell, so that it does not look them up
// (proxy.PlainHead).
func (s *stdout) Plain() bool { return s.head.Plain() }

// Spellings tells the proxy the head's names as the application wrote
// them where the header holds them in canonical case (proxy.Spelt).
func (s *stdout) Spellings() []string { return s.head.Spellings() }

// requestIDError words a wrong request id as NGINX does, which compares
// the id's high byte first, then its low byte, and names the first that
// differs with the byte it got.
func requestIDError(id uint16) error {
	if id>>8 != requestID>>8 {
		return &gateway.ProtocolError{Err: ErrRequestID, Detail: fmt.Sprintf(" high byte: %d", id>>8)}
	}
	return &gateway.ProtocolError{Err: ErrRequestID, Detail: fmt.Sprintf(" low byte: %d", id&0xff)}
}
