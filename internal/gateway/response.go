package gateway

import (
	"bufio"
	"io"
	"net/http"
)

// ReadResponse reads an application's answer from br as NGINX's uwsgi and
// SCGI modules read it: an optional "HTTP/x.y NNN text" status line, then
// header lines; without a status line the CGI Status header gives the
// status, else a Location makes it 302, else it is 200 (ReadHeaderInto). max
// bounds the head. The Body reads the rest of br: Content-Length bytes
// when the header gives a length (none for a HEAD request or a 204 or
// 304), a connection closed before them io.ErrUnexpectedEOF, as NGINX
// takes it for a body cut short; else up to the end of the connection.
// Neither protocol has keepalive: Close is true.
//
// A connection closed before the head ends is io.ErrUnexpectedEOF, an
// upstream's failure, not an invalid header.
func ReadResponse(br *bufio.Reader, r *http.Request, max int) (*http.Response, error) {
	head := new(Head)
	if err := ReadHeaderInto(head, br, true, max); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	resp := &head.Response
	n := resp.ContentLength
	if r.Method == http.MethodHead || resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusNotModified {
		n = 0
	}
	var body io.Reader = br
	if n >= 0 {
		body = &lengthBody{br, n}
	}
	resp.Body = io.NopCloser(body)
	if spell := head.Spellings(); spell != nil {
		resp.Body = spelledBody{resp.Body, spell}
	}
	resp.Request = r
	resp.Close = true
	return resp, nil
}

// lengthBody reads the n bytes of a body of known length from r; an end
// of r before them is io.ErrUnexpectedEOF.
type lengthBody struct {
	r io.Reader
	n int64
}

func (b *lengthBody) Read(p []byte) (int, error) {
	if b.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.r.Read(p)
	b.n -= int64(n)
	if err == io.EOF && b.n > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// spelledBody is the body of an answer whose head spells names otherwise
// than the header's keys: it tells them to the relay (proxy.Spelt). Only
// such an answer's body is wrapped, which hides the reader's WriteTo.
type spelledBody struct {
	io.ReadCloser
	spell []string
}

func (b spelledBody) Spellings() []string { return b.spell }
