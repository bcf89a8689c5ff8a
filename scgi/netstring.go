package scgi

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/mosaic-edge/mosaic/internal/gateway"
)

// Var is one variable of the request (a CGI parameter such as
// REQUEST_METHOD, or a request header as HTTP_NAME).
type Var = gateway.Var

// ErrNUL is returned by AppendRequest for a variable whose name or value
// holds a NUL byte: NUL ends a name or a value, so the application would
// read the rest as variables the server never sent.
var ErrNUL = errors.New("scgi: NUL byte in a variable")

// AppendRequest appends the netstring of a request to dst: CONTENT_LENGTH
// with contentLength, then vars in order, as NGINX sends them (it puts the
// body's length first itself; scgi_params adds SCGI=1).
func AppendRequest(dst []byte, contentLength int64, vars []Var) ([]byte, error) {
	var num [20]byte
	cl := strconv.AppendInt(num[:0], contentLength, 10)
	size := len("CONTENT_LENGTH") + 1 + len(cl) + 1
	for _, v := range vars {
		if hasNUL(v.Name) || hasNUL(v.Value) {
			return dst, fmt.Errorf("%w: %q", ErrNUL, v.Name)
		}
		size += len(v.Name) + 1 + len(v.Value) + 1
	}
	dst = strconv.AppendInt(dst, int64(size), 10)
	dst = append(dst, ":CONTENT_LENGTH\x00"...)
	dst = append(append(dst, cl...), 0)
	for _, v := range vars {
		dst = append(append(dst, v.Name...), 0)
		dst = append(append(dst, v.Value...), 0)
	}
	return append(dst, ','), nil
}

func hasNUL(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return true
		}
	}
	return false
}

// Request is a decoded request head: its variables, CONTENT_LENGTH
// first, and that length.
type Request struct {
	Vars          []Var
	ContentLength int64
}

// Get returns the value of the first variable called name.
func (r *Request) Get(name string) (string, bool) {
	for _, v := range r.Vars {
		if v.Name == name {
			return v.Value, true
		}
	}
	return "", false
}

// ErrMalformed is wrapped by ReadRequest's errors for a head that is not
// an SCGI netstring.
var ErrMalformed = errors.New("scgi: malformed request")

// ReadRequest reads a request's netstring from br, leaving the body (its
// ContentLength bytes) in br. The netstring must be at most max bytes
// long (0: 64 KiB), hold NUL-terminated pairs and start with a decimal
// CONTENT_LENGTH (no sign, no leading zero), as the SCGI specification
// asks. A stream that ends before the netstring does is
// io.ErrUnexpectedEOF (io.EOF when it ends before the first byte).
func ReadRequest(br *bufio.Reader, max int) (*Request, error) {
	if max <= 0 {
		max = 64 << 10
	}
	size := 0
	for digits := 0; ; digits++ {
		c, err := br.ReadByte()
		if err != nil {
			if err == io.EOF && digits > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if c == ':' && digits > 0 {
			break
		}
		// A leading zero is refused, as netstrings refuse it: it makes
		// two spellings of one length.
		if c < '0' || c > '9' || digits > 0 && size == 0 {
			return nil, fmt.Errorf("%w: bad length", ErrMalformed)
		}
		size = size*10 + int(c-'0')
		if size > max {
			return nil, fmt.Errorf("%w: %d-byte head over the %d-byte limit", ErrMalformed, size, max)
		}
	}
	block := make([]byte, size+1)
	if _, err := io.ReadFull(br, block); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if block[size] != ',' {
		return nil, fmt.Errorf("%w: no comma after the netstring", ErrMalformed)
	}
	vars, err := ParseVars(block[:size])
	if err != nil {
		return nil, err
	}
	if len(vars) == 0 || vars[0].Name != "CONTENT_LENGTH" {
		return nil, fmt.Errorf("%w: CONTENT_LENGTH is not first", ErrMalformed)
	}
	n, err := strconv.ParseInt(vars[0].Value, 10, 64)
	// Digits only, without a leading zero: one spelling per length.
	if v := vars[0].Value; err != nil || v[0] < '0' || v[0] > '9' || len(v) > 1 && v[0] == '0' {
		return nil, fmt.Errorf("%w: CONTENT_LENGTH %q", ErrMalformed, vars[0].Value)
	}
	return &Request{Vars: vars, ContentLength: n}, nil
}

// ParseVars decodes the inside of a netstring: names and values, each
// ending with a NUL.
func ParseVars(b []byte) ([]Var, error) {
	var vars []Var
	for len(b) > 0 {
		name, rest, ok := bytes.Cut(b, []byte{0})
		if !ok {
			return nil, fmt.Errorf("%w: a name without its NUL", ErrMalformed)
		}
		value, rest, ok := bytes.Cut(rest, []byte{0})
		if !ok {
			return nil, fmt.Errorf("%w: the value of %q without its NUL", ErrMalformed, name)
		}
		vars = append(vars, Var{Name: string(name), Value: string(value)})
		b = rest
	}
	return vars, nil
}
