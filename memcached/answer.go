package memcached

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
)

// DefaultMaxLineSize is the default limit on the answer's first line,
// NGINX's memcached_buffer_size default (one memory page).
const DefaultMaxLineSize = 4096

// AppendGet appends the command that fetches key to dst: "get ", the key
// escaped by EscapeKey, CRLF.
func AppendGet(dst []byte, key string) []byte {
	dst = append(dst, "get "...)
	dst = EscapeKey(dst, key)
	return append(dst, '\r', '\n')
}

// EscapeKey appends key to dst with the bytes that memcached's text
// protocol cannot carry in a key percent-encoded, as NGINX's
// NGX_ESCAPE_MEMCACHED does: the control bytes 0x00-0x1F, the space and
// "%" itself, in upper-case hexadecimal. Other bytes (DEL, UTF-8) are
// copied as they are.
func EscapeKey(dst []byte, key string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(key); i++ {
		b := key[i]
		if b <= ' ' || b == '%' {
			dst = append(dst, '%', hex[b>>4], hex[b&0xf])
			continue
		}
		dst = append(dst, b)
	}
	return dst
}

// Answer is what the first line of memcached's answer to a get says.
type Answer struct {
	// Found is true for a VALUE line, false for END (a miss).
	Found bool
	// Gzip is true when the flags share a bit with the gzip flag asked
	// for (memcached_gzip_flag): the value is gzip-compressed.
	Gzip bool
	// Length is the value's length in bytes.
	Length int64
}

// InvalidError is an answer that is not one NGINX accepts: the line,
// without its CRLF, and what is wrong with it.
type InvalidError struct {
	Line   string
	Reason string
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("memcached sent %s: %q", e.Reason, e.Line)
}

// ErrLineTooLong is a first line longer than the limit (NGINX's "upstream
// sent too big header").
var ErrLineTooLong = errors.New("memcached sent too big header")

// ReadLine reads the answer's first line, its LF included, from br; the
// line may take at most max bytes. A connection that ends before the
// line's end gives io.ErrUnexpectedEOF.
func ReadLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > max {
			return nil, ErrLineTooLong
		}
		if err == nil && line == nil {
			return frag, nil // the usual case: no copy
		}
		line = append(line, frag...)
		switch {
		case err == nil:
			return line, nil
		case err == io.EOF:
			return nil, io.ErrUnexpectedEOF
		case err != bufio.ErrBufferFull:
			return nil, err
		}
	}
}

// ParseAnswer parses the first line of the answer to a get of key (as
// sent, escaped), LF included, as NGINX does. The line must end with
// CRLF. "VALUE <key> <flags> <length>" is a hit: the key must be the one
// asked for; the flags are read only when gzipFlag is not 0 (NGINX does
// not look at them otherwise), as a decimal number; the length is the
// rest of the line, digits only, so a line with a CAS value is invalid.
// "END" is a miss. Anything else (ERROR, CLIENT_ERROR, SERVER_ERROR ...)
// is invalid.
func ParseAnswer(line, key []byte, gzipFlag uint64) (Answer, error) {
	n := len(line)
	if n < 3 || line[n-1] != '\n' || line[n-2] != '\r' {
		return Answer{}, invalid(line, "invalid response")
	}
	text := line[:n-2]
	if rest, ok := bytes.CutPrefix(text, []byte("VALUE ")); ok {
		return parseValue(text, rest, key, gzipFlag)
	}
	// NGINX compares the line, its CR included, as a C string: a NUL
	// ends it.
	end := line[:n-1]
	if i := bytes.IndexByte(end, 0); i >= 0 {
		end = end[:i]
	}
	if string(end) == "END\r" {
		return Answer{}, nil
	}
	return Answer{}, invalid(line, "invalid response")
}

func parseValue(text, rest, key []byte, gzipFlag uint64) (Answer, error) {
	if !bytes.HasPrefix(rest, key) {
		return Answer{}, invalid(text, "invalid key in response")
	}
	rest = rest[len(key):]
	if len(rest) == 0 || rest[0] != ' ' {
		return Answer{}, invalid(text, "invalid response")
	}
	rest = rest[1:]
	// The flags end at the next space; a NUL before it ends the line.
	sp := bytes.IndexByte(rest, ' ')
	if nul := bytes.IndexByte(rest, 0); sp < 0 || nul >= 0 && nul < sp {
		return Answer{}, invalid(text, "invalid response")
	}
	var a Answer
	if gzipFlag != 0 {
		flags, ok := atoi(rest[:sp], math.MaxInt64)
		if !ok {
			return Answer{}, invalid(text, "invalid flags in response")
		}
		a.Gzip = uint64(flags)&gzipFlag != 0
	}
	length, ok := atoi(rest[sp+1:], math.MaxInt64)
	if !ok {
		return Answer{}, invalid(text, "invalid length in response")
	}
	a.Found, a.Length = true, length
	return a, nil
}

func invalid(line []byte, reason string) error {
	return &InvalidError{Line: string(bytes.TrimRight(line, "\r\n")), Reason: reason}
}

// atoi reads a non-empty decimal number of digits only, at most max.
func atoi(b []byte, max int64) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if v > (max-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

// trailer is what follows a value.
const trailer = "\r\nEND\r\n"

// ErrInvalidTrailer is a value not followed by "\r\nEND\r\n": NGINX logs
// "memcached sent invalid trailer" and ends the response with the value's
// declared length, closing the connection.
var ErrInvalidTrailer = errors.New("memcached sent invalid trailer")

// valueBody reads a value of known length from br, then its trailer.
// Read returns io.EOF after the last byte of the value whether the
// trailer was right or not (end is told which); a connection that ends
// within the value or the trailer is io.ErrUnexpectedEOF.
type valueBody struct {
	br    *bufio.Reader
	left  int64
	ended bool
	// read counts the bytes read from br, the trailer's included:
	// NGINX's $upstream_response_length.
	read int64
	// end is called once, when the trailer has been read: err is nil
	// when it was the right one, and the connection may serve another
	// get; ErrInvalidTrailer otherwise.
	end func(err error)
}

func (b *valueBody) Read(p []byte) (int, error) {
	if b.ended {
		return 0, io.EOF
	}
	if b.left > 0 {
		if int64(len(p)) > b.left {
			p = p[:b.left]
		}
		n, err := b.br.Read(p)
		b.left -= int64(n)
		b.read += int64(n)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return n, err
	}
	var t [len(trailer)]byte
	n, err := io.ReadFull(b.br, t[:])
	b.read += int64(n)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, err
	}
	b.ended = true
	if string(t[:]) != trailer {
		err = ErrInvalidTrailer
	}
	if b.end != nil {
		b.end(err)
	}
	return 0, io.EOF
}

// Close leaves the connection to its owner.
func (b *valueBody) Close() error { return nil }

// ReceivedLength returns the bytes read, the trailer's included
// (proxy.ReceivedLength).
func (b *valueBody) ReceivedLength() int64 { return b.read }
