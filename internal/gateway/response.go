package gateway

import (
	"bufio"
	"io"
	"net/http"
)

// ReadResponse reads an application's answer from br as NGINX's uwsgi and
// SCGI modules read it: an optional "HTTP/x.y NNN text" status line, then
// header lines; without a status line the CGI Status header gives the
// status, else a Location makes it 302, else it is 200 (ReadHeader). max
// bounds the head. The Body reads the rest of br: Content-Length bytes
// when the header gives a length (none for a HEAD request or a 204 or
// 304), a connection closed before them io.ErrUnexpectedEOF, as NGINX
// takes it for a body cut short; else up to the end of the connection.
// Neither protocol has keepalive: Close is true.
//
// A connection closed before the head ends is io.ErrUnexpectedEOF, an
// upstream's failure, not an invalid header.
func ReadResponse(br *bufio.Reader, r *http.Request, max int) (*http.Response, error) {
	resp, err := ReadHeader(br, true, max)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	n := resp.ContentLength
	if r.Method == http.MethodHead || resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusNotModified {
		n = 0
	}
	var body io.Reader = br
	if n >= 0 {
		body = &lengthBody{br, n}
	}
	resp.Body = io.NopCloser(body)
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
