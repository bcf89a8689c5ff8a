package proxy

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/mosaic-edge/mosaic/internal/chunked"
	"github.com/mosaic-edge/mosaic/internal/header"
)

// net/http's response reader accepts one Transfer-Encoding, "chunked", and
// refuses any other, which would make every such answer a 502. Its
// strictness guards against request smuggling; here the framing only
// says where one response ends on a connection that is closed after it,
// so the head that http.ReadResponse refused is read again, by RFC 9112's
// rules (section 6.3): with Transfer-Encoding, Content-Length does not
// count; a list that ends in chunked is chunked, any other is delimited
// by the connection's close, which is then never reused. The codings are
// undone (gzip, deflate); a coding mosaic cannot undo is refused with 502,
// as NGINX 1.23 and later do: relayed as if plain, it would reach clients
// and the cache as a corrupt body. compress (LZW) is one of these: Go's
// compress/lzw does not read the format of Unix compress(1).

// errBadTransferEncoding is a Transfer-Encoding whose framing cannot be
// known: a list with an empty or malformed member, or chunked applied
// twice.
var errBadTransferEncoding = errors.New("upstream sent invalid \"Transfer-Encoding\"")

// errUnknownTransferCoding is a transfer coding that cannot be undone.
var errUnknownTransferCoding = errors.New("upstream sent unknown \"Transfer-Encoding\"")

// recordHead starts keeping a copy of what c reads, from the bytes c.br
// holds already: the head that the next http.ReadResponse consumes.
func (c *conn) recordHead() {
	c.head = c.head[:0]
	if n := c.br.Buffered(); n > 0 {
		b, _ := c.br.Peek(n)
		c.head = append(c.head, b...)
	}
	c.recording = true
}

// recordedHead stops the copy and returns the bytes http.ReadResponse
// consumed: those read, less those c.br still holds.
func (c *conn) recordedHead() []byte {
	c.recording = false
	return c.head[:len(c.head)-c.br.Buffered()]
}

// otherCodings reads again the head that http.ReadResponse refused with
// readErr, and returns the response when the refusal was its
// Transfer-Encoding. Any other refusal stands: it returns readErr (nil,
// with no response, for an HTTP/1.0 head that net/http took and that has
// no Transfer-Encoding).
func otherCodings(head []byte, br *bufio.Reader, r *http.Request, readErr error) (*http.Response, error) {
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(head)))
	line, err := tp.ReadLine()
	if err != nil {
		return nil, readErr
	}
	mh, err := tp.ReadMIMEHeader()
	if err != nil || len(mh["Transfer-Encoding"]) == 0 {
		return nil, readErr
	}
	resp, err := statusLine(line)
	if err != nil {
		return nil, readErr
	}
	codings, err := transferCodings(mh["Transfer-Encoding"])
	if err == nil && len(codings) == 0 {
		err = errBadTransferEncoding
	}
	if err == nil && slices.ContainsFunc(codings, func(c string) bool { return decoder(c) == nil }) {
		err = errUnknownTransferCoding
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %q", err, header.Join(http.Header(mh), "Transfer-Encoding"))
	}
	delete(mh, "Transfer-Encoding")
	delete(mh, "Content-Length")
	resp.Header = http.Header(mh)
	resp.ContentLength = -1
	resp.Close = true
	resp.Request = r
	if r.Method == http.MethodHead || !bodyAllowed(resp.StatusCode) {
		resp.Body = http.NoBody
		return resp, nil
	}
	var body io.Reader = br
	if codings[len(codings)-1] == "chunked" {
		// The connection closes after the body: its trailer is not
		// waited for.
		body = chunked.NewLaxReader(br)
		codings = codings[:len(codings)-1]
	}
	// Undone from the last applied to the first.
	for i := len(codings) - 1; i >= 0; i-- {
		body = &lazyReader{src: body, open: decoder(codings[i])}
	}
	resp.Body = io.NopCloser(body)
	return resp, nil
}

// statusLine reads "HTTP/1.1 200 OK".
func statusLine(line string) (*http.Response, error) {
	proto, rest, ok := strings.Cut(line, " ")
	code, _, _ := strings.Cut(rest, " ")
	major, minor, vok := http.ParseHTTPVersion(proto)
	n, err := strconv.Atoi(code)
	if !ok || !vok || err != nil || len(code) != 3 || n < 100 {
		return nil, errors.New("malformed status line")
	}
	return &http.Response{Status: rest, StatusCode: n, Proto: proto, ProtoMajor: major, ProtoMinor: minor}, nil
}

// transferCodings lists the codings of the Transfer-Encoding lines in the
// order applied, lower-cased, without their parameters.
func transferCodings(lines []string) ([]string, error) {
	var codings []string
	for _, line := range lines {
		for item := range strings.SplitSeq(line, ",") {
			if header.TrimOWS(item) == "" {
				continue // empty list members do not count (RFC 9110 section 5.6.1)
			}
			name, _, _ := strings.Cut(item, ";")
			name = strings.ToLower(header.TrimOWS(name))
			if !header.IsToken(name) {
				return nil, errBadTransferEncoding
			}
			codings = append(codings, name)
		}
	}
	for i, c := range codings {
		// chunked is applied at most once (RFC 9112 section 6.1); a
		// later coding then makes the body close-delimited.
		if c == "chunked" && i != lastIndex(codings, "chunked") {
			return nil, errBadTransferEncoding
		}
	}
	return codings, nil
}

func lastIndex(list []string, s string) int {
	for i := len(list) - 1; i >= 0; i-- {
		if list[i] == s {
			return i
		}
	}
	return -1
}

// decoder returns what undoes a transfer coding of RFC 9112 section 7,
// or nil for one that mosaic cannot undo (chunked, inside another coding,
// is undone too). compress is not here: its LZW variant is not the one
// compress/lzw reads.
func decoder(coding string) func(io.Reader) (io.Reader, error) {
	switch coding {
	case "gzip", "x-gzip":
		return func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }
	case "deflate":
		return func(r io.Reader) (io.Reader, error) { return zlib.NewReader(r) }
	case "chunked":
		return func(r io.Reader) (io.Reader, error) { return chunked.NewLaxReader(bufio.NewReader(r)), nil }
	}
	return nil
}

// chunkedBody is an upstream's chunked body, read as NGINX reads it
// (chunked.NewLaxReader), where net/http's reader refused what NGINX
// takes (whitespace before an extension, lines ended by LF alone) with
// a 502, and then its trailer.
type chunkedBody struct {
	cr   *chunked.Reader
	br   *bufio.Reader
	resp *http.Response // its Trailer gets the trailer's fields
	line []byte         // the trailer line being read
	err  error
}

func newChunkedBody(br *bufio.Reader, resp *http.Response) io.ReadCloser {
	return &chunkedBody{cr: chunked.NewLaxReader(br), br: br, resp: resp}
}

func (b *chunkedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.cr.Read(p)
	if err == io.EOF {
		err = b.readTrailer()
	}
	b.err = err
	return n, err
}

func (b *chunkedBody) Close() error { return nil }

// Waits reports whether the body stands where NGINX's buffered relay
// passes on what it has: its last chunk is whole and the next read needs
// the upstream (what the connection holds is at most a chunk's line end
// or the start of a size line, with no data after it). NGINX's event pipe
// runs its input filter on a chunk once the chunk is in and writes to the
// client whenever the upstream has nothing more to read, so each event of
// a server-sent-events stream reaches the client as it comes.
func (b *chunkedBody) Waits() bool {
	return b.err == nil && b.cr.ChunkEnded() && b.br.Buffered() <= 2
}

// errTrailerCR is a CR in the trailer that ends no line.
var errTrailerCR = fmt.Errorf("%w: a CR that ends no line in the trailer", chunked.ErrFraming)

// readTrailer reads the trailer section, which ends with an empty line,
// as NGINX's parser does: any lines, each ended by LF with at most a CR
// before it; NGINX keeps none of them, and sets no bound. The fields of
// its first maxHeaderBytes go to the response's Trailer, as net/http's
// reader put them there ($upstream_trailer_NAME); lines that are not
// fields, and what comes past the bound, are read and dropped. It
// returns io.EOF at the end of the section.
func (b *chunkedBody) readTrailer() error {
	size, n := 0, 0 // the section's bytes so far, the line's
	b.line = b.line[:0]
	for {
		c, err := b.br.ReadByte()
		if err == nil && c == '\r' {
			size++
			if c, err = b.br.ReadByte(); err == nil && c != '\n' {
				return errTrailerCR
			}
		}
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
		size++
		if c != '\n' {
			n++
			if size <= maxHeaderBytes {
				b.line = append(b.line, c)
			}
			continue
		}
		if n == 0 {
			return io.EOF
		}
		if size <= maxHeaderBytes {
			b.keepField(string(b.line))
		}
		n, b.line = 0, b.line[:0]
	}
}

// keepField adds a trailer line to the response's Trailer if it is a
// field: a token, a colon, and a valid value.
func (b *chunkedBody) keepField(line string) {
	name, value, ok := strings.Cut(line, ":")
	value = header.TrimOWS(value)
	if !ok || !header.IsToken(name) || !httpguts.ValidHeaderFieldValue(value) {
		return
	}
	if b.resp.Trailer == nil {
		b.resp.Trailer = make(http.Header)
	}
	b.resp.Trailer.Add(textproto.CanonicalMIMEHeaderKey(name), value)
}

// lazyReader opens its decoder on the first Read: a gzip reader reads its
// header at once, which must not hold up the response's head.
type lazyReader struct {
	src  io.Reader
	open func(io.Reader) (io.Reader, error)
	r    io.Reader
	err  error
}

func (l *lazyReader) Read(p []byte) (int, error) {
	if l.r == nil && l.err == nil {
		l.r, l.err = l.open(l.src)
	}
	if l.err != nil {
		return 0, l.err
	}
	return l.r.Read(p)
}

// bodyAllowed reports whether a response with this status has a body.
func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}
