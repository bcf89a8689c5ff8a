package uwsgi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/mosaic-edge/mosaic/internal/gateway"
)

// MaxVarsSize is the largest variables block a packet header can state:
// its size is a 16-bit number. NGINX refuses a request whose variables
// would not fit ("uwsgi request is too big").
const MaxVarsSize = 0xffff

// HeaderSize is the size of the packet header before the variables.
const HeaderSize = 4

// Var is one variable of the request (a CGI parameter such as
// REQUEST_METHOD, or a request header as HTTP_NAME).
type Var = gateway.Var

// ErrTooBig is returned by AppendRequest when the variables do not fit in
// MaxVarsSize bytes.
var ErrTooBig = errors.New("uwsgi request is too big")

// VarsSize is the size of the variables block that vars encode to.
func VarsSize(vars []Var) int {
	n := 0
	for _, v := range vars {
		n += 2 + len(v.Name) + 2 + len(v.Value)
	}
	return n
}

// AppendRequest appends the packet header and the variables block to dst.
// extra is appended after the variables and counted in the stated size, as
// NGINX's uwsgi_string is.
func AppendRequest(dst []byte, modifier1, modifier2 byte, vars []Var, extra []byte) ([]byte, error) {
	size := VarsSize(vars) + len(extra)
	if size > MaxVarsSize {
		return dst, fmt.Errorf("%w: %d bytes", ErrTooBig, size)
	}
	dst = append(dst, modifier1, byte(size), byte(size>>8), modifier2)
	// Every length fits in 16 bits: the whole block does.
	for _, v := range vars {
		dst = binary.LittleEndian.AppendUint16(dst, uint16(len(v.Name)))
		dst = append(dst, v.Name...)
		dst = binary.LittleEndian.AppendUint16(dst, uint16(len(v.Value)))
		dst = append(dst, v.Value...)
	}
	return append(dst, extra...), nil
}

// Packet is a decoded request packet header and its variables.
type Packet struct {
	Modifier1, Modifier2 byte
	Vars                 []Var
}

// Get returns the value of the first variable called name.
func (p *Packet) Get(name string) (string, bool) {
	for _, v := range p.Vars {
		if v.Name == name {
			return v.Value, true
		}
	}
	return "", false
}

// ErrMalformed is wrapped by the errors of ParseVars and ReadRequest for a
// variables block that does not decode.
var ErrMalformed = errors.New("uwsgi: malformed variables block")

// ReadRequest reads a packet header and its variables block from r,
// leaving the request body in r. A packet whose modifier1 is not 0 (a
// WSGI request with variables) is still decoded as variables.
func ReadRequest(r io.Reader) (*Packet, error) {
	var h [HeaderSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	block := make([]byte, binary.LittleEndian.Uint16(h[1:3]))
	if _, err := io.ReadFull(r, block); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	vars, err := ParseVars(block)
	if err != nil {
		return nil, err
	}
	return &Packet{Modifier1: h[0], Modifier2: h[3], Vars: vars}, nil
}

// ParseVars decodes a variables block.
func ParseVars(b []byte) ([]Var, error) {
	var vars []Var
	for len(b) > 0 {
		name, rest, ok := cutField(b)
		if !ok {
			return nil, fmt.Errorf("%w: name at offset %d", ErrMalformed, len(b))
		}
		value, rest, ok := cutField(rest)
		if !ok {
			return nil, fmt.Errorf("%w: value of %q", ErrMalformed, name)
		}
		vars = append(vars, Var{Name: string(name), Value: string(value)})
		b = rest
	}
	return vars, nil
}

// cutField splits a 16-bit length and that many bytes off the front of b.
func cutField(b []byte) (field, rest []byte, ok bool) {
	if len(b) < 2 {
		return nil, nil, false
	}
	n := int(binary.LittleEndian.Uint16(b))
	if len(b)-2 < n {
		return nil, nil, false
	}
	return b[2 : 2+n], b[2+n:], true
}
