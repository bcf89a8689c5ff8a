// Package chunked decodes HTTP/1.1's chunked transfer coding (RFC 9112,
// section 7.1): http1's request bodies and the proxy's upstream
// responses.
package chunked

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"net/http"
)

// ErrFraming is what every error of a body that is not chunked as it
// should be matches (errors.Is): NGINX's "invalid chunked body" and
// "upstream sent invalid chunked response".
var ErrFraming = errors.New("invalid chunked encoding")

// framingError is a framing error with its own words.
type framingError string

func (e framingError) Error() string        { return string(e) }
func (e framingError) Is(target error) bool { return target == ErrFraming }

const (
	errDataEnd   framingError = "malformed chunked encoding"
	errLineLong  framingError = "chunk size line too long"
	errLineEnd   framingError = "chunk size line not ended by CRLF"
	errBareCR    framingError = "chunk size line with a CR that ends no line"
	errSize      framingError = "invalid chunk size"
	errOverheads framingError = "chunked encoding contains too much non-data"
)

// Reader decodes a chunked body. NewReader's is as strict as net/http's
// reader (lines end with CRLF, no other CR, chunk data ends with CRLF, a
// bound on what is not data), but for the size line: whitespace before a
// chunk extension's ";" is taken, which the RFC's grammar allows (BWS)
// and NGINX accepts, where net/http refuses the request; and a size may
// have any number of leading zeros. NewLaxReader's takes what NGINX's
// parser takes (see there). Once a size line takes the body past Limit's
// max, the read fails with *http.MaxBytesError at once, as NGINX answers
// 413 then, rather than wait for data that may never come.
//
// The trailer after the last chunk is left to the caller: Read returns
// io.EOF once the last chunk's size line has been read.
type Reader struct {
	br       *bufio.Reader
	lax      bool  // NGINX's framing (NewLaxReader)
	n        int64 // bytes left of the current chunk
	checkEnd bool  // the line end after a chunk's data is next
	total    int64 // the sizes announced so far
	max      int64 // the most total may reach; 0: no limit
	excess   int64 // bytes of framing beyond what the data allows
	err      error
}

// NewReader returns a strict Reader of the chunks br holds: a client's
// request body.
func NewReader(br *bufio.Reader) *Reader { return &Reader{br: br} }

// NewLaxReader returns a Reader that takes the framing NGINX's
// ngx_http_parse_chunked takes, for an upstream's response, where NGINX
// relays what it takes and a refusal turns a working site into errors:
// lines may end with LF alone (a CR only ends a line, before LF), and a
// size ends at the first ";", space or tab, after which anything is an
// extension ("3 x"). No one but the upstream frames these bytes, so
// there is no second reader of them to disagree with.
func NewLaxReader(br *bufio.Reader) *Reader { return &Reader{br: br, lax: true} }

// Limit makes a size line that takes the body past max bytes in all fail
// the read with *http.MaxBytesError (client_max_body_size); 0: no limit.
func (cr *Reader) Limit(max int64) { cr.max = max }

// ChunkEnded reports whether the chunks read so far are whole: no chunk's
// data is left to read. NGINX's chunked filter passes a chunk on once its
// data is all in, and not before (its pipe's minimal length).
func (cr *Reader) ChunkEnded() bool { return cr.n == 0 }

// maxChunkLine bounds a chunk's size line, extensions included, as
// net/http does; it fits a connection's 4 KB read buffer.
const maxChunkLine = 4096

func (cr *Reader) Read(p []byte) (n int, err error) {
	for cr.err == nil {
		if cr.checkEnd {
			if n > 0 && cr.br.Buffered() < 2 {
				break // return what there is rather than wait
			}
			if cr.err = cr.dataEnd(); cr.err != nil {
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

// dataEnd reads the line end after a chunk's data: CRLF, or LF alone
// for a lax Reader.
func (cr *Reader) dataEnd() error {
	c, err := cr.br.ReadByte()
	crlf := err == nil && c == '\r'
	if crlf {
		c, err = cr.br.ReadByte()
	}
	switch {
	case err == io.EOF:
		return io.ErrUnexpectedEOF
	case err != nil:
		return err
	case c != '\n' || !crlf && !cr.lax:
		return errDataEnd
	}
	return nil
}

// lineBuffered reports whether a whole line is in the buffer, so that the
// next chunk's size can be read without blocking.
func (cr *Reader) lineBuffered() bool {
	b, _ := cr.br.Peek(cr.br.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// beginChunk reads a chunk's size line; a size of 0 ends the chunks with
// io.EOF.
func (cr *Reader) beginChunk() {
	line, err := cr.br.ReadSlice('\n')
	switch {
	case err == io.EOF:
		cr.err = io.ErrUnexpectedEOF
		return
	case err == bufio.ErrBufferFull || len(line) > maxChunkLine:
		cr.err = errLineLong
		return
	case err != nil:
		cr.err = err
		return
	}
	cr.excess += int64(len(line))
	line = line[:len(line)-1]
	switch i := bytes.IndexByte(line, '\r'); {
	case i >= 0 && i != len(line)-1:
		cr.err = errBareCR
		return
	case i >= 0:
		line = line[:i]
	case !cr.lax:
		cr.err = errLineEnd
		return
	}
	if cr.lax {
		if i := bytes.IndexAny(line, "; \t"); i >= 0 {
			line = line[:i]
		}
	} else {
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		line = bytes.TrimRight(line, " \t")
	}
	size, ok := parseChunkSize(line)
	if !ok {
		cr.err = errSize
		return
	}
	// Framing is allowed 16 bytes a chunk and twice the chunk's data, as
	// net/http allows, so that extensions cannot make a body mostly noise.
	cr.excess = max(cr.excess-16-2*size, 0)
	if cr.excess > 16<<10 {
		cr.err = errOverheads
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

// Complete reports whether b begins with a whole chunked body: its
// chunks, the last chunk and the trailer section up to its empty line.
// It follows the sizes and line ends only as far as needed to find that
// end; a body it calls complete is still read through a Reader, which
// refuses the framing this let through. NGINX's proxy sends the length of
// a chunked body it found whole in its first read, not chunks.
func Complete(b []byte) bool {
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return false
		}
		line := bytes.TrimSuffix(b[:i], []byte{'\r'})
		b = b[i+1:]
		if j := bytes.IndexAny(line, "; \t"); j >= 0 {
			line = line[:j]
		}
		size, ok := parseChunkSize(line)
		if !ok {
			return false
		}
		if size == 0 {
			break
		}
		if size > int64(len(b))-2 {
			return false
		}
		b = b[size+2:] // the data and its CRLF
	}
	for {
		i := bytes.IndexByte(b, '\n')
		switch {
		case i < 0:
			return false
		case i == 0, i == 1 && b[0] == '\r':
			return true
		}
		b = b[i+1:]
	}
}
