package http1

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"net/http"
)

// chunkedReader decodes a chunked request body (RFC 9112, section 7.1),
// as strictly as net/http's reader (lines end with CRLF, no other CR,
// chunk data ends with CRLF, a bound on what is not data), but for the
// size line: whitespace before a chunk extension's ";" is taken, which
// the RFC's grammar allows (BWS) and NGINX accepts, where net/http
// refuses the request; and a size may have any number of leading zeros.
// Once a size line takes the body past max (body.LimitBody), the read
// fails with *http.MaxBytesError at once, as NGINX answers 413 then,
// rather than wait for data that may never come.
//
// The trailer after the last chunk is left to the caller (body.readTrailer).
type chunkedReader struct {
	br       *bufio.Reader
	n        int64 // bytes left of the current chunk
	checkEnd bool  // the CRLF after a chunk's data is next
	total    int64 // the sizes announced so far
	max      int64 // the most total may reach; 0: no limit
	excess   int64 // bytes of framing beyond what the data allows
	err      error
}

// maxChunkLine bounds a chunk's size line, extensions included, as
// net/http does; it fits the connection's 4 KB read buffer.
const maxChunkLine = 4096

func (cr *chunkedReader) Read(p []byte) (n int, err error) {
	for cr.err == nil {
		if cr.checkEnd {
			if n > 0 && cr.br.Buffered() < 2 {
				break // return what there is rather than wait
			}
			var end [2]byte
			if _, cr.err = io.ReadFull(cr.br, end[:]); cr.err != nil {
				if cr.err == io.EOF {
					cr.err = io.ErrUnexpectedEOF
				}
				break
			}
			if string(end[:]) != "\r\n" {
				cr.err = errors.New("malformed chunked encoding")
				break
			}
			cr.checkEnd = false
		}
		if cr.n == 0 {
			if n > 0 && !cr.lineBuffered() {
				break
			}
			cr.beginChunk()
			continue
		}
		if len(p) == 0 {
			break
		}
		q := p
		if int64(len(q)) > cr.n {
			q = q[:cr.n]
		}
		var m int
		m, cr.err = cr.br.Read(q)
		n += m
		p = p[m:]
		cr.n -= int64(m)
		if cr.n == 0 && cr.err == nil {
			cr.checkEnd = true
		} else if cr.err == io.EOF {
			cr.err = io.ErrUnexpectedEOF
		}
	}
	return n, cr.err
}

// lineBuffered reports whether a whole line is in the buffer, so that the
// next chunk's size can be read without blocking.
func (cr *chunkedReader) lineBuffered() bool {
	b, _ := cr.br.Peek(cr.br.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// beginChunk reads a chunk's size line; a size of 0 ends the chunks with
// io.EOF.
func (cr *chunkedReader) beginChunk() {
	line, err := cr.br.ReadSlice('\n')
	switch {
	case err == io.EOF:
		cr.err = io.ErrUnexpectedEOF
		return
	case err == bufio.ErrBufferFull || len(line) > maxChunkLine:
		cr.err = errors.New("chunk size line too long")
		return
	case err != nil:
		cr.err = err
		return
	}
	if len(line) < 2 || bytes.IndexByte(line, '\r') != len(line)-2 {
		cr.err = errors.New("chunk size line not ended by CRLF")
		return
	}
	cr.excess += int64(len(line))
	line = line[:len(line)-2]
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	line = bytes.TrimRight(line, " \t")
	size, ok := parseChunkSize(line)
	if !ok {
		cr.err = errors.New("invalid chunk size")
		return
	}
	// Framing is allowed 16 bytes a chunk and twice the chunk's data, as
	// net/http allows, so that extensions cannot make a body mostly noise.
	cr.excess = max(cr.excess-16-2*size, 0)
	if cr.excess > 16<<10 {
		cr.err = errors.New("chunked encoding contains too much non-data")
		return
	}
	if cr.max > 0 && size > cr.max-cr.total {
		cr.err = &http.MaxBytesError{Limit: cr.max}
		return
	}
	cr.total += size
	cr.n = size
	if size == 0 {
		cr.err = io.EOF
	}
}

// parseChunkSize reads a chunk size: hexadecimal digits, leading zeros
// allowed, no sign or prefix, below 2⁶³.
func parseChunkSize(s []byte) (int64, bool) {
	if len(s) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range s {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		if n > math.MaxInt64>>4 {
			return 0, false
		}
		n = n<<4 | int64(d)
	}
	return n, true
}
