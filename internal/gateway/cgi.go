package gateway

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
)

// HiddenHeaders are the response headers NGINX's FastCGI and uwsgi modules
// do not pass to the client by default: the CGI Status, which became the
// status line, and the X-Accel-* instructions meant for the server.
var HiddenHeaders = []string{
	"Status", "X-Accel-Expires", "X-Accel-Redirect", "X-Accel-Limit-Rate",
	"X-Accel-Buffering", "X-Accel-Charset",
}

// ErrInvalidHeader is wrapped by ReadHeader's errors for a head that does
// not parse; NGINX answers 502 and logs "upstream sent invalid header".
var ErrInvalidHeader = errors.New("upstream sent invalid header")

// ErrHeaderTooBig is returned by ReadHeader for a head over its limit.
var ErrHeaderTooBig = errors.New("upstream sent too big header")

// ReadHeader reads a CGI response head from br: header lines ending with
// LF or CRLF up to an empty line. The status is the Status header's first
// three digits, else 302 when there is a Location header, else 200, as
// NGINX's FastCGI module sets it; the Status header stays in the header
// (HiddenHeaders keeps it from the client). With statusLine, a first line
// "HTTP/x.y NNN text" gives the status instead, as uwsgi applications may
// send. max bounds the head's size (0: 64 KiB).
//
// The returned Response has no Body; the caller reads the body from br.
// Its ContentLength is the Content-Length header's value, or -1.
func ReadHeader(br *bufio.Reader, statusLine bool, max int) (*http.Response, error) {
	if max <= 0 {
		max = 64 << 10
	}
	resp := &http.Response{
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: make(http.Header), ContentLength: -1,
	}
	var line []byte
	total := 0
	first := true
	for {
		var err error
		line, total, err = readLine(br, line[:0], total, max)
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			break
		}
		if first && statusLine && bytes.HasPrefix(line, []byte("HTTP/")) {
			first = false
			code, ok := parseStatusLine(line)
			if !ok {
				return nil, fmt.Errorf("%w: %q", ErrInvalidHeader, line)
			}
			resp.StatusCode, resp.Status = code, string(line[9:])
			continue
		}
		first = false
		if err := addLine(resp.Header, line); err != nil {
			return nil, err
		}
	}
	if resp.StatusCode == 0 {
		if err := inferStatus(resp); err != nil {
			return nil, err
		}
	}
	if v := resp.Header["Content-Length"]; len(v) > 0 {
		if n, err := strconv.ParseInt(strings.TrimSpace(v[len(v)-1]), 10, 64); err == nil && n >= 0 {
			resp.ContentLength = n
		}
	}
	return resp, nil
}

// readLine reads one line without its end, failing beyond max bytes in all.
func readLine(br *bufio.Reader, dst []byte, total, max int) ([]byte, int, error) {
	for {
		frag, err := br.ReadSlice('\n')
		total += len(frag)
		if total > max {
			return nil, total, ErrHeaderTooBig
		}
		dst = append(dst, frag...)
		if err == nil {
			break
		}
		if err != bufio.ErrBufferFull {
			return nil, total, err
		}
	}
	dst = dst[:len(dst)-1]
	if n := len(dst); n > 0 && dst[n-1] == '\r' {
		dst = dst[:n-1]
	}
	return dst, total, nil
}

// addLine adds a "Name: value" line. As NGINX reads an upstream's header,
// a line without a colon is a name with an empty value, and a NUL, a bare
// CR or a line starting with white space is invalid.
func addLine(h http.Header, line []byte) error {
	if line[0] == ' ' || line[0] == '\t' || bytes.IndexByte(line, 0) >= 0 || bytes.IndexByte(line, '\r') >= 0 {
		return fmt.Errorf("%w: %q", ErrInvalidHeader, line)
	}
	name, value, _ := bytes.Cut(line, []byte(":"))
	name = bytes.TrimRight(name, " \t")
	if len(name) == 0 {
		return fmt.Errorf("%w: %q", ErrInvalidHeader, line)
	}
	key := textproto.CanonicalMIMEHeaderKey(string(name))
	h[key] = append(h[key], string(bytes.Trim(value, " \t")))
	return nil
}

// inferStatus sets the status of a head without a status line.
func inferStatus(resp *http.Response) error {
	if v := resp.Header["Status"]; len(v) > 0 {
		s := v[0]
		code := 0
		for i := 0; i < 3; i++ {
			if i >= len(s) || s[i] < '0' || s[i] > '9' {
				return fmt.Errorf("upstream sent invalid status %q: %w", s, ErrInvalidHeader)
			}
			code = code*10 + int(s[i]-'0')
		}
		if code < 100 {
			// NGINX would send it; net/http cannot write such a status.
			return fmt.Errorf("upstream sent invalid status %q: %w", s, ErrInvalidHeader)
		}
		resp.StatusCode, resp.Status = code, s
		if len(s) <= 3 {
			resp.Status = s + " " + http.StatusText(code)
		}
		return nil
	}
	if _, ok := resp.Header["Location"]; ok {
		resp.StatusCode, resp.Status = http.StatusFound, "302 Moved Temporarily"
		return nil
	}
	resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
	return nil
}

// parseStatusLine reads "HTTP/x.y NNN[ text]".
func parseStatusLine(line []byte) (int, bool) {
	if len(line) < 12 || line[5] < '0' || line[5] > '9' || line[6] != '.' ||
		line[7] < '0' || line[7] > '9' || line[8] != ' ' {
		return 0, false
	}
	code := 0
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return 0, false
		}
		code = code*10 + int(c-'0')
	}
	if code < 100 || (len(line) > 12 && line[12] != ' ') {
		return 0, false
	}
	return code, true
}
