package fastcgi

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/mosaic-edge/mosaic/internal/gateway"
)

// Record types (FastCGI specification, section 8).
const (
	TypeBeginRequest    uint8 = 1
	TypeAbortRequest    uint8 = 2
	TypeEndRequest      uint8 = 3
	TypeParams          uint8 = 4
	TypeStdin           uint8 = 5
	TypeStdout          uint8 = 6
	TypeStderr          uint8 = 7
	TypeData            uint8 = 8
	TypeGetValues       uint8 = 9
	TypeGetValuesResult uint8 = 10
	TypeUnknownType     uint8 = 11
)

const (
	version1      = 1
	headerLen     = 8
	roleResponder = 1
	flagKeepConn  = 1
	// maxContent is the most a record carries; NGINX writes at most 32 KiB
	// per record, which keeps records 8-byte aligned with little padding.
	maxContent = 32 << 10
	// maxRecord is the most a record's 16-bit length can say.
	maxRecord = 1<<16 - 1
	// requestID is the only request a connection carries at a time, as
	// with NGINX, which does not multiplex.
	requestID = 1
)

// Errors of a stream that is not FastCGI as this client speaks it; a
// gateway answers them with 502, as NGINX does.
var (
	ErrVersion   = errors.New("upstream sent unsupported FastCGI protocol version")
	ErrRecord    = errors.New("upstream sent invalid FastCGI record type")
	ErrRequestID = errors.New("upstream sent unexpected FastCGI request id")
	// ErrStdoutEnded is an empty STDOUT record, the stream's end, before
	// the head's end or the body's length; ErrUnexpectedRecord an
	// END_REQUEST in the head, ErrRequestEnded one before the body's
	// length.
	ErrStdoutEnded      = errors.New("upstream prematurely closed FastCGI stdout")
	ErrRequestEnded     = errors.New("upstream prematurely closed FastCGI request")
	ErrUnexpectedRecord = errors.New("upstream sent unexpected FastCGI record")
	ErrParams           = errors.New("malformed FastCGI name-value pairs")
)

// Header is a record's header.
type Header struct {
	Type          uint8
	RequestID     uint16
	ContentLength uint16
	PaddingLength uint8
}

// appendHeader appends a record header with the padding that aligns the
// record on 8 bytes.
func appendHeader(dst []byte, typ uint8, n int) []byte {
	pad := (8 - n%8) % 8
	return append(dst, version1, typ, 0, requestID, byte(n>>8), byte(n), byte(pad), 0)
}

var zeros [8]byte

// writeRecords writes p as records of type typ, split at maxContent and
// padded; an empty p writes one empty record, the end of a stream.
func writeRecords(bw *bufio.Writer, typ uint8, p []byte) error {
	for {
		n := min(len(p), maxContent)
		pad := writeHeader(bw, typ, n)
		bw.Write(p[:n])
		if _, err := bw.Write(zeros[:pad]); err != nil {
			return err
		}
		p = p[n:]
		if len(p) == 0 {
			return nil
		}
	}
}

// writeHeader writes a record header into bw's buffer and returns the
// padding it announces. The header is built in the buffer itself: an
// array of the caller's would escape through bufio.Writer.Write to the
// heap, an allocation per record.
func writeHeader(bw *bufio.Writer, typ uint8, n int) int {
	if bw.Available() < headerLen {
		bw.Flush() // an error stays in bw for the next Write to return
	}
	h := appendHeader(bw.AvailableBuffer(), typ, n)
	bw.Write(h)
	return int(h[6])
}

// ReadHeader reads a record header, checking the protocol version.
func ReadHeader(r io.Reader) (Header, error) {
	var b [headerLen]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return Header{}, err
	}
	return parseHeader(b[:])
}

// readHeader is ReadHeader from a bufio.Reader, whose buffer the header
// is parsed in, without the copy (and the allocation) of ReadHeader.
func readHeader(br *bufio.Reader) (Header, error) {
	b, err := br.Peek(headerLen)
	if err != nil {
		if len(b) > 0 && err == io.EOF {
			err = io.ErrUnexpectedEOF // as io.ReadFull reports a part
		}
		return Header{}, err
	}
	h, err := parseHeader(b)
	br.Discard(headerLen)
	return h, err
}

// parseHeader reads the header in b, checking the protocol version.
func parseHeader(b []byte) (Header, error) {
	if b[0] != version1 {
		return Header{}, &gateway.ProtocolError{Err: ErrVersion, Detail: fmt.Sprintf(": %d", b[0])}
	}
	return Header{
		Type:          b[1],
		RequestID:     binary.BigEndian.Uint16(b[2:]),
		ContentLength: binary.BigEndian.Uint16(b[4:]),
		PaddingLength: b[6],
	}, nil
}

// ReadRecord reads a whole record: its header and its content, without
// the padding.
func ReadRecord(r io.Reader) (Header, []byte, error) {
	h, err := ReadHeader(r)
	if err != nil {
		return h, nil, err
	}
	buf := make([]byte, int(h.ContentLength)+int(h.PaddingLength))
	if _, err := io.ReadFull(r, buf); err != nil {
		return h, nil, unexpected(err)
	}
	return h, buf[:h.ContentLength], nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Pairs is FastCGI's encoding of parameters for gateway.Params.Encoder:
// a value below 128 bytes has its length in the one byte before the
// name, whatever the name's length.
var Pairs = gateway.PairEncoding{Pair: AppendPair, Head: AppendPairHead, Short: 127}

// AppendPair appends a name-value pair in FastCGI's encoding: each length
// in one byte below 128, else in four with the high bit set.
func AppendPair(dst []byte, name, value string) []byte {
	if len(name) < 128 && len(value) < 128 {
		// The usual pair (every parameter of every request): both lengths
		// in one append.
		dst = append(dst, byte(len(name)), byte(len(value)))
		return append(append(dst, name...), value...)
	}
	return append(AppendPairHead(dst, name, len(value)), value...)
}

// AppendPairHead appends what comes before the value in the pair of name
// and a value n bytes long: the value's bytes are to follow.
func AppendPairHead(dst []byte, name string, n int) []byte {
	dst = appendLength(dst, len(name))
	dst = appendLength(dst, n)
	return append(dst, name...)
}

func appendLength(dst []byte, n int) []byte {
	if n < 128 {
		return append(dst, byte(n))
	}
	return binary.BigEndian.AppendUint32(dst, uint32(n)|1<<31)
}

// ParsePairs decodes the content of PARAMS records, concatenated.
func ParsePairs(b []byte) ([][2]string, error) {
	var out [][2]string
	for len(b) > 0 {
		var nl, vl int
		var ok bool
		if nl, b, ok = cutLength(b); !ok {
			return nil, ErrParams
		}
		if vl, b, ok = cutLength(b); !ok {
			return nil, ErrParams
		}
		if nl > len(b) || vl > len(b)-nl {
			return nil, ErrParams
		}
		out = append(out, [2]string{string(b[:nl]), string(b[nl : nl+vl])})
		b = b[nl+vl:]
	}
	return out, nil
}

func cutLength(b []byte) (int, []byte, bool) {
	if len(b) == 0 {
		return 0, nil, false
	}
	if b[0] < 128 {
		return int(b[0]), b[1:], true
	}
	if len(b) < 4 {
		return 0, nil, false
	}
	return int(binary.BigEndian.Uint32(b) &^ (1 << 31)), b[4:], true
}

// AppendRecord appends a whole record of request 1 carrying content (at
// most 65535 bytes), padded to 8 bytes: what an application writes.
func AppendRecord(dst []byte, typ uint8, content []byte) []byte {
	start := len(dst)
	dst = appendHeader(dst, typ, len(content))
	pad := dst[start+6]
	dst = append(dst, content...)
	return append(dst, zeros[:pad]...)
}
